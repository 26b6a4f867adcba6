"""Any saved report, read back; a report's tables as DataFrames, CSV or parquet files.

``load_any_report`` reads what odke writes: an eval report (``--report``), a StageReport
(``odke eval <stage> --json``, with the diagnosis ``odke eval extract --json`` adds) or a
comparison block (``odke eval compare --json``). The tables are
:func:`openodke.eval.report.tables.report_tables`'.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openodke.errors import InputError
from openodke.eval.report.tables import report_tables

if TYPE_CHECKING:
    import pandas as pd

    from openodke.eval.report.models import EvalReport
    from openodke.eval.stages.stage_report import StageReport

__all__ = ["load_any_report", "need_pandas", "to_pandas", "write_tables"]


def load_any_report(path: str | Path) -> EvalReport | StageReport:
    """An eval report, a StageReport or a comparison block, by its keys; exit 2 otherwise."""
    from pydantic import ValidationError

    from openodke.safeio import read_json

    data = read_json(path, what="a JSON report")
    if isinstance(data, dict) and "schema_version" in data:
        from openodke.eval.report.io import read_report

        return read_report(path)[0]
    try:
        if isinstance(data, dict) and "stage" in data:
            return _stage(data)
        if isinstance(data, dict) and "primary" in data and "metric" in data:
            from openodke.eval.compare import Comparison
            from openodke.eval.report.build import from_comparison

            return from_comparison(Comparison.model_validate(data))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path}: {where}: {first['msg']}") from None
    raise InputError(
        "not a report odke writes: an eval report (--report), a stage's --json or a "
        "compare --json block",
        path=str(path),
    )


def _stage(data: dict[str, Any]) -> EvalReport | StageReport:
    from openodke.eval.stages.stage_report import StageReport

    diagnosis, fixes = data.pop("diagnosis", None), data.pop("fixes", None)
    stage = StageReport.model_validate(data)
    if diagnosis is None and fixes is None:
        return stage
    from openodke.eval.diagnosis.fixes import Fix
    from openodke.eval.diagnosis.models import DiagnosisRow
    from openodke.eval.report.build import from_stage

    return from_stage(
        stage,
        notes=stage.notes,
        diagnosis=[DiagnosisRow.model_validate(d) for d in diagnosis or []],
        fixes=[Fix.model_validate(f) for f in fixes or []],
    )


def need_pandas() -> Any:
    """The pandas module, or a clear error naming the extra that brings it."""
    try:
        import pandas
    except ImportError:
        raise InputError("DataFrames need pandas: pip install 'openodke[pandas]'") from None
    return pandas


def to_pandas(report: EvalReport | StageReport) -> dict[str, pd.DataFrame]:
    """Each non-empty table of the report as a DataFrame, by name (``rows``, ``predicates``,
    ``diagnosis``, ``fixes``, ``comparison``; a StageReport's ``metrics`` and ``breakdown``)."""
    pandas = need_pandas()
    return {name: pandas.DataFrame(rows) for name, rows in report_tables(report).items()}


def write_tables(
    report: EvalReport | StageReport, folder: str | Path, stem: str, fmt: str
) -> list[Path]:
    """Write each table as ``folder/<stem>.<table>.<fmt>`` (csv or parquet); return the paths.
    Parquet needs pyarrow (``openodke[parquet]``); nothing is written without it."""
    from openodke.eval.engine.jsonl import write_outputs

    tables = report_tables(report)
    out = Path(folder)
    if out.exists() and not out.is_dir():  # before any table is written
        raise InputError("is a file, not a folder: the tables go in a folder", path=str(out))
    if fmt == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError("parquet needs pyarrow: pip install 'openodke[parquet]'") from None
        paths = []
        for name, rows in tables.items():
            path = out / f"{stem}.{name}.parquet"
            buffer = pa.BufferOutputStream()
            pq.write_table(pa.Table.from_pylist(rows), buffer)
            paths.append(path)
            _write_bytes(path, buffer.getvalue().to_pybytes())
        return paths
    if fmt != "csv":
        raise InputError(f"unknown table format {fmt!r}: csv or parquet")
    outputs = []
    for name, rows in tables.items():
        text = io.StringIO()
        columns = list(dict.fromkeys(c for row in rows for c in row))
        writer = csv.DictWriter(text, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
        outputs.append((out / f"{stem}.{name}.csv", text.getvalue()))
    write_outputs(outputs)
    return [path for path, _ in outputs]


def _write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` beside ``path`` and rename it into place."""
    import os
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:  # a file where a folder goes, no permission: as csv says it
        raise InputError(f"cannot write here: {error.strerror}", path=str(path)) from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
