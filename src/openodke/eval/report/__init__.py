"""The eval report: ``models`` (the pydantic report), ``io`` (schema, check, read, write),
``render`` (the terminal table), ``build`` (rows and reports from scores) and ``stage_report``
(what each stage evaluator returns). The spec's path is :mod:`openodke.eval.eval_report`.
"""
