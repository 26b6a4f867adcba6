"""One module per stage evaluator: a stage's label rows and predictions in, a StageReport out.

extract, ground, spans, resolve, score (calibration), gate, route and sink; ``labels`` holds the
label-row models they read and ``stage_report`` the StageReport they return. The public names are
exported from :mod:`openodke.eval`.
"""
