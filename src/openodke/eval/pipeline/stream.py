"""Predictions that are not Fact rows, read straight into the engine's columns, at any size.

Triples rows and adapters' rows are read one at a time (:func:`~openodke.interop.adapters.
iter_predictions`), each matched to its document (:class:`~openodke.interop.match.RowMatcher`)
and made a Fact (:func:`~openodke.interop.to_fact`), exactly as :func:`~openodke.eval.pipeline.
collect` does; every :data:`BLOCK` Facts are hashed into :class:`~openodke.eval.engine.columns.
FactColumns` (with their fact checks) and dropped. What stays is the columns and each matched
row's line offset (:class:`FileTriples`), or, for an adapter's rows and a ``--run`` function's
items, what the diagnosis reads of each Fact packed as JSON (:class:`PackedFacts`), from which
the few rows it reads in words are made again. So memory follows the columns, not a Fact per
row (bench/predictions_memory.py).
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from openodke.eval.engine.columns import FactColumns, cited_block, cited_column
from openodke.eval.engine.rows import ModelRows, RowSource
from openodke.eval.engine.structs import Reread
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
from openodke.interop.adapters import GraphragNotes, iter_objects, iter_predictions
from openodke.interop.match import RowMatcher
from openodke.interop.triples import iter_triples_at, triples_at
from openodke.ontology import Ontology
from openodke.types import Document, Fact

__all__ = [
    "BLOCK",
    "FileTriples",
    "PackedFacts",
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
_PACK = 1 << 16  # bytes of Facts' JSON compressed together
# What the diagnosis reads of a Fact (engine.structs.Reread's fields), and its decoder
_END = {"key", "type", "label", "aliases"}
_REREAD: dict[str, Any] = {
    "subject": _END,
    "predicate": True,
    "object_entity": _END,
    "object_value": True,
    "polarity": True,
    "qualifiers": True,
    "identity_keys": True,
    "verdict": True,
}
_DECODE = msgspec.json.Decoder(Reread).decode_lines


class PackedFacts:
    """Facts kept as what the diagnosis reads of them (the fields of :class:`~openodke.eval.
    engine.structs.Reread`, as JSON), compressed a block at a time and decoded again by msgspec
    when fetched: the rows of an adapter or of a ``--run`` function, which have no line of their
    own to read again. Facts of one output look alike, so a block of their JSON compresses to a
    fraction of the file, and reading one again costs a decode, not a row made into a Fact."""

    def __init__(self) -> None:
        self._blocks: list[bytes] = []  # zlib of Facts' JSON, one a line
        self._firsts = array("q")  # each block's first row
        self._open = bytearray()  # the block being filled
        self._rows = 0

    def add(self, fact: Fact, offset: int = 0) -> None:
        """Keep what the diagnosis reads of ``fact``."""
        if not self._open:
            self._firsts.append(self._rows)
        # JSON escapes a line end inside a string: one fact is one line
        self._open += fact.model_dump_json(include=_REREAD).encode("utf-8") + b"\n"
        self._rows += 1
        if len(self._open) >= _PACK:
            self._close()

    def _close(self) -> None:
        self._blocks.append(zlib.compress(bytes(self._open), 1))
        self._open = bytearray()

    def __len__(self) -> int:
        return self._rows

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The facts of ``rows`` (:class:`~openodke.eval.engine.structs.Reread`), in that
        order: read in row order, one block decoded at a time."""
        if self._open:
            self._close()
        out: list[Any] = [None] * len(rows)
        firsts, opened, decoded = self._firsts, -1, []
        for k, i in sorted(enumerate(rows), key=lambda pair: pair[1]):
            block = bisect_right(firsts, i) - 1
            if block != opened:
                opened = block
                decoded = _DECODE(zlib.decompress(self._blocks[block]))
            out[k] = decoded[i - firsts[block]]
        return out


class _Joined:
    """Two row sources as one: ``first``'s rows, then ``second``'s."""

    def __init__(self, first: PackedFacts, second: PackedFacts) -> None:
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


class FileTriples:
    """Matched triples rows kept as the offsets of their lines (8 bytes a row), read again
    from the file and made into Facts when fetched (the same document, the same ontology, so the
    same Fact but for a fresh ``id`` when the row set none)."""

    def __init__(self, path: Path, index: DocumentIndex, ontology: Ontology | None) -> None:
        self.path = path
        self.index = index
        self.ontology = ontology
        self._offsets = array("q")

    def add(self, fact: Fact, offset: int = 0) -> None:
        """Keep where the line of ``fact``'s row starts."""
        self._offsets.append(offset)

    def __len__(self) -> int:
        return len(self._offsets)

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The Facts of ``rows``, read again from their lines."""
        offsets, index, ontology = self._offsets, self.index, self.ontology
        return [
            to_fact(row, index.get(row.doc), ontology)
            for row in triples_at(self.path, (offsets[i] for i in rows))
        ]


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
    name = adapter.strip().casefold()
    if name not in _NOT_JSONL:
        check_last_line(source, from_command=from_command)  # before any row: as collect does
    index = DocumentIndex(documents, names=names)
    triples = name == "triples"
    rows: Iterator[tuple[int, TripleRow]] = (
        iter_triples_at(source)
        if triples
        else ((0, row) for row in iter_predictions(source, adapter, index))
    )
    # GraphRAG's note counts its descriptions as they go by
    graphrag = GraphragNotes(ontology) if name == "graphrag" else None
    reader = _Reader(index, ontology, checks, graphrag)
    kept = FileTriples(source, index, ontology) if triples else PackedFacts()
    reader.rows(rows, kept)
    return reader.streamed([], kept, graphrag.notes() if graphrag is not None else [])


class _Reader:
    """Rows and Facts made into columns :data:`BLOCK` at a time, with collect's counts: the
    rows matched to their documents (each made a Fact), the Facts as they are."""

    def __init__(
        self,
        index: DocumentIndex,
        ontology: Ontology | None,
        checks: FactChecks | None,
        graphrag: GraphragNotes | None = None,
    ) -> None:
        self.index, self.ontology, self.checks, self.graphrag = index, ontology, checks, graphrag
        self.matcher = RowMatcher(index)
        self.kinds = dict.fromkeys(EVIDENCE_KINDS, 0)
        self.shared: tuple[dict[int, str], dict[int, str], dict[int, str]] = ({}, {}, {})
        self.read = 0

    def row(self, row: TripleRow) -> Fact | None:
        """The Fact of a row matched to its document (None: it names none, and is dropped)."""
        self.read += 1
        if self.graphrag is not None:
            self.graphrag.add(row.predicate)
        doc = self.matcher.document(row)
        if doc is None:
            return None
        self.kinds[evidence_kind(row, doc)] += 1
        return to_fact(row, doc, self.ontology)

    def rows(self, rows: Iterable[tuple[int, TripleRow]], kept: FileTriples | PackedFacts) -> None:
        """Each of ``rows`` (with its line's offset) made a Fact, kept and hashed a block at a
        time."""
        parts: list[FactColumns] = []
        block: list[Fact] = []
        for offset, row in rows:
            fact = self.row(row)
            if fact is None:
                continue
            kept.add(fact, offset)
            block.append(fact)
            if len(block) == BLOCK:
                parts.append(self.columns(block))
                block = []
        if block:
            parts.append(self.columns(block))
        self.row_parts = parts

    def columns(self, facts: list[Fact]) -> FactColumns:
        """One block's columns."""
        return _columns(facts, self.shared, self.checks)

    def streamed(
        self, fact_parts: list[FactColumns], kept: RowSource, notes: list[str]
    ) -> Streamed:
        """The columns of the Facts, then the rows', read again from ``kept``."""
        parts = [*fact_parts, *self.row_parts] or [self.columns([])]
        matched = self.matcher.result([])
        return Streamed(
            columns=FactColumns.concat(parts, kept),
            rows_read=self.read,
            dropped=matched.dropped,
            notes=[*matched.notes, *notes],
            evidence_kinds=self.kinds,
        )


def stream_items(
    items: Iterable[Any],
    documents: Sequence[Document],
    *,
    ontology: Ontology | None = None,
    checks: FactChecks | None = None,
    adapter: str = "triples",
) -> Streamed:
    """What a ``--run`` function returned, read into columns as ``items`` yields them:
    :func:`~openodke.eval.pipeline.collect`'s Facts in its order, notes and errors, converted
    and hashed :data:`BLOCK` items at a time, without a Fact per item held. With the
    ``triples`` adapter the items are triples row dicts, TripleRows, Facts or Fact dicts in any
    mix (collect puts the Facts first, then a Fact per matched row); with ``langchain`` or
    ``langextract``, that library's objects or their dumps, read by the adapter one at a time."""
    index = DocumentIndex(documents)
    reader = _Reader(index, ontology, checks)
    given, kept = PackedFacts(), PackedFacts()
    fact_parts: list[FactColumns] = []
    if adapter.strip().casefold() != "triples":
        objects = iter_objects(items, adapter, index)
        reader.rows(((0, row) for row in objects), kept)
        return reader.streamed([], kept, [])
    facts: list[Fact] = []

    def matched() -> Iterator[tuple[int, TripleRow]]:
        nonlocal facts
        for item in iter_rows(items, where="returned rows"):
            if not isinstance(item, Fact):
                yield 0, item
                continue
            reader.read += 1
            given.add(item)
            facts.append(item)
            if len(facts) == BLOCK:
                fact_parts.append(reader.columns(facts))
                facts = []

    reader.rows(matched(), kept)
    if facts:
        fact_parts.append(reader.columns(facts))
    source: RowSource = _Joined(given, kept) if len(given) else kept
    return reader.streamed(fact_parts, source, [])


def score_run(
    run: str | object,
    labels: Path,
    inputs: PipelineInputs,
    *,
    adapter: str = "triples",
    timeout: float | None = None,
    run_inputs: dict[str, str] | None = None,
    diagnosis: DiagnosisOptions | None = None,
) -> PipelineResult:
    """Score a ``--run`` function's items against labels, read straight into columns as it
    returns or yields them (:func:`stream_items`); ``timeout`` covers the call and the reading
    of its items. ``inputs`` as :func:`score_predictions`."""

    def read(checks: FactChecks) -> tuple[FactColumns, list[str]]:
        with streamed_call(run, inputs.documents, timeout=timeout) as items:
            streamed = stream_items(
                items, inputs.documents, ontology=inputs.ontology, checks=checks, adapter=adapter
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
