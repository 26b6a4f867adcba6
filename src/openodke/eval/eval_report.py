"""``openodke.eval.eval_report``, the path the spec imports: the eval report lives in
:mod:`openodke.eval.report` (models, schema checks and files, rendering, building).
"""

from openodke.eval.report.build import (
    SCHEMA_VERSION,
    EvalReport,
    Usage,
    check_report,
    extraction_rows,
    from_comparison,
    from_stage,
    read_report,
    report_json,
    report_schema,
    row_from_score,
    write_report,
)

__all__ = [
    "SCHEMA_VERSION",
    "EvalReport",
    "Usage",
    "check_report",
    "extraction_rows",
    "from_comparison",
    "from_stage",
    "read_report",
    "report_json",
    "report_schema",
    "row_from_score",
    "write_report",
]
