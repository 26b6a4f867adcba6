"""Reading the JSON or JSONL files adapters take, with ``path:line`` errors."""

from __future__ import annotations

import dataclasses
import enum
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from openodke.errors import InputError
from openodke.eval.engine.jsonl import validation_message
from openodke.interop.match import DocumentIndex
from openodke.safeio import (
    JSONSyntaxError,
    first_line,
    iter_json_lines,
    max_line_bytes,
    parse_json,
    read_bytes,
)
from openodke.types import Document

__all__ = ["Problem", "as_index", "iter_records", "plain", "read_records", "scalar", "why"]


def as_index(documents: Iterable[Document] | DocumentIndex) -> DocumentIndex:
    """The documents as a DocumentIndex (an index passes through, keeping its names)."""
    return documents if isinstance(documents, DocumentIndex) else DocumentIndex(documents)


def read_records(path: str | Path) -> list[tuple[int | None, Any]]:
    """``(line, record)`` pairs from a JSON file (a list, or one object) or a JSONL file.

    A JSON file's records have no line (None); a JSONL file's have their line number.
    """
    return list(iter_records(path))


def iter_records(path: str | Path) -> Iterator[tuple[int | None, Any]]:
    """:func:`read_records` one record at a time: a JSONL file's are read line by line."""
    name = str(path)
    if _jsonl(name):  # one value on the first line and more after it: lines, never read whole
        yield from iter_json_lines(path)
        return
    data = read_bytes(name, what="a JSON or JSONL file")
    try:
        whole = parse_json(data, path=name)
    except JSONSyntaxError:
        del data  # not one JSON document: lines, read in bounded pieces
        yield from iter_json_lines(path)
        return
    if isinstance(whole, list):
        yield from ((None, record) for record in whole)
    else:
        yield None, whole


def _jsonl(name: str) -> bool:
    """Whether the file's first non-blank line is a JSON value of its own with more after it."""
    try:
        line = first_line(name, max_line_bytes())
        if line is None or not line.strip():
            return False
        json.loads(line)
        return os.stat(name).st_size > len(line) + 8  # a BOM, a line end, trailing blanks
    except (InputError, OSError, ValueError, RecursionError):
        return False  # the whole-file reader names the problem


class Problem(InputError):
    """A malformed record: ``path:line: record N: what is wrong``."""

    def __init__(self, what: str, *, path: str | Path, line: int | None, number: int) -> None:
        where = f"record {number}: " if line is None else ""
        super().__init__(where + what, path=str(path), line=line)


def scalar(value: Any) -> str | int | float | bool | None:
    """A JSON scalar usable as a triple's object, or None for null, NaN, lists and objects."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    return None


def why(error: Exception) -> str:
    """A short reason for a malformed record: a missing key, a bad value, a row that fails."""
    if isinstance(error, ValidationError):
        return validation_message(error).replace("Value error, ", "")
    if isinstance(error, KeyError):
        return f"missing '{error.args[0]}'"
    return str(error)


def plain(value: Any) -> Any:
    """A library's object as the JSON-like data its own dump writes, for an adapter to read.

    A pydantic model (LangChain's ``GraphDocument``) is ``model_dump()``; a dataclass
    (LangExtract's ``AnnotatedDocument``) its fields, a private field (``_document_id``) read
    through its public property (``document_id``) where the class has one; an enum its value;
    lists, tuples and mappings item by item. Anything else is returned as it is.
    """
    if isinstance(value, BaseModel):
        return plain(value.model_dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            name = field.name
            public = name.lstrip("_")
            if public != name and isinstance(getattr(type(value), public, None), property):
                out[public] = plain(getattr(value, public))
            elif public == name:
                out[name] = plain(getattr(value, name))
        return out
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value
