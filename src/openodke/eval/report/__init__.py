"""The eval report: ``models`` (the pydantic report), ``io`` (schema, check, read, write),
``render`` (the terminal table) and ``build`` (rows and reports from scores). The spec's path is
:mod:`openodke.eval.eval_report`.
"""
