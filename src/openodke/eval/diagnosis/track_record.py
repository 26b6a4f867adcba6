"""The track record: what each report predicted its fixes would gain, and what applying them measured.

``track-record.jsonl`` (surface.md, "Gold, items, refusals, track record") holds two kinds of line:

- ``{"kind": "predicted", "report", "items_sha256", "config", "fixes": [{"id", "expected",
  "ceiling"}]}``, appended by ``--report`` (beside the report unless ``--track-record`` says where);
- ``{"kind": "measured", "fix", "a", "b", "expected", "ceiling", "measured": {"difference",
  "interval"}, "verdict", "config_diff"}``, appended by ``odke eval compare A B`` when B applied a fix
  A predicted: named by ``--applied FIX``, or found because the two runs' configs differ at that
  fix's knobs alone (a knob covers its own path and every path under it).

A run is known by the SHA-256 of its items file. ``a``/``b`` are ``{"items", "items_sha256",
"report"}``. ``measured`` is the recall change B − A with its paired-bootstrap interval (the
comparison's recall: its primary metric or its recall guardrail; for right-or-wrong items, the
primary). A ``config_diff`` entry is ``{"path", "a", "b"}`` with a side left out where the key is
unset; a bare stage name (``extractor: llm``) reads as ``{use: llm}`` and a bare model as
``{model: ...}``.

Appends are atomic and safe when two processes write at once: the file is opened with
``O_APPEND``, locked (``fcntl.flock``, or ``msvcrt.locking`` on Windows: ``openodke._locking``),
and each call's lines go in one ``os.write``; a write that fails part way (a full disk, a file
size limit) is cut back to where the file ended, so no half line is left. A predicted line is
made whole in memory: the fixes and the hash of the items text that same run wrote (never the
file re-read, which another run may have replaced meanwhile). Configs are written with their
secrets stripped (``openodke.llm.strip_secrets``). A reader refuses a line it cannot read
(``path:line``), \\r-only line ends and a second byte-order mark included, but for a last line
with no line end (a writer killed mid-line, a power loss): that one is skipped with a warning,
and the next append cuts it off before writing (a last line that reads whole just gets its line
end). DECISIONS #96, #190.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke._locking import locked
from openodke.errors import InputError, OutputError
from openodke.eval.diagnosis.fixes import FIXES, Fix
from openodke.eval.engine.jsonl import validation_message
from openodke.safeio import iter_lines, open_regular, parse_json

if TYPE_CHECKING:  # a type here only: the comparison models load with compare
    from openodke.eval.compare import Comparison

__all__ = [
    "MeasuredLine",
    "PredictedFix",
    "PredictedLine",
    "RecordResult",
    "TRACK_RECORD",
    "append_lines",
    "attach_records",
    "check_fix_id",
    "config_diff",
    "default_path",
    "read_track_record",
    "record_comparison",
    "record_prediction",
    "render_measured",
    "sha256_file",
    "sha256_text",
]

TRACK_RECORD = "track-record.jsonl"
"""The track record's file name, beside the report by default."""


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PredictedFix(_Line):
    """One fix as a report predicted it."""

    id: str
    expected: float | None
    ceiling: float | None


class PredictedLine(_Line):
    """What one report predicted: its fixes, for the run known by its items' hash and config."""

    kind: Literal["predicted"] = "predicted"
    report: str | None = Field(description="The report's path as given.")
    items_sha256: str | None = Field(description="SHA-256 of the run's --items file.")
    config: dict[str, Any] | None = Field(description="The run config that made the predictions.")
    fixes: list[PredictedFix]


class Measured(_Line):
    """The recall change B − A and its paired-bootstrap interval."""

    difference: float | None
    interval: tuple[float, float] | None


class MeasuredLine(_Line):
    """What B measured after applying a fix A predicted."""

    kind: Literal["measured"] = "measured"
    fix: str
    a: dict[str, Any] = Field(description="{items, items_sha256, report} of run A.")
    b: dict[str, Any] = Field(description="{items, items_sha256, report} of run B.")
    expected: float | None
    ceiling: float | None
    measured: Measured
    verdict: Literal["better", "worse", "inconclusive"]
    config_diff: list[dict[str, Any]] | None = Field(
        description="Where A's and B's configs differ; null when either is unknown."
    )


class RecordResult(_Line):
    """What ``record_comparison`` appended, and why it appended nothing when it did not."""

    path: str
    lines: list[MeasuredLine]
    notes: list[str]


def sha256_file(path: str | Path) -> str:
    """SHA-256 hex of a file's bytes, read in blocks; InputError when it cannot be read."""
    digest = hashlib.sha256()
    with open_regular(path, what="an items file") as handle:
        try:
            while block := handle.read(1 << 20):
                digest.update(block)
        except OSError as error:
            raise InputError(f"cannot read: {error.strerror}", path=str(path)) from None
    return digest.hexdigest()


def sha256_text(text: str) -> str:
    """SHA-256 hex of ``text`` as written (UTF-8): what :func:`sha256_file` gives for the file
    holding exactly that text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_path(report: str | Path) -> Path:
    """``track-record.jsonl`` beside the report."""
    return Path(report).parent / TRACK_RECORD


def append_lines(path: str | Path, lines: Sequence[BaseModel | Mapping[str, Any]]) -> None:
    """Append JSON lines atomically: O_APPEND, an exclusive lock, one ``os.write`` for all.

    A write that fails part way is cut back (``ftruncate``) to where the file ended, so the file
    never holds half a line: InputError for a path that cannot be a file (a folder, no
    permission), OutputError for a full disk or a file size limit. A file whose last line has no
    line end (a writer killed mid-line) gets one first, so this record is a line of its own.
    """
    if not lines:
        return
    from openodke.llm.redact import scrub_text

    text = "".join(
        (
            line.model_dump_json()
            if isinstance(line, BaseModel)
            else json.dumps(line, ensure_ascii=False, allow_nan=False)
        )
        + "\n"
        for line in lines
    )
    data = scrub_text(text).encode("utf-8")
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError) as error:
        raise InputError(
            f"cannot append to the track record: {error.strerror}", path=str(target)
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("the track record is not a regular file", path=str(target))
        with locked(fd):
            _append(fd, data, target)
    finally:
        os.close(fd)


def _append(fd: int, data: bytes, target: Path) -> None:
    """Write ``data`` at the end of the locked file ``fd``, all of it or none."""
    end = os.fstat(fd).st_size
    if end and os.pread(fd, 1, end - 1) != b"\n":
        start = _last_line_start(fd, end)
        tail = os.pread(fd, end - start, start)
        if b"\r" in tail.rstrip(b"\r"):  # \r-only line ends: never taken for one torn line
            raise InputError(
                "a carriage return inside the line: lines must end with \\n or \\r\\n, not \\r "
                "alone (convert the file's line ends); nothing was appended",
                path=str(target),
                line=_lines_before(fd, start) + 1,
            )
        if _whole(tail):
            data = b"\n" + data
        else:  # half a line, cut off mid-write: readers skip it, and here it goes
            os.ftruncate(fd, start)
            sys.stderr.write(
                f"warning: {target}: removed a last line cut off mid-write ({end - start} "
                "bytes with no line end)\n"
            )
            end = start
    written = 0
    try:
        while written < len(data):  # a regular file takes it whole; this is belt and braces
            written += os.write(fd, data[written:])
    except BaseException as error:
        os.ftruncate(fd, end)  # no half line, whatever stopped the write
        if isinstance(error, OSError):
            raise OutputError(
                f"cannot append to the track record {target}: {error.strerror or error}; "
                "nothing was appended"
            ) from None
        raise


def record_prediction(
    path: str | Path,
    *,
    fixes: Sequence[Fix],
    report: str | Path | None = None,
    items: str | Path | None = None,
    config: Mapping[str, Any] | None = None,
    items_sha256: str | None = None,
) -> PredictedLine:
    """Append a report's predicted line and return it.

    ``items_sha256`` is the hash of the items text this run wrote (:func:`sha256_text`); pass
    it, so the line pairs these fixes with these items even when another run rewrites the items
    file meanwhile. Without it ``items`` is hashed as it is on disk.
    """
    from openodke.llm.redact import strip_secrets

    if items_sha256 is None and items is not None:
        items_sha256 = sha256_file(items)
    line = PredictedLine(
        report=None if report is None else str(report),
        items_sha256=items_sha256,
        config=None if config is None else strip_secrets(dict(config)),
        fixes=[
            PredictedFix(id=f.id, expected=f.recall.expected, ceiling=f.recall.ceiling)
            for f in fixes
        ],
    )
    append_lines(path, [line])
    return line


def read_track_record(path: str | Path) -> list[PredictedLine | MeasuredLine]:
    """Every line of a track record, in order; InputError names a bad line (path:line).

    A last line with no line end that cannot be read (a writer killed mid-line) is skipped with
    a warning on stderr; the next append cuts it off (:func:`append_lines`).
    """
    out: list[PredictedLine | MeasuredLine] = []
    name = str(path)
    lines = iter_lines(name, what="a track record (JSONL)")
    current = next(lines, None)
    while current is not None:
        number, raw = current
        following = next(lines, None)
        try:
            out.append(_record_line(raw, name, number))
        except InputError as error:
            if following is not None or not _unterminated(name):
                raise
            sys.stderr.write(
                f"warning: {error}; the last line has no line end (a write cut off): skipped, "
                "and the next append removes it\n"
            )
        current = following
    return out


def _record_line(raw: bytes, name: str, number: int) -> PredictedLine | MeasuredLine:
    value = parse_json(raw, path=name, line=number)
    kind = value.get("kind") if isinstance(value, dict) else None
    model: type[PredictedLine] | type[MeasuredLine]
    if kind == "predicted":
        model = PredictedLine
    elif kind == "measured":
        model = MeasuredLine
    else:
        raise InputError(
            f"kind: expected 'predicted' or 'measured', got {kind!r}", path=name, line=number
        )
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise InputError(validation_message(error), path=name, line=number) from None


def _unterminated(name: str) -> bool:
    """Whether the file's last byte is not a line end."""
    with open(name, "rb") as handle:
        size = handle.seek(0, 2)
        if not size:
            return False
        handle.seek(size - 1)
        return handle.read(1) != b"\n"


def _last_line_start(fd: int, end: int) -> int:
    """Where the last line of the first ``end`` bytes of ``fd`` starts."""
    position = end
    while position > 0:
        step = min(_TAIL_BLOCK, position)
        block = os.pread(fd, step, position - step)
        cut = block.rfind(b"\n")
        if cut >= 0:
            return position - step + cut + 1
        position -= step
    return 0


def _lines_before(fd: int, end: int) -> int:
    """How many line ends the first ``end`` bytes of ``fd`` hold."""
    count = position = 0
    while position < end:
        block = os.pread(fd, min(1 << 20, end - position), position)
        if not block:
            break
        count += block.count(b"\n")
        position += len(block)
    return count


def _whole(data: bytes) -> bool:
    """Whether ``data`` is blank or one JSON value (a last line written whole, its end lost)."""
    if not data.strip():
        return True
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


_TAIL_BLOCK = 1 << 16


_UNSET = object()


def _normalised(config: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(config)
    stages = out.get("stages")
    if isinstance(stages, Mapping):
        out["stages"] = {k: {"use": v} if isinstance(v, str) else v for k, v in stages.items()}
    models = out.get("models")
    if isinstance(models, Mapping):
        out["models"] = {k: {"model": v} if isinstance(v, str) else v for k, v in models.items()}
    return out


def _flatten(value: Any, prefix: str, into: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value:
        for key, inner in value.items():
            _flatten(inner, f"{prefix}.{key}" if prefix else str(key), into)
    else:
        into[prefix] = value


def config_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every dotted path at which two run configs differ: ``{"path", "a", "b"}``, unset left out."""
    flat_a: dict[str, Any] = {}
    flat_b: dict[str, Any] = {}
    _flatten(_normalised(a), "", flat_a)
    _flatten(_normalised(b), "", flat_b)
    out = []
    for path in sorted({*flat_a, *flat_b}):
        va, vb = flat_a.get(path, _UNSET), flat_b.get(path, _UNSET)
        if va == vb:
            continue
        entry: dict[str, Any] = {"path": path}
        if va is not _UNSET:
            entry["a"] = va
        if vb is not _UNSET:
            entry["b"] = vb
        out.append(entry)
    return out


def _covers(knob: str, path: str) -> bool:
    return path == knob or path.startswith(knob + ".")


def check_fix_id(fix_id: str) -> None:
    """InputError (exit 2) with a did-you-mean unless ``fix_id`` is one of the spec's fixes."""
    _knobs(fix_id)


def _knobs(fix_id: str) -> tuple[str, ...]:
    for spec in FIXES:
        if spec.id == fix_id:
            return spec.knobs
    known = [spec.id for spec in FIXES]
    close = difflib.get_close_matches(fix_id, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InputError(f"--applied: unknown fix {fix_id!r}{hint}; fixes: {', '.join(known)}")


def _latest(lines: Sequence[PredictedLine | MeasuredLine], sha: str) -> PredictedLine | None:
    for line in reversed(lines):
        if isinstance(line, PredictedLine) and line.items_sha256 == sha:
            return line
    return None


def record_comparison(
    path: str | Path,
    a_items: str | Path,
    b_items: str | Path,
    comparison: Comparison,
    *,
    applied: str | None = None,
) -> RecordResult:
    """Append what B measured for each fix of A's it applied (see the module docstring)."""
    if applied is not None:
        _knobs(applied)  # an unknown fix id is an input error, whatever the record holds

    def nothing(note: str) -> RecordResult:
        return RecordResult(path=str(path), lines=[], notes=[note])

    if not os.path.lexists(path):
        return nothing(f"no track record at {path}: nothing recorded")
    lines = read_track_record(path)
    sha_a, sha_b = sha256_file(a_items), sha256_file(b_items)
    before, after = _latest(lines, sha_a), _latest(lines, sha_b)
    if before is None:
        return nothing(
            "A's items are not in the track record (its report's --items): nothing recorded"
        )
    predicted = {f.id: f for f in before.fixes}
    diff = (
        config_diff(before.config, after.config)
        if after is not None and before.config is not None and after.config is not None
        else None
    )
    if applied is not None:
        if applied not in predicted:
            return nothing(f"A's report predicted no gain for {applied}: nothing recorded")
        chosen = [applied]
    elif diff is None:
        return nothing(
            "A's or B's config is unknown, so the fix B applied cannot be told: pass --applied"
        )
    elif not diff:
        return nothing("A and B ran the same config: no fix applied")
    else:
        chosen = [
            fid
            for fid in predicted
            if all(any(_covers(k, d["path"]) for k in _knobs(fid)) for d in diff)
        ]
        if not chosen:
            changed = ", ".join(d["path"] for d in diff)
            return nothing(
                f"the configs differ beyond any one fix's knobs ({changed}): pass --applied"
            )
    paired = comparison.primary
    if comparison.metric != "recall" and "recall" in comparison.guardrails:
        paired = comparison.guardrails["recall"]

    def run(items: str | Path, sha: str, line: PredictedLine | None) -> dict[str, Any]:
        return {"items": str(items), "items_sha256": sha, "report": line.report if line else None}

    made = [
        MeasuredLine(
            fix=fid,
            a=run(a_items, sha_a, before),
            b=run(b_items, sha_b, after),
            expected=predicted[fid].expected,
            ceiling=predicted[fid].ceiling,
            measured=Measured(difference=paired.difference, interval=paired.interval),
            verdict=paired.verdict,
            config_diff=diff,
        )
        for fid in chosen
    ]
    append_lines(path, made)
    return RecordResult(path=str(path), lines=made, notes=[])


def _points(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f}"


def _value(entry: Mapping[str, Any], side: str) -> str:
    if side not in entry:
        return "(unset)"
    value = entry[side]
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_measured(line: MeasuredLine) -> str:
    """``track record: <fix> expected +2.6 (ceiling +20.8), measured +4.5 [+2.0, +7.4] better
    (config: <path> <a> → <b>)``."""
    m = line.measured
    span = f" [{_points(m.interval[0])}, {_points(m.interval[1])}]" if m.interval else " [—]"
    text = (
        f"track record: {line.fix} expected {_points(line.expected)} (ceiling "
        f"{_points(line.ceiling)}), measured {_points(m.difference)}{span} {line.verdict}"
    )
    if line.config_diff:
        changes = "; ".join(
            f"{d['path']} {_value(d, 'a')} → {_value(d, 'b')}" for d in line.config_diff
        )
        text += f" (config: {changes})"
    return text


def attach_records(found: Sequence[Fix], path: str | Path) -> list[Fix]:
    """``found`` with each fix's ``record``: the latest measured line for its id, if any."""
    if not os.path.lexists(path):
        return list(found)
    latest: dict[str, MeasuredLine] = {}
    for line in read_track_record(path):
        if isinstance(line, MeasuredLine):
            latest[line.fix] = line
    return [
        fix.model_copy(update={"record": latest[fix.id].model_dump(mode="json")})
        if fix.id in latest
        else fix
        for fix in found
    ]
