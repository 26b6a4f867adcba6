"""JSON and JSONL with bounds: nesting, number size, lone surrogates, line and file size.

The standard parser is used for what it does well; before it runs, two linear scans of the raw
bytes refuse what it would crash on or let through: nesting deeper than
:data:`~openodke.safeio.limits.MAX_NESTING` (it would raise RecursionError near 1,000, and every
recursive walk after it would too) and a ``\\ud800``-style escape with no partner (a string no
UTF-8 file can hold, so writing it, or naming a file after it, would fail later). An integer
over 4,300 digits is refused with its line. Every refusal is an InputError ``path:line: ...``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from openodke.errors import InputError
from openodke.safeio.files import decode, iter_lines, read_bytes
from openodke.safeio.limits import MAX_INT_DIGITS, MAX_NESTING

__all__ = [
    "JSONSyntaxError",
    "check_strings",
    "iter_json_lines",
    "load_jsonl",
    "parse_json",
    "read_json",
]

M = TypeVar("M", bound=BaseModel)


class JSONSyntaxError(InputError):
    """Text that is not JSON (as opposed to JSON past a bound): a reader that takes JSON or
    JSONL tells them apart by this."""


# A JSON string on one line (JSON strings hold no raw line break); replaced by "" so the brackets
# left are the structure's, and line numbers stay where they were.
_STRING = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_HINT = re.compile(rb"\\u[dD][89a-fA-F]")
# A \uD800-\uDFFF escape whose backslash is not itself escaped (an even run of backslashes before).
_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")
_CHUNK = 1 << 23


def _too_deep(data: bytes, limit: int = MAX_NESTING) -> int | None:
    """The line (1-based) where nesting first passes ``limit``, or None."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    import numpy as np  # only for inputs that could be too deep

    stripped = _STRING.sub(b'""', data)
    depth = 0
    for start in range(0, len(stripped), _CHUNK):
        size = min(_CHUNK, len(stripped) - start)
        chars = np.frombuffer(stripped, np.uint8, count=size, offset=start)
        step = (chars == ord("[")).astype(np.int32)
        step += chars == ord("{")
        step -= chars == ord("]")
        step -= chars == ord("}")
        running = np.cumsum(step)
        running += depth
        over = np.flatnonzero(running > limit)
        if over.size:
            return stripped.count(b"\n", 0, start + int(over[0])) + 1
        depth = int(running[-1])
    return None


def _lone_surrogate(data: bytes) -> tuple[int, str] | None:
    """The offset and text of the first ``\\uD8xx``-``\\uDFxx`` escape without a partner."""
    if not _HINT.search(data):
        return None
    found = [(m.start(1), m.end(1), int(m.group(1)[2:], 16)) for m in _ESCAPE.finditer(data)]
    index = 0
    while index < len(found):
        start, end, unit = found[index]
        if 0xD800 <= unit <= 0xDBFF and index + 1 < len(found):
            next_start, _, next_unit = found[index + 1]
            if next_start == end and 0xDC00 <= next_unit <= 0xDFFF:
                index += 2
                continue
        return start, data[start:end].decode("ascii")
    return None


def _where(data: bytes, offset: int, line: int | None) -> tuple[int, int]:
    """(line, column) of ``offset``: within the file, or within the given line."""
    if line is not None:
        return line, offset + 1
    return data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def parse_json(
    data: bytes | str, *, path: str, line: int | None = None, what: str | None = None
) -> Any:
    """``data`` parsed as one JSON value, within the bounds; InputError names ``path`` and the
    line (``line`` when ``data`` is one line of a file, else the line inside ``data``). With
    ``what`` (``"a JSON report"``) a syntax error reads ``not a JSON report (invalid JSON: ...)``.
    """
    if isinstance(data, str):
        text, raw = data, data.encode("utf-8", "surrogatepass")
        if not _encodes(text):
            column = next(i for i, c in enumerate(text) if 0xD800 <= ord(c) <= 0xDFFF) + 1
            raise InputError(
                f"a lone surrogate at column {column}: not valid Unicode text", path=path, line=line
            )
    else:
        raw, text = data, decode(data, path=path, line=line)
    deep = _too_deep(raw)
    if deep is not None:
        raise InputError(
            f"nested deeper than {MAX_NESTING} levels of arrays and objects",
            path=path,
            line=line if line is not None else deep,
        )
    lone = _lone_surrogate(raw)
    if lone is not None:
        where, column = _where(raw, lone[0], line)
        raise InputError(
            f'a lone surrogate "{lone[1]}" at column {column}: not valid Unicode text',
            path=path,
            line=where,
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        where = line if line is not None else error.lineno
        message = f"invalid JSON: {error.msg} at column {error.colno}"
        raise JSONSyntaxError(
            f"not {what} ({message})" if what else message, path=path, line=where
        ) from None
    except ValueError:  # int() past its digit limit
        raise InputError(
            f"a number with more than {MAX_INT_DIGITS} digits", path=path, line=line
        ) from None
    except RecursionError:  # the scan above keeps this out of reach; never a traceback
        raise InputError("nested too deeply", path=path, line=line) from None


def read_json(
    path: str | os.PathLike[str], *, what: str = "a JSON file", limit: int | None = None
) -> Any:
    """A JSON file's value, within the bounds; an empty file is an InputError too."""
    name = os.fspath(path)
    data = read_bytes(name, what=what, limit=limit)
    if not data.strip().lstrip(b"\xef\xbb\xbf").strip():
        raise InputError(f"empty file: expected {what}", path=name)
    return parse_json(data, path=name, what=what)


def iter_json_lines(
    path: str | os.PathLike[str], *, what: str = "a JSONL file"
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of a JSONL file, read in bounded pieces.

    Two values on one line are refused (``Extra data``), as are an empty file and a line past
    its size limit. Memory holds one line at a time.
    """
    name = os.fspath(path)
    seen = False
    for number, line in iter_lines(name, what=what):
        seen = True
        yield number, parse_json(line, path=name, line=number)
    if not seen:
        raise InputError("empty file: expected one JSON object per line", path=name)


def load_jsonl(path: str | os.PathLike[str], model: type[M]) -> list[M]:
    """One ``model`` per line of a JSONL file; InputError names the first bad line."""
    from openodke.eval.engine.jsonl import validation_message

    name = os.fspath(path)
    rows: list[M] = []
    for number, value in iter_json_lines(name):
        if not isinstance(value, dict):
            raise InputError(
                f"expected a JSON object, got {type(value).__name__}", path=name, line=number
            )
        try:
            rows.append(model.model_validate(value))
        except ValidationError as error:
            raise InputError(validation_message(error), path=name, line=number) from None
    return rows


def check_strings(value: Any, *, path: str, line: int | None = None, depth: int = 0) -> None:
    """InputError when a string (or a key) in ``value`` holds a lone surrogate, or ``value`` is
    nested past the limit; for values read by other parsers (YAML)."""
    if depth > MAX_NESTING:
        raise InputError(f"nested deeper than {MAX_NESTING} levels", path=path, line=line)
    if isinstance(value, str):
        if not _encodes(value):
            raise InputError("a lone surrogate: not valid Unicode text", path=path, line=line)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_strings(key, path=path, line=line, depth=depth + 1)
            check_strings(item, path=path, line=line, depth=depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            check_strings(item, path=path, line=line, depth=depth + 1)


def _encodes(text: str) -> bool:
    """Whether ``text`` is valid Unicode: it encodes to UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
