"""Reading predictions holds memory in proportion to the file, not a Python object per row
(issue 22): each streaming reader is held to a traced-memory bound well below what one pydantic
row (or Fact) per line costs, and the rules that read every row again read a block at a time.
bench/predictions_memory.py measures the whole command on large files; these are the fast
guards that break if a reader ever lists the rows or a rule fetches a whole side."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from openodke.eval.engine.rows import FETCH_BLOCK, fetch_each, values_of
from openodke.eval.pipeline import stream
from openodke.eval.pipeline.evaluate import DiagnosisOptions, label_inputs
from openodke.eval.pipeline.stream import score_predictions, stream_columns
from openodke.types import Document

ROWS = 6000
DOCS = 60
PER_DOC = ROWS // DOCS


def _row(n: int) -> dict:
    return {
        "doc": f"d{n // PER_DOC}",
        "subject": f"Person number {n}",
        "predicate": ("works_for", "born_in", "lives_in")[n % 3],
        "object": f"Organisation {n % 97}",
    }


def _record(kind: str, rows: list[dict]) -> dict:
    if kind == "langextract":
        return {
            "document_id": rows[0]["doc"],
            "extractions": [
                {
                    "extraction_class": r["predicate"],
                    "extraction_text": r["object"],
                    "attributes": {"subject": r["subject"]},
                }
                for r in rows
            ],
        }
    return {
        "nodes": [],
        "relationships": [
            {
                "source": {"id": r["subject"], "type": "Person"},
                "target": {"id": r["object"], "type": "Organisation"},
                "type": r["predicate"],
            }
            for r in rows
        ],
        "source": {"metadata": {"source": rows[0]["doc"]}, "page_content": ""},
    }


def _write(folder: Path, kind: str, n: int = ROWS) -> tuple[Path, Path, Path]:
    """Predictions of ``kind`` (``n`` rows, PER_DOC a document), gold for a third of them
    (so most predictions miss and matching reads every predicted name again), documents."""
    rows = [_row(i) for i in range(n)]
    said = folder / f"{kind}.jsonl"
    if kind == "graphrag":  # an output folder: relationships, text units, documents
        said = folder / "graphrag"
        said.mkdir()
        docs_of = range(n // PER_DOC)
        (said / "documents.csv").write_text("id,title\n" + "".join(f"g{d},d{d}\n" for d in docs_of))
        (said / "text_units.csv").write_text(
            "id,document_ids\n" + "".join(f'u{d},"[""g{d}""]"\n' for d in docs_of)
        )
        lines = ["id,source,target,description,text_unit_ids"] + [
            f'r{i},{r["subject"]},{r["object"]},{r["predicate"]},"[""u{r["doc"][1:]}""]"'
            for i, r in enumerate(rows)
        ]
        said = said / "relationships.csv"
    elif kind == "triples":
        lines = [json.dumps(r) for r in rows]
    else:
        lines = [
            json.dumps(_record(kind, rows[d * PER_DOC : (d + 1) * PER_DOC]))
            for d in range(n // PER_DOC)
        ]
    said.write_text("".join(line + "\n" for line in lines))
    gold = folder / "gold.jsonl"
    gold.write_text(
        "".join(
            json.dumps({"doc_id": r["doc"], "fact": {
                "subject": {"key": f"Thing:{r['subject'].casefold()}", "type": "Thing"},
                "predicate": r["predicate"],
                "object_entity": {"key": f"Thing:{r['object'].casefold()}", "type": "Thing"}}})
            + "\n"
            for r in rows[::3]
        )
    )  # fmt: skip
    docs = folder / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{d}", "text": f"Text {d}."}) + "\n" for d in range(DOCS))
    )
    return said, gold, docs


def _peak(call) -> int:
    """Traced peak bytes of ``call()`` (numpy's buffers are traced too)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", ["triples", "langextract", "langchain", "graphrag"])
def test_reading_grows_by_a_fraction_of_a_row_object_per_line(tmp_path, kind):
    # A pydantic TripleRow alone is about 1 KB and its Fact about 4 KB: holding either for each
    # of 3,000 more rows would add 3-12 MB. The columns (~150 bytes a row) and the packed rows
    # add under 300 bytes a row; what does not grow with the rows (imports, one block of Facts)
    # is the same in both reads and cancels out.
    documents = [Document(id=f"d{d}", text=f"Text {d}.") for d in range(DOCS)]
    peaks = []
    for n in (ROWS // 2, ROWS // 2, ROWS):  # the first read warms imports and caches up
        folder = tmp_path / f"{n}-{len(peaks)}"
        folder.mkdir()
        said, _, _ = _write(folder, kind, n)
        source = said.parent if kind == "graphrag" else said
        peaks.append(_peak(lambda s=source: stream_columns(s, documents, adapter=kind)))
    grew, more = peaks[2] - peaks[1], ROWS - ROWS // 2
    assert grew < 300 * more, f"{grew:,} bytes more for {more:,} more rows of {kind}"


@pytest.mark.parametrize("kind", ["triples", "langchain"])
def test_scoring_reads_rows_again_a_block_at_a_time(tmp_path, monkeypatch, kind):
    # Most predictions miss, so matching reads every predicted end again by its label: in
    # blocks of FETCH_BLOCK, never the whole side in one call.
    said, gold, docs = _write(tmp_path, kind)
    asked: list[int] = []
    kept = stream.FileTriples if kind == "triples" else stream.PackedFacts
    fetch = kept.fetch

    def spy(self, rows):
        asked.append(len(rows))
        return fetch(self, rows)

    monkeypatch.setattr(kept, "fetch", spy)
    inputs = label_inputs(gold, docs, load_gold=False)
    result = score_predictions(said, gold, inputs, adapter=kind, diagnosis=DiagnosisOptions())
    assert result.report.rows[0].counts is not None
    assert sum(asked) > 2 * FETCH_BLOCK  # most rows were read again: the rule ran
    assert max(asked) <= FETCH_BLOCK < ROWS


def test_fetch_each_gives_every_row_in_order_a_block_at_a_time():
    class Source:
        calls: list[list[int]] = []

        def __len__(self) -> int:
            return 10_000

        def fetch(self, rows):
            self.calls.append(list(rows))
            return [f"row {i}" for i in rows]

    source = Source()
    wanted = list(range(9_999, -1, -3))
    assert list(fetch_each(source, wanted)) == [f"row {i}" for i in wanted]
    assert max(len(c) for c in source.calls) == FETCH_BLOCK
    assert list(fetch_each(source, [])) == []


def test_values_of_reads_rows_in_row_order_and_answers_in_the_order_asked():
    # A packed or file source opens a block per run of rows: asked in name order (the rules
    # read one row per distinct name), each FETCH_BLOCK would open every block again.
    class Source:
        calls: list[list[int]] = []

        def __len__(self) -> int:
            return 5_000

        def fetch(self, rows):
            self.calls.append(list(rows))
            return [10 * i for i in rows]

    source = Source()
    wanted = [(7_919 * k) % 5_000 for k in range(5_000)]  # every row, scrambled
    assert values_of(source, wanted, lambda f: f).tolist() == [10 * i for i in wanted]
    asked = [i for call in source.calls for i in call]
    assert asked == sorted(wanted) and max(map(len, source.calls)) == FETCH_BLOCK
