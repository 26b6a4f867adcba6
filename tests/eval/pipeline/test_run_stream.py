"""``--run`` streams what its function returns into the engine's columns (issue 22): a block of
items at a time as a generator yields them, never a Fact per item for the whole result, with
collect's Facts in collect's order, and a sys.exit or --timeout midway still a PipelineError."""

from __future__ import annotations

import time

import msgspec
import pytest

from openodke.errors import InputError, PipelineError
from openodke.eval.engine.structs import Reread
from openodke.eval.pipeline import collect, stream
from openodke.eval.pipeline.api import pipeline_run
from openodke.eval.pipeline.stream import BLOCK, stream_items
from openodke.interop import TripleRow
from openodke.types import Document
from tests.eval.pipeline.test_stream_memory import (
    DOCS,
    PER_DOC,
    ROWS,
    _peak,
    _record,
    _row,
    _write,
)

DOCUMENTS = [Document(id=f"d{d}", text=f"Text {d}.") for d in range(DOCS)]


def test_a_run_is_scored_a_block_at_a_time_as_it_yields(tmp_path, monkeypatch):
    # Listing the result, or making a Fact of every item before hashing, would build the first
    # columns only after all ROWS items were yielded, from more than BLOCK Facts.
    _, gold, docs = _write(tmp_path, "triples")
    yielded = [0]
    built: list[tuple[int, int]] = []  # (items yielded so far, Facts in the block)
    columns = stream._columns

    def spy(facts, shared, checks):
        built.append((yielded[0], len(facts)))
        return columns(facts, shared, checks)

    def run(documents):
        for n in range(ROWS):
            yielded[0] += 1
            yield _row(n)

    monkeypatch.setattr(stream, "_columns", spy)
    result = pipeline_run(labels=gold, documents=docs, run=run)
    assert result.result.report.rows[0].counts.hits == ROWS // 3
    assert built[0] == (BLOCK, BLOCK)
    assert max(size for _, size in built) <= BLOCK < ROWS
    assert sum(size for _, size in built) == ROWS


def test_reading_a_run_grows_by_a_fraction_of_a_row_object_per_item():
    # As test_stream_memory: a Fact per item would add ~4 KB an item; columns and the packed
    # rows add under 300 bytes.
    peaks = [
        _peak(lambda n=n: stream_items((_row(i) for i in range(n)), DOCUMENTS))
        for n in (ROWS // 2, ROWS // 2, ROWS)  # the first read warms imports and caches up
    ]
    grew, more = peaks[2] - peaks[1], ROWS - ROWS // 2
    assert grew < 300 * more, f"{grew:,} bytes more for {more:,} more items"


def _mixed() -> list:
    rows = [_row(n) for n in range(3 * BLOCK)]
    facts = collect(rows[:BLOCK], DOCUMENTS).facts
    return [
        *rows[BLOCK:],
        facts[0],  # a Fact, then a Fact row dict: collect puts them first
        facts[1].model_dump(mode="json"),
        TripleRow(doc="d1", subject="s", predicate="works_for", object="o"),
        {"doc": "nowhere", "subject": "s", "predicate": "p", "object": "o"},  # dropped
        *facts[2:],
    ]


def test_a_mixed_run_gives_collects_facts_in_its_order():
    items = _mixed()
    expected = collect(items, DOCUMENTS)
    got = stream_items(iter(items), DOCUMENTS)
    facts = got.columns.rows.fetch(range(len(got.columns)))
    # Read again as what the diagnosis reads of a Fact (the fact-rows loader's Reread): each is
    # collect's Fact in collect's order, every field the diagnosis reads equal
    assert all(isinstance(f, Reread) for f in facts)
    assert facts == [msgspec.json.decode(f.model_dump_json(), type=Reread) for f in expected.facts]
    assert len({(f.subject.key, f.predicate) for f in facts}) > 3 * BLOCK - 10
    assert (got.rows_read, got.dropped, got.notes, got.evidence_kinds) == (
        expected.rows_read,
        expected.dropped,
        expected.notes,
        expected.evidence_kinds,
    )


def test_a_mixed_run_scores_as_its_collected_facts(tmp_path):
    from openodke.eval.pipeline.evaluate import label_inputs, score_pipeline

    _, gold, docs = _write(tmp_path, "triples")
    items = _mixed()
    streamed = pipeline_run(labels=gold, documents=docs, run=lambda documents: iter(items))
    inputs = label_inputs(gold, docs, None)
    listed = score_pipeline(collect(items, inputs.documents).facts, inputs, notes=())
    assert streamed.result.report.rows[0].counts == listed.report.rows[0].counts
    assert streamed.result.report.rows[0].counts.hits > 0


@pytest.mark.parametrize(
    ("tail", "timeout", "message"),
    [
        ("    sys.exit(5)\n", 600.0, r"run called sys\.exit\(5\) on 60 documents"),
        ("    time.sleep(60)\n", 0.5, r"did not return within --timeout 0\.5 s"),
    ],
)
def test_a_run_stopping_midway_is_a_pipeline_error(tmp_path, tail, timeout, message):
    _, gold, docs = _write(tmp_path, "triples")
    module = tmp_path / "midway.py"
    module.write_text(
        "import sys, time\n"
        "def run(documents):\n"
        f"    for n in range({2 * BLOCK}):\n"
        "        yield {'doc': 'd0', 'subject': f's{n}', 'predicate': 'p', 'object': 'o'}\n" + tail
    )
    started = time.monotonic()
    with pytest.raises(PipelineError, match=message):
        pipeline_run(labels=gold, documents=docs, run=f"{module}:run", timeout=timeout)
    assert time.monotonic() - started < 10


def _spied(monkeypatch, progress: list[int]) -> list[tuple[int, int]]:
    """(items made so far, Facts in the block) at each block of columns built."""
    built: list[tuple[int, int]] = []
    columns = stream._columns

    def spy(facts, shared, checks):
        built.append((progress[0], len(facts)))
        return columns(facts, shared, checks)

    monkeypatch.setattr(stream, "_columns", spy)
    return built


def test_an_extractor_is_read_a_document_at_a_time(tmp_path, monkeypatch):
    # Listing every document's items first (as run_each does for eval extract) would build the
    # first columns only after the last document's call.
    _, gold, docs = _write(tmp_path, "triples")
    called = [0]
    built = _spied(monkeypatch, called)

    class Extractor:
        def extract(self, document):
            called[0] += 1
            d = int(document.id[1:])
            return [_row(n) for n in range(d * PER_DOC, (d + 1) * PER_DOC)]

    result = pipeline_run(labels=gold, documents=docs, run=Extractor())
    assert result.result.report.rows[0].counts.hits == ROWS // 3
    assert built[0][0] < DOCS  # the first block before the last document was called
    assert sum(size for _, size in built) == ROWS


@pytest.mark.parametrize("kind", ["langchain", "langextract"])
def test_an_adapters_objects_stream_and_score_as_collected(tmp_path, monkeypatch, kind):
    from openodke.eval.pipeline.evaluate import label_inputs, score_pipeline

    _, gold, docs = _write(tmp_path, kind)
    records = [_record(kind, [_row(n) for n in range(d * PER_DOC, (d + 1) * PER_DOC)])
               for d in range(DOCS)]  # fmt: skip
    yielded = [0]
    built = _spied(monkeypatch, yielded)

    def run(documents):
        for record in records:
            yielded[0] += 1
            yield record

    streamed = pipeline_run(labels=gold, documents=docs, run=run, adapter=kind).result
    assert built[0][0] < DOCS and max(size for _, size in built) <= BLOCK
    inputs = label_inputs(gold, docs, None)
    listed = score_pipeline(collect(records, inputs.documents, adapter=kind).facts, inputs)
    assert streamed.report.rows[0].counts == listed.report.rows[0].counts
    assert streamed.report.rows[0].counts.predicted == ROWS


def test_graphrag_objects_are_refused_as_before(tmp_path):
    _, gold, docs = _write(tmp_path, "triples")
    with pytest.raises(InputError, match="--adapter graphrag reads files, not returned objects"):
        pipeline_run(labels=gold, documents=docs, run=lambda documents: [{}], adapter="graphrag")
