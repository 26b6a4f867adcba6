"""Turning any pipeline mode's output into Facts, each matched to its document.

The three modes of ``odke eval pipeline`` end here: ``--predictions`` and ``--cmd`` give a path
(a file, or a folder for GraphRAG), ``--run`` the rows its function returned. A file whose first
line is a Fact row (a dict ``subject``) is read as Facts and kept as they are, whatever document
they cite (the scorer decides). Anything else is triples rows or an adapter's output: each row is
matched to its document by the harness rules (:mod:`openodke.interop.match`), rows naming no
document are dropped and counted in a note, and the rest become Facts by
:func:`~openodke.interop.to_fact`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.errors import InputError, PipelineError
from openodke.eval.engine.jsonl import validation_message
from openodke.interop import (
    EVIDENCE_KINDS,
    DocumentIndex,
    TripleRow,
    evidence_kind,
    is_fact_rows,
    match_rows,
    read_predictions,
    to_fact,
)
from openodke.interop.adapters import adapter_for, adapter_notes, rows_from_objects
from openodke.interop.triples import unknown_fields
from openodke.ontology import Ontology
from openodke.safeio import load_jsonl, max_file_bytes, max_line_bytes
from openodke.types import Document, Fact

__all__ = ["Collected", "as_rows", "check_last_line", "collect", "iter_rows"]

_NOT_JSONL = frozenset({"graphrag"})  # tables (CSV, parquet) or a folder of them
_BLOCK = 65536


class Collected(BaseModel):
    """A pipeline's output as Facts, with what was read and what was dropped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    facts: list[Fact] = Field(description="Every Fact row, then a Fact per matched triples row.")
    rows_read: int = Field(description="Rows read: triples rows, adapter rows and Fact rows.")
    dropped: int = Field(description="Triples rows naming no document, or an ambiguous stem.")
    notes: list[str] = Field(description="What was dropped or guessed, one line each.")
    evidence_kinds: dict[str, int] = Field(
        description="Matched triples rows by evidence kind: cited, quoted, quote_not_found, "
        "context (all four keys, zero when none; Fact rows are not counted)."
    )


def collect(
    source: str | Path | Iterable[Any],
    documents: Sequence[Document],
    *,
    ontology: Ontology | None = None,
    adapter: str = "triples",
    names: Mapping[str, str] | None = None,
    from_command: bool = False,
) -> Collected:
    """Read a pipeline's output and return its Facts, matched to ``documents``.

    ``source`` is a path (``--predictions``, or a command's ``{out}``) read with ``adapter``
    (``triples``, ``langchain``, ``langextract``, ``graphrag``; a file of Fact rows is read as
    Facts whatever the adapter), or the rows a ``--run`` function returned (triples row dicts,
    Fact dicts, TripleRows or Facts, mixed as you like; with ``langchain`` or ``langextract``,
    that library's objects or their dumps). An adapter's notes (GraphRAG descriptions that are
    sentences) join the notes. ``names`` maps a document id to the file
    name a ``--cmd`` pipeline saw (``CommandResult.names``), so rows may name documents by it.

    A last line cut off mid-write (no final newline and not valid JSON) is an InputError
    (exit 2), or with ``from_command`` a PipelineError (exit 1): ``command wrote a half line at
    <path>:<line>``. Any other bad row is an InputError naming its line.
    """
    index = DocumentIndex(documents, names=names)
    facts: list[Fact] = []
    rows: list[TripleRow] = []
    adapter_said: list[str] = []
    if isinstance(source, str | Path):
        path = Path(source)
        if adapter.strip().casefold() not in _NOT_JSONL:
            check_last_line(path, from_command=from_command)
        if path.is_file() and is_fact_rows(path):
            facts = load_jsonl(path, Fact)
        else:
            rows = read_predictions(path, adapter, index)
            adapter_said = adapter_notes(adapter, rows, ontology)
    elif adapter.strip().casefold() != "triples":
        rows = rows_from_objects(source, adapter, index)
        adapter_said = adapter_notes(adapter, rows, ontology)
    else:
        for item in as_rows(source, where="returned rows"):
            if isinstance(item, Fact):
                facts.append(item)
            else:
                rows.append(item)
    rows_read = len(facts) + len(rows)
    matched = match_rows(rows, index)
    kinds = dict.fromkeys(EVIDENCE_KINDS, 0)
    for row, doc in matched.matched:
        kinds[evidence_kind(row, doc)] += 1
        facts.append(to_fact(row, doc, ontology))
    return Collected(
        facts=facts,
        rows_read=rows_read,
        dropped=matched.dropped,
        notes=[*matched.notes, *adapter_said],
        evidence_kinds=kinds,
    )


def as_rows(items: Iterable[Any], *, where: str) -> list[TripleRow | Fact]:
    """Each item as a TripleRow or a Fact: a dict with a dict ``subject`` is a Fact row.

    InputError ``<where>: item <n>: <problem>`` (n from 1) for an item that is neither.
    """
    return list(iter_rows(items, where=where))


def iter_rows(items: Iterable[Any], *, where: str) -> Iterator[TripleRow | Fact]:
    """:func:`as_rows` one item at a time, as ``items`` yields them."""
    for number, item in enumerate(items, start=1):
        if isinstance(item, TripleRow | Fact):
            yield item
            continue
        library = adapter_for(item)
        if library is not None:
            raise InputError(
                f"{where}: item {number} is {library}'s output: add --adapter {library}"
            )
        if not isinstance(item, Mapping):
            raise InputError(
                f"{where}: item {number}: expected a triples row (a dict), a TripleRow or a "
                f"Fact, got {type(item).__name__}"
            )
        model: type[TripleRow] | type[Fact] = (
            Fact if isinstance(item.get("subject"), Mapping) else TripleRow
        )
        unknown = unknown_fields(dict(item)) if model is TripleRow else None
        if unknown is not None:
            raise InputError(f"{where}: item {number}: {unknown}")
        try:
            row = model.model_validate(dict(item))
        except ValidationError as error:
            message = validation_message(error).replace("Value error, ", "")
            raise InputError(f"{where}: item {number}: {message}") from None
        yield row


def check_last_line(path: str | Path, *, from_command: bool = False) -> None:
    """Refuse a file whose last line was cut off mid-write.

    A last line with no final newline that is not valid JSON is a half line, unless the whole
    file is one JSON document (a pretty-printed list ends in ``]`` with no newline). A folder,
    a missing or empty file passes here; the reader names those problems.
    """
    file = Path(path)
    if not file.is_file():
        return
    with file.open("rb") as handle:
        size = handle.seek(0, 2)
        if size == 0:
            return
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        start, last = _last_line(handle, size)
    if last is None:  # longer than a line may be: the reader refuses it, naming its line
        return
    if not last.strip() or _is_json(last):
        return
    if size <= max_file_bytes() and _is_json(file.read_bytes()):
        return
    line = _count_newlines(file, start) + 1
    if from_command:
        raise PipelineError(
            f"command wrote a half line at {file}:{line} (no newline at the end and not valid "
            "JSON: did it crash while writing?)"
        )
    raise InputError(
        "half-written last line: no newline at the end and not valid JSON",
        path=str(file),
        line=line,
    )


def _last_line(handle: Any, size: int) -> tuple[int, bytes | None]:
    """``(offset where the last line starts, its bytes)``, reading backwards by blocks; the
    bytes are None when the line is longer than a line may be. Linear: blocks are joined once."""
    blocks: list[bytes] = []
    position = size
    cap = max_line_bytes()
    while position > 0:
        if size - position > cap:
            return position, None
        step = min(_BLOCK, position)
        position -= step
        handle.seek(position)
        block = handle.read(step)
        cut = block.rfind(b"\n")
        if cut >= 0:
            blocks.append(block[cut + 1 :])
            return position + cut + 1, b"".join(reversed(blocks))
        blocks.append(block)
    return 0, b"".join(reversed(blocks))


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)  # bytes: the encoding (and a byte-order mark) is detected
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError: ValueErrors
        return False
    return True


def _count_newlines(file: Path, end: int) -> int:
    count = 0
    with file.open("rb") as handle:
        while end > 0:
            block = handle.read(min(_BLOCK, end))
            if not block:
                break
            count += block.count(b"\n")
            end -= len(block)
    return count
