"""``bootstrap.method`` says how the report's ranges were read: expanded BCa for documents (the
rows, compare over documents), the percentile interval for compare's items and pooled recall."""

from __future__ import annotations

import numpy as np
import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict
from openodke.eval.compare import compare_items
from openodke.eval.engine.items import DocItem, RightWrongItem
from openodke.eval.judges.pool import pooled_recall
from openodke.eval.report.build import check_report, from_comparison, row_from_score
from openodke.eval.report.models import Bootstrap
from openodke.eval.stages.extract import score_facts
from openodke.eval.stages.labels import GoldFact
from openodke.eval.stats import document_intervals


def _fact(doc: str, n: int) -> Fact:
    return Fact(
        subject=Entity(key=f"e{n}"),
        predicate="p",
        object_value=n,
        evidence=(Evidence(doc_id=doc),),
        verdict=GroundingVerdict.supported,
    )


def _corpus(seed: int) -> tuple[list[GoldFact], list[Fact]]:
    """30 documents of skewed sizes: each gold fact found with probability 0.6, plus spurious."""
    rng = np.random.default_rng(seed)
    gold, said = [], []
    n = 0
    for d in range(30):
        doc = f"d{d}"
        for _ in range(int(rng.integers(1, 3 + d // 3))):
            n += 1
            gold.append(GoldFact(doc_id=doc, fact=_fact(doc, n)))
            if rng.random() < 0.6:
                said.append(_fact(doc, n))
        for _ in range(int(rng.integers(0, 3))):
            n += 1
            said.append(_fact(doc, n))
    return gold, said


def test_a_report_row_is_read_as_expanded_bca_and_says_so() -> None:
    gold, said = _corpus(7)
    score = score_facts(gold, said, None)
    row = row_from_score("run", score)
    tp, fp, fn = score.document_counts()
    bca = document_intervals(tp, fp, fn, method="expanded-bca")["precision"]
    percentile = document_intervals(tp, fp, fn, method="percentile")["precision"]
    shown = row.performance.precision
    assert (shown.low, shown.high) == (bca.low, bca.high)
    assert (shown.low, shown.high) != (percentile.low, percentile.high)
    assert Bootstrap().method == "expanded-bca"


@pytest.mark.parametrize(
    ("rows", "method"),
    [
        ([RightWrongItem(id=f"i{i}", correct=i % 3 != 0) for i in range(40)], "percentile"),
        ([DocItem(id=f"d{i}", tp=i % 4, fp=i % 3, fn=1) for i in range(40)], "expanded-bca"),
    ],
    ids=["items", "documents"],
)
def test_a_comparison_says_how_its_unit_was_read(rows: list, method: str) -> None:
    flipped = [
        r.model_copy(update={"correct": not r.correct})
        if isinstance(r, RightWrongItem) and int(r.id[1:]) % 5 == 0
        else r.model_copy(update={"fp": r.fp + 1})
        if isinstance(r, DocItem) and int(r.id[1:]) % 5 == 0
        else r
        for r in rows
    ]
    report = from_comparison(compare_items(rows, flipped))
    assert report.bootstrap.method == method
    assert check_report(report.model_dump(mode="json")) == []


def test_pooled_recall_says_percentile() -> None:
    a = [_fact("d1", 1), _fact("d2", 2)]
    b = [_fact("d1", 1), _fact("d2", 3)]
    section = pooled_recall([("a", a), ("b", b)], resamples=50)
    assert section.bootstrap.method == "percentile"


def test_the_schema_knows_both_methods_and_nothing_else() -> None:
    gold, said = _corpus(1)
    row = row_from_score("run", score_facts(gold, said, None))
    report = from_comparison(
        compare_items([DocItem(id="d", tp=1, fp=0, fn=0)], [DocItem(id="d", tp=1, fp=0, fn=0)])
    ).model_copy(update={"rows": [row]})
    data = report.model_dump(mode="json")
    for method in ("expanded-bca", "percentile"):
        data["bootstrap"]["method"] = method
        assert check_report(data) == []
    data["bootstrap"]["method"] = "bca"
    assert check_report(data) != []
