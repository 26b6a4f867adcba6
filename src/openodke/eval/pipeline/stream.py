"""Predictions that are not Fact rows, read straight into the engine's columns, at any size.

Triples rows and adapters' rows are read one at a time (:func:`~openodke.interop.adapters.
iter_predictions`), each matched to its document (:class:`~openodke.interop.match.RowMatcher`)
and made a Fact (:func:`~openodke.interop.to_fact`), exactly as :func:`~openodke.eval.pipeline.
collect` does; every :data:`BLOCK` Facts are hashed into :class:`~openodke.eval.engine.columns.
FactColumns` (with their fact checks) and dropped. What stays is the columns and each matched
row's line offset (:class:`FileTriples`; an adapter's rows packed as JSON, :class:`PackedRows`), from which the few rows the diagnosis reads in words
are made again. So memory follows the columns, not a Fact per row (bench/predictions_memory.py).
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from openodke.eval.engine.columns import FactColumns, cited_block, cited_column
from openodke.eval.engine.rows import ModelRows, RowSource
from openodke.eval.pipeline.callable import streamed_call
from openodke.eval.pipeline.collect import check_last_line, iter_rows
from openodke.eval.pipeline.evaluate import (
    DiagnosisOptions,
    PipelineInputs,
    PipelineResult,
    score_fact_file,
    score_streamed,
)
from openodke.eval.pipeline.fact_checks import FactChecks
from openodke.eval.report.build import Usage
from openodke.interop import (
    EVIDENCE_KINDS,
    DocumentIndex,
    TripleRow,
    evidence_kind,
    is_fact_rows,
    to_fact,
)
from openodke.interop.adapters import GraphragNotes, iter_predictions
from openodke.interop.match import RowMatcher
from openodke.interop.triples import iter_triples_at, triples_at
from openodke.ontology import Ontology
from openodke.types import Document, Fact

__all__ = [
    "BLOCK",
    "FileTriples",
    "PackedFacts",
    "PackedRows",
    "Streamed",
    "score_predictions",
    "score_run",
    "stream_columns",
    "stream_items",
]

BLOCK = 1024
"""Facts hashed into columns at once (then dropped)."""

_PENDING = ModelRows(())  # a block's rows before the whole stream's are known
_NOT_JSONL = frozenset({"graphrag"})
_PACK = 1 << 16  # bytes of rows' JSON compressed together


class PackedRows:
    """Matched rows kept as their JSON, compressed a block at a time, made into Facts again when
    fetched (the same document, the same ontology, so the same Fact but for a fresh ``id`` when
    the row set none). An adapter's rows: they have no line of their own to read again. Rows of
    one output look alike, so a block of their JSON compresses to a fraction of the file."""

    def __init__(self, index: DocumentIndex, ontology: Ontology | None) -> None:
        self.index = index
        self.ontology = ontology
        self._blocks: list[bytes] = []  # zlib of rows' JSON, one row a line
        self._firsts = array("q")  # each block's first row
        self._open = bytearray()  # the block being filled
        self._rows = 0

    def add(self, row: TripleRow | Fact, offset: int) -> None:
        """Keep ``row`` (a TripleRow: only the fields it set)."""
        if not self._open:
            self._firsts.append(self._rows)
        # JSON escapes a line end inside a string: one row is one line
        self._open += self._dump(row) + b"\n"
        self._rows += 1
        if len(self._open) >= _PACK:
            self._close()

    def _close(self) -> None:
        self._blocks.append(zlib.compress(bytes(self._open), 1))
        self._open = bytearray()

    def __len__(self) -> int:
        return self._rows

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The Facts of ``rows``, in that order: read in row order, one block open at a time."""
        if self._open:
            self._close()
        out: list[Any] = [None] * len(rows)
        firsts, opened, lines = self._firsts, -1, [b""]
        for k, i in sorted(enumerate(rows), key=lambda pair: pair[1]):
            block = bisect_right(firsts, i) - 1
            if block != opened:
                opened, lines = block, zlib.decompress(self._blocks[block]).split(b"\n")
            out[k] = self._decode(lines[i - firsts[block]])
        return out

    def _dump(self, row: Any) -> bytes:
        """A row's JSON (only the fields it set)."""
        return row.model_dump_json(exclude_unset=True).encode("utf-8")

    def _decode(self, line: bytes) -> Any:
        """The Fact of a row's JSON."""
        return self._fact(TripleRow.model_validate_json(line))

    def _fact(self, row: TripleRow) -> Fact:
        return to_fact(row, self.index.get(row.doc), self.ontology)


class PackedFacts(PackedRows):
    """Facts a ``--run`` function returned, kept as their JSON (every field: the same ``id``),
    compressed a block at a time, made again when fetched."""

    def _dump(self, row: Any) -> bytes:
        return row.model_dump_json().encode("utf-8")

    def _decode(self, line: bytes) -> Any:
        return Fact.model_validate_json(line)


class _Joined:
    """Two row sources as one: ``first``'s rows, then ``second``'s."""

    def __init__(self, first: PackedRows, second: PackedRows) -> None:
        self.first, self.second = first, second

    def __len__(self) -> int:
        return len(self.first) + len(self.second)

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The Facts of ``rows``, in that order."""
        cut = len(self.first)
        out: list[Any] = [None] * len(rows)
        lower = [(k, int(i)) for k, i in enumerate(rows) if i < cut]
        upper = [(k, int(i) - cut) for k, i in enumerate(rows) if i >= cut]
        for side, wanted in ((self.first, lower), (self.second, upper)):
            if wanted:
                for (k, _), fact in zip(wanted, side.fetch([i for _, i in wanted]), strict=True):
                    out[k] = fact
        return out


class FileTriples(PackedRows):
    """Matched triples rows kept as the offsets of their lines (8 bytes a row), read again
    from the file when fetched."""

    def __init__(self, path: Path, index: DocumentIndex, ontology: Ontology | None) -> None:
        super().__init__(index, ontology)
        self.path = path
        self._offsets = array("q")

    def add(self, row: TripleRow | Fact, offset: int) -> None:
        """Keep where ``row``'s line starts."""
        self._offsets.append(offset)

    def __len__(self) -> int:
        return len(self._offsets)

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The Facts of ``rows``, read again from their lines."""
        offsets = self._offsets
        return [self._fact(row) for row in triples_at(self.path, (offsets[i] for i in rows))]


@dataclass
class Streamed:
    """The predictions as columns, with what was read, dropped and noted on the way."""

    columns: FactColumns
    rows_read: int = 0
    dropped: int = 0
    notes: list[str] = field(default_factory=list)
    evidence_kinds: dict[str, int] = field(default_factory=dict)


def stream_columns(
    path: str | Path,
    documents: Sequence[Document],
    *,
    ontology: Ontology | None = None,
    adapter: str = "triples",
    names: Mapping[str, str] | None = None,
    from_command: bool = False,
    checks: FactChecks | None = None,
) -> Streamed:
    """Read a triples or adapter file into columns: :func:`~openodke.eval.pipeline.collect`'s
    rows, matches, notes and errors (a half-written last line, a bad row at ``path:line``),
    without holding a Fact per row. With ``checks``, each row's fact-check flags too."""
    source = Path(path)
    if adapter.strip().casefold() not in _NOT_JSONL:
        check_last_line(source, from_command=from_command)  # before any row: as collect does
    index = DocumentIndex(documents, names=names)
    matcher = RowMatcher(index)
    triples = adapter.strip().casefold() == "triples"
    kept = FileTriples(source, index, ontology) if triples else PackedRows(index, ontology)
    kinds = dict.fromkeys(EVIDENCE_KINDS, 0)
    shared: tuple[dict[int, str], dict[int, str], dict[int, str]] = ({}, {}, {})
    parts: list[FactColumns] = []
    block: list[Fact] = []
    read = 0
    rows: Iterator[tuple[int, TripleRow]] = (
        iter_triples_at(source)
        if triples
        else ((0, row) for row in iter_predictions(source, adapter, index))
    )
    # GraphRAG's note counts its descriptions as they go by
    graphrag = GraphragNotes(ontology) if adapter.strip().casefold() == "graphrag" else None
    for offset, row in rows:
        read += 1
        if graphrag is not None:
            graphrag.add(row.predicate)
        doc = matcher.document(row)
        if doc is None:
            continue
        kinds[evidence_kind(row, doc)] += 1
        kept.add(row, offset)
        block.append(to_fact(row, doc, ontology))
        if len(block) == BLOCK:
            parts.append(_columns(block, shared, checks))
            block = []
    if block or not parts:
        parts.append(_columns(block, shared, checks))
    matched = matcher.result([])
    columns = FactColumns.concat(parts, kept)
    return Streamed(
        columns=columns,
        rows_read=read,
        dropped=matched.dropped,
        notes=[*matched.notes, *(graphrag.notes() if graphrag is not None else [])],
        evidence_kinds=kinds,
    )


def stream_items(
    items: Iterable[Any],
    documents: Sequence[Document],
    *,
    ontology: Ontology | None = None,
    checks: FactChecks | None = None,
) -> Streamed:
    """What a ``--run`` function returned (triples row dicts, TripleRows, Facts or Fact dicts,
    in any mix), read into columns as ``items`` yields them: :func:`~openodke.eval.pipeline.
    collect`'s Facts in its order (the Fact items, then a Fact per matched row), notes and
    errors, converted and hashed :data:`BLOCK` items at a time, without a Fact per item held."""
    index = DocumentIndex(documents)
    matcher = RowMatcher(index)
    given, kept = PackedFacts(index, ontology), PackedRows(index, ontology)
    kinds = dict.fromkeys(EVIDENCE_KINDS, 0)
    shared: tuple[dict[int, str], dict[int, str], dict[int, str]] = ({}, {}, {})
    fact_parts: list[FactColumns] = []
    row_parts: list[FactColumns] = []
    facts: list[Fact] = []
    block: list[Fact] = []
    read = 0
    for item in iter_rows(items, where="returned rows"):
        read += 1
        if isinstance(item, Fact):
            given.add(item, 0)
            facts.append(item)
            if len(facts) == BLOCK:
                fact_parts.append(_columns(facts, shared, checks))
                facts = []
            continue
        doc = matcher.document(item)
        if doc is None:
            continue
        kinds[evidence_kind(item, doc)] += 1
        kept.add(item, 0)
        block.append(to_fact(item, doc, ontology))
        if len(block) == BLOCK:
            row_parts.append(_columns(block, shared, checks))
            block = []
    if facts:
        fact_parts.append(_columns(facts, shared, checks))
    if block or not (fact_parts or row_parts):
        row_parts.append(_columns(block, shared, checks))
    matched = matcher.result([])
    source: RowSource = _Joined(given, kept) if len(given) else kept
    return Streamed(
        columns=FactColumns.concat([*fact_parts, *row_parts], source),
        rows_read=read,
        dropped=matched.dropped,
        notes=list(matched.notes),
        evidence_kinds=kinds,
    )


def score_run(
    run: str | object,
    labels: Path,
    inputs: PipelineInputs,
    *,
    timeout: float | None = None,
    run_inputs: dict[str, str] | None = None,
    diagnosis: DiagnosisOptions | None = None,
) -> PipelineResult:
    """Score a ``--run`` function's items (the ``triples`` adapter) against labels, read
    straight into columns as it returns or yields them (:func:`stream_items`); ``timeout``
    covers the call and the reading of its items. ``inputs`` as :func:`score_predictions`."""

    def read(checks: FactChecks) -> tuple[FactColumns, list[str]]:
        with streamed_call(run, inputs.documents, timeout=timeout) as items:
            streamed = stream_items(
                items, inputs.documents, ontology=inputs.ontology, checks=checks
            )
        return streamed.columns, streamed.notes

    return score_streamed(read, labels, inputs, run_inputs=run_inputs, diagnosis=diagnosis)


def _columns(
    facts: list[Fact],
    shared: tuple[dict[int, str], dict[int, str], dict[int, str]],
    checks: FactChecks | None,
) -> FactColumns:
    """One block's columns, sharing the names of documents, predicates and types."""
    names, predicates, types = shared
    docs = cited_block(facts, names) if facts else cited_column([])
    columns = FactColumns.build(facts, docs, _PENDING, predicates, types)
    if checks is not None:
        columns.flags = checks.flags(facts, docs) if facts else np.zeros(0, np.int8)
    return columns


def score_predictions(
    predictions: Path,
    labels: Path,
    inputs: PipelineInputs,
    *,
    adapter: str = "triples",
    names: Mapping[str, str] | None = None,
    from_command: bool = False,
    run_inputs: dict[str, str] | None = None,
    diagnosis: DiagnosisOptions | None = None,
    usage: Usage | None = None,
) -> PipelineResult:
    """Score a pipeline's output file against labels, read straight into columns: a file of Fact
    rows by the engine's loader (:func:`~openodke.eval.pipeline.evaluate.score_fact_file`),
    triples rows or an adapter's output by :func:`stream_columns`. ``inputs`` come from
    ``label_inputs(..., load_gold=False)``; the report is what
    :func:`~openodke.eval.pipeline.evaluate.score_pipeline` gives on the collected Facts."""
    if adapter.strip().casefold() not in _NOT_JSONL:
        check_last_line(predictions, from_command=from_command)
    common: dict[str, Any] = {"run_inputs": run_inputs, "diagnosis": diagnosis, "usage": usage}
    if predictions.is_file() and is_fact_rows(predictions):
        return score_fact_file(predictions, labels, inputs, **common)

    def read(checks: FactChecks) -> tuple[FactColumns, list[str]]:
        streamed = stream_columns(
            predictions,
            inputs.documents,
            ontology=inputs.ontology,
            adapter=adapter,
            names=names,
            checks=checks,
        )
        return streamed.columns, streamed.notes

    return score_streamed(read, labels, inputs, **common)
