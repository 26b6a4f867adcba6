"""Checking, reading and writing eval reports against the committed JSON Schema.

The schema (``eval_report.schema.json`` in ``openodke/eval/``, where the spec names it) is generated
from the models by :func:`report_schema`; a test fails when the committed copy is stale.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from pydantic import ValidationError

from openodke.errors import InputError, ReportBug
from openodke.eval.engine.jsonl import atomic_write_text, finish_pending
from openodke.eval.report.models import SCHEMA_VERSION, EvalReport
from openodke.safeio import read_json

__all__ = [
    "SCHEMA_FILE",
    "check_major",
    "check_report",
    "read_report",
    "report_json",
    "report_schema",
    "write_report",
]

SCHEMA_FILE = "eval_report.schema.json"
_MAJOR, _MINOR = (int(p) for p in SCHEMA_VERSION.split("."))
# Fields a report of an earlier minor lacks, read as null (surface.md decision 3).
_ADDED = {(1, 3): (("run", "claim_formats"), ("calibration",))}


def report_schema() -> dict[str, Any]:
    """The JSON Schema of EvalReport, generated from the models."""
    schema = EvalReport.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://openodke.dev/schema/eval_report-{SCHEMA_VERSION}.json",
        **schema,
    }


@functools.cache
def _validator() -> Draft202012Validator:
    text = resources.files("openodke.eval").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return Draft202012Validator(json.loads(text))


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "report"


def _types(schema: dict[str, Any]) -> list[str]:
    if "$ref" in schema or schema.get("type") == "object":
        return ["object"]
    if "anyOf" in schema:
        return [t for option in schema["anyOf"] for t in _types(option)]
    kind = schema.get("type")
    if kind is None:
        return ["const " + json.dumps(schema["const"])] if "const" in schema else ["anything"]
    return [kind] if isinstance(kind, str) else list(kind)


def _message(error: SchemaError) -> str:
    where = _path(error.absolute_path)
    found = json.dumps(error.instance, ensure_ascii=False, default=str)
    if len(found) > 40:
        found = found[:37] + "..."
    if error.validator == "required":
        field = str(error.message).split("'")[1]
        return f"{_path([*error.absolute_path, field])}: missing required field"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"{where}: unknown field(s) {', '.join(extra)}"
    if error.validator in {"type", "anyOf"}:
        expected = " or ".join(dict.fromkeys(_types(error.schema)))
        return f"{where}: expected {expected}, got {found}"
    if error.validator in {"enum", "const"}:
        allowed = error.validator_value
        allowed = allowed if isinstance(allowed, list) else [allowed]
        return f"{where}: expected one of {', '.join(map(json.dumps, allowed))}, got {found}"
    return f"{where}: {error.message}"


def _non_finite(data: Any, parts: tuple[Any, ...] = ()) -> list[str]:
    if isinstance(data, float) and not math.isfinite(data):
        return [f"{_path(parts)}: {data} is not allowed in a report (undefined is null)"]
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _non_finite(v, (*parts, k))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _non_finite(v, (*parts, i))]
    return []


def check_report(data: Any) -> list[str]:
    """Every mismatch between ``data`` and the report schema, as ``"path: problem"``; [] = valid."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [_message(e) for e in errors] + _non_finite(data)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    if "anyOf" in schema:
        objects = [_resolve(s, root) for s in schema["anyOf"]]
        found = [s for s in objects if s.get("type") in ("object", "array")]
        return found[0] if found else schema
    return schema


def _drop_unknown(data: Any, schema: dict[str, Any], root: dict[str, Any], at: str) -> list[str]:
    """Remove keys the schema does not know, in place; return their paths (``rows[].foo``)."""
    schema = _resolve(schema, root)
    dropped: list[str] = []
    if isinstance(data, dict) and "properties" in schema:
        known = schema["properties"]
        for key in list(data):
            if key not in known:
                del data[key]
                dropped.append(f"{at}.{key}" if at else key)
            else:
                sub = f"{at}.{key}" if at else key
                dropped += _drop_unknown(data[key], known[key], root, sub)
    elif isinstance(data, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, value in data.items():
            dropped += _drop_unknown(value, schema["additionalProperties"], root, f"{at}.{key}")
    elif isinstance(data, list) and isinstance(schema.get("items"), dict):
        for value in data:
            dropped += _drop_unknown(value, schema["items"], root, f"{at}[]")
    return list(dict.fromkeys(dropped))


def check_major(data: dict[str, Any], path: str | Path) -> tuple[int, int]:
    """A report's ``(major, minor)``; InputError (exit 2) for another major or a malformed one."""
    version = data.get("schema_version")
    try:
        major, minor = (int(p) for p in str(version).split("."))
    except ValueError:
        raise InputError(f"schema_version {version!r} is not MAJOR.MINOR", path=str(path)) from None
    if major != _MAJOR:
        raise InputError(
            f"{Path(path).name}: schema_version {version}; this version reads {_MAJOR}.x "
            f"({SCHEMA_VERSION})"
        )
    return major, minor


def read_report(path: str | Path) -> tuple[EvalReport, list[str]]:
    """Read a report: a later minor for the fields this version knows, an earlier one with the
    fields it predates as null. Another major, invalid JSON or a schema mismatch is exit 2."""
    name = Path(path).name
    finish_pending(path)  # a write killed between its renames: finish it before reading
    data = read_json(path, what="a JSON report")
    if not isinstance(data, dict) or not isinstance(data.get("schema_version"), str):
        raise InputError("not an eval report: no schema_version", path=str(path))
    version = data["schema_version"]
    _, minor = check_major(data, path)
    notes = []
    if minor > _MINOR:
        root = json.loads(resources.files("openodke.eval").joinpath(SCHEMA_FILE).read_text())
        dropped = _drop_unknown(data, root, root, "")
        if dropped:
            notes.append(f"{name}: dropped fields from {version}: {', '.join(dropped)}")
    for (_, added), fields in _ADDED.items():
        if minor < added:
            for field in fields:
                holder = data
                for part in field[:-1]:
                    holder = holder.get(part, {}) if isinstance(holder, dict) else {}
                if isinstance(holder, dict):
                    holder.setdefault(field[-1], None)
    data["schema_version"] = SCHEMA_VERSION
    problems = check_report(data)
    if problems:
        raise InputError("\n".join(f"{path}: {p}" for p in problems))
    try:
        return EvalReport.model_validate(data), notes
    except ValidationError as error:  # what the schema lets through and the model does not
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        what = str(first["msg"]).removeprefix("Value error, ")
        raise InputError(f"{path}: {where}: {what}") from None


def report_json(report: EvalReport) -> str:
    """The report as checked JSON text (a report failing its own schema is a bug: exit 1)."""
    data = report.model_dump(mode="json")
    problems = check_report(data)
    if problems:
        raise ReportBug("the report fails its own schema: " + "; ".join(problems[:5]))
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_report(path: str | Path, report: EvalReport) -> None:
    """Check ``report`` against the schema, then write it atomically."""
    atomic_write_text(path, report_json(report))


if __name__ == "__main__":  # python -m openodke.eval.report.io: regenerate the committed schema
    target = Path(__file__).parents[1] / SCHEMA_FILE  # openodke/eval/, where the spec finds it
    target.write_text(json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n")
