"""Reading and writing JSONL rows with one clear error per bad line.

Every reader here reports problems as ``path:line: what is wrong`` (an InputError, exit 2): invalid
JSON, an unknown key, a missing or mistyped field, bytes that are not UTF-8, an empty file. A
byte-order mark, CRLF line ends and blank lines are accepted.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from openodke.errors import InputError, OutputError
from openodke.eval.engine.pause import paused_gc

__all__ = [
    "atomic_write_text",
    "dump_jsonl",
    "iter_json_lines",
    "load_jsonl",
    "validation_message",
    "write_outputs",
]

M = TypeVar("M", bound=BaseModel)


def validation_message(error: ValidationError) -> str:
    """A pydantic error as ``field.path: message``; an unknown key first, with a did-you-mean."""
    problems = sorted(error.errors(), key=lambda p: p["type"] != "extra_forbidden")
    first = problems[0]
    where = ".".join(str(p) for p in first["loc"]) or "row"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown key"
        parent = first["loc"][:-1]
        missing = [
            str(p["loc"][-1])
            for p in problems
            if p["type"] == "missing" and p["loc"][:-1] == parent
        ]
        close = difflib.get_close_matches(str(first["loc"][-1]), missing, n=1)
        if close:
            message += f" (did you mean {close[0]!r}?)"
            problems = [p for p in problems if p["loc"] != parent + (close[0],)]
    elif first["type"] == "missing":
        message = "missing required field"
    elif "input" in first and first["type"] not in {"value_error"}:
        found = first["input"]
        if not isinstance(found, dict | list):
            message = f"{message}, got {json.dumps(found, default=str)[:60]}"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {message}{more}"


def _read(path: str | Path) -> bytes:
    """A file's bytes, without a UTF-8 byte-order mark; InputError when it cannot be read."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path=name) from None
    except IsADirectoryError:
        raise InputError("is a folder, expected a JSONL file", path=name) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", path=name) from None
    return raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw


def _parse(line: bytes, name: str, number: int) -> Any:
    """One line's JSON (its ``\\r`` already stripped); InputError naming the line."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"not UTF-8 (byte 0x{line[error.start]:02x} at column {error.start + 1})",
            path=name,
            line=number,
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"invalid JSON: {error.msg} at column {error.colno}", path=name, line=number
        ) from None


def iter_json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, parsed JSON)`` for each non-blank line; InputError on a bad one."""
    name = str(path)
    seen = False
    for number, line in enumerate(_read(path).split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if not line.strip():
            continue
        seen = True
        yield number, _parse(line, name, number)
    if not seen:
        raise InputError("empty file: expected one JSON object per line", path=name)


def _one(model: type[M], line: bytes, name: str, number: int) -> M:
    """One line read the careful way: the error it raises names the line and the field."""
    value = _parse(line.rstrip(b"\r"), name, number)
    if not isinstance(value, dict):
        raise InputError(
            f"expected a JSON object, got {type(value).__name__}", path=name, line=number
        )
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise InputError(validation_message(error), path=name, line=number) from None


def load_jsonl(path: str | Path, model: type[M]) -> list[M]:
    """Read one ``model`` per line of a JSONL file; InputError names the first bad line.

    Each line goes straight from its bytes to the model (pydantic's JSON validation, several
    times faster than parsing it first); a line that refuses goes the careful way (json.loads,
    then the model), which accepts it (a line only the careful parser reads) or names what is
    wrong, so the rows and the errors are those the careful way gives.
    """
    name = str(path)
    rows: list[M] = []
    validate = model.model_validate_json
    with paused_gc():  # as the engine reads: the rows hold no cycle, so none is looked for
        for number, line in enumerate(_read(path).split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                rows.append(validate(line))
            except ValueError:  # ValidationError is one; so is bad UTF-8
                rows.append(_one(model, line, name, number))
    if not rows:
        raise InputError("empty file: expected one JSON object per line", path=name)
    return rows


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _staged(target: Path, text: str) -> Path:
    """``text`` in a temp file beside ``target``, with the mode a plain open() would give."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise InputError(f"cannot write here: {error.strerror}", path=str(target)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_outputs(files: Sequence[tuple[str | os.PathLike[str], str]]) -> None:
    """Write every ``(path, text)`` or none: all are staged as temp files, then renamed.

    A path that cannot be written (a folder, a missing permission) is an InputError naming it,
    and leaves every earlier output untouched.
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for path, text in files:
            target = Path(path)
            if target.is_dir():
                raise InputError("is a folder, expected a file path", path=str(target))
            staged.append((_staged(target, text), target))
        for tmp, target in staged:
            os.replace(tmp, target)
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileNotFoundError) as error:
        where = str(error.filename or (staged[-1][1] if staged else files[0][0]))
        raise InputError(f"cannot write: {error.strerror or error}", path=where) from None
    except OSError as error:
        raise OutputError(f"cannot write {files[0][0]}: {error.strerror or error}") from error
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to a temp file in the same folder, then ``os.replace`` it into place."""
    write_outputs([(path, text)])


def dump_jsonl(path: str | Path, rows: Iterable[BaseModel]) -> None:
    """Write one ``model_dump_json()`` per line, atomically."""
    atomic_write_text(path, "".join(row.model_dump_json() + "\n" for row in rows))
