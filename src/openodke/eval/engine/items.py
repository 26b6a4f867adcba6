"""Items files: the per-document or per-item rows that `odke eval compare` reads.

One JSON object per line, one kind per file:

    {"id": "d1", "tp": 3, "fp": 1, "fn": 0}     a document's counts (corpus P/R/F1)
    {"id": "g7", "correct": true}               an item scored right or wrong (accuracy)

Both runs of a comparison must hold the same ids. A UTF-8 byte-order mark, CRLF line ends and
blank lines are tolerated; anything else that is not a valid row is an `InputError` naming
`path:line`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.errors import InputError
from openodke.eval.engine.jsonl import atomic_write_text, finish_pending
from openodke.safeio import iter_lines, parse_json

__all__ = ["DocItem", "ItemRow", "RightWrongItem", "read_items", "write_items"]


_MOST = 2**53
"""The largest count a document row may hold (counts are summed as 64-bit numbers)."""


class DocItem(BaseModel):
    """One document's extraction counts; corpus metrics sum them (micro average)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(min_length=1, description="The document's id, the same in both runs.")
    tp: int = Field(
        ge=0, le=_MOST, description="Predictions that match a gold fact of the document."
    )
    fp: int = Field(
        ge=0, le=_MOST, description="Predictions scored in the document that match no gold fact."
    )
    fn: int = Field(
        ge=0, le=_MOST, description="Gold facts of the document that no prediction matched."
    )


class RightWrongItem(BaseModel):
    """One labelled item scored right or wrong; the metric is accuracy."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(min_length=1, description="The item's id, the same in both runs.")
    correct: bool = Field(description="Whether the run got this item right.")


ItemRow: TypeAlias = DocItem | RightWrongItem

_SHAPES = {
    DocItem: 'a document row {"id", "tp", "fp", "fn"}',
    RightWrongItem: 'an item row {"id", "correct"}',
}
_PLURALS = {DocItem: "document rows", RightWrongItem: "item rows"}


@overload
def read_items(
    path: str | os.PathLike[str], *, as_frame: Literal[False] = False
) -> list[DocItem] | list[RightWrongItem]: ...
@overload
def read_items(path: str | os.PathLike[str], *, as_frame: Literal[True]) -> Any: ...
def read_items(
    path: str | os.PathLike[str], *, as_frame: bool = False
) -> list[DocItem] | list[RightWrongItem] | Any:
    """Read an items file: every row of one kind, ids unique. With ``as_frame`` a pandas
    DataFrame (``id``, ``tp``, ``fp``, ``fn`` or ``id``, ``correct``; needs pandas,
    ``openodke[pandas]``); else the rows :func:`~openodke.eval.compare_items` takes.

    Raises `InputError` (`path:line: ...`) on a line that is not JSON, not an object, has an
    unknown key, a missing or mistyped field, a kind other than the first row's, or an id seen
    before; and on an unreadable or empty file.
    """
    name = os.fspath(path)
    finish_pending(name)  # a write killed between its renames: finish it before reading
    if not os.path.lexists(name):
        raise InputError("no such items file", path=name)

    rows: list[Any] = []
    kind: type[BaseModel] | None = None
    kind_line = 0
    seen: dict[str, int] = {}
    # Lines end at "\n" only (U+2028 inside a JSON string is not a line end).
    for number, line in iter_lines(name, what="an items file"):
        obj = _parse_object(line, name, number)
        model = _kind_of(obj, name, number)
        if kind is None:
            kind, kind_line = model, number
        elif model is not kind:
            raise InputError(
                f"{_SHAPES[model]} in a file of {_PLURALS[kind]} "
                f"(line {kind_line} set the kind); one file holds one kind",
                path=name,
                line=number,
            )
        row = _validate(model, obj, name, number)
        if row.id in seen:
            raise InputError(
                f"duplicate id {row.id!r} (first on line {seen[row.id]})", path=name, line=number
            )
        seen[row.id] = number
        rows.append(row)
    if not rows:
        raise InputError(
            'no rows: expected one JSON object per line, {"id", "tp", "fp", "fn"} per document '
            'or {"id", "correct"} per item',
            path=name,
        )
    if as_frame:
        from openodke.eval.report.export import need_pandas

        return need_pandas().DataFrame([row.model_dump() for row in rows])
    return rows


def write_items(path: str | os.PathLike[str], rows: Sequence[ItemRow]) -> None:
    """Write rows as an items file, atomically (a temporary file in the same folder, then
    `os.replace`), so a reader never sees half a file. Every row must be of one kind."""
    kinds = {type(row) for row in rows}
    if len(kinds) > 1:
        raise ValueError("write_items: rows of one kind only (DocItem or RightWrongItem)")
    lines = [json.dumps(row.model_dump(mode="json"), ensure_ascii=False) + "\n" for row in rows]
    atomic_write_text(path, "".join(lines))


def _parse_object(line: bytes, path: str, number: int) -> dict[str, Any]:
    obj = parse_json(line, path=path, line=number, what="JSON")
    if not isinstance(obj, dict):
        raise InputError(
            f"expected a JSON object, found {type(obj).__name__}", path=path, line=number
        )
    return obj


def _kind_of(obj: dict[str, Any], path: str, number: int) -> type[BaseModel]:
    # "correct" decides first, so a row with both shapes reports tp/fp/fn as unknown keys.
    if "correct" in obj:
        return RightWrongItem
    if {"tp", "fp", "fn"} & obj.keys():
        return DocItem
    found = ", ".join(map(repr, obj)) or "none"
    raise InputError(
        f'a row needs "tp", "fp" and "fn" (a document) or "correct" (an item); keys found: {found}',
        path=path,
        line=number,
    )


def _validate(model: type[BaseModel], obj: dict[str, Any], path: str, number: int) -> Any:
    try:
        return model.model_validate(obj)
    except ValidationError as error:
        problems = [_describe(problem) for problem in error.errors()]
        raise InputError(
            "; ".join(problems) + f" ({_SHAPES[model]})", path=path, line=number
        ) from None


def _describe(problem: Any) -> str:
    field = ".".join(str(part) for part in problem["loc"])
    if problem["type"] == "extra_forbidden":
        return f"unknown key {field!r}"
    if problem["type"] == "missing":
        return f"missing field {field!r}"
    found = json.dumps(problem.get("input"), ensure_ascii=False, default=str)
    return f"field {field!r}: {problem['msg'].lower()}, found {found}"
