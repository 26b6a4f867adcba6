"""evaluate_extraction: the spec's example, hand-worked cases, degenerate tables, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke import Entity, Evidence, Fact, Polarity
from openodke.eval import GoldFact, evaluate_extraction, run_extract
from openodke.types import Document

ada = Entity(key="ada", type="Person")
babbage = Entity(key="babbage", type="Person")
london = Entity(key="london", type="Place")
paris = Entity(key="paris", type="Place")


def cite(doc: str) -> tuple[Evidence, ...]:
    return (Evidence(doc_id=doc),)


def gold(doc: str, **fact) -> GoldFact:
    return GoldFact(doc_id=doc, fact=Fact(**fact))


def test_spec_example_extract():
    golds = [
        gold("d1", subject=ada, predicate="born", object_value=1815),
        gold("d1", subject=ada, predicate="birthplace", object_value="London"),
    ]
    extracted = [
        Fact(subject=ada, predicate="born", object_value="1815", evidence=cite("d1")),
        Fact(subject=ada, predicate="birthplace", object_value="Paris", evidence=cite("d1")),
        Fact(subject=ada, predicate="died", object_value=1852, evidence=cite("d1")),
    ]
    report = evaluate_extraction(golds, extracted)
    assert report.metrics["tp"] == report.metrics["wrong_value"] == report.metrics["spurious"] == 1
    assert report.breakdown["born"]["f1"] == 1.0 and report.breakdown["birthplace"]["f1"] == 0.0
    # tp 1; fp = wrong_value 1 + spurious 1 = 2; fn = wrong_value 1 = 1 → P 1/3, R 1/2.
    assert report.metrics["precision"] == pytest.approx(1 / 3)
    assert report.metrics["recall"] == pytest.approx(1 / 2)
    assert "F1 is zero for: birthplace, died" in report.notes


def test_wrong_entity_by_object_and_by_subject():
    golds = [
        gold("d1", subject=ada, predicate="lived_in", object_entity=london),
        gold("d1", subject=ada, predicate="visited", object_entity=paris),
    ]
    said = [
        # same subject and predicate, another entity: pass two, wrong_entity
        Fact(subject=ada, predicate="lived_in", object_entity=paris, evidence=cite("d1")),
        # same predicate and object, another subject: pass three, wrong_entity
        Fact(subject=babbage, predicate="visited", object_entity=paris, evidence=cite("d1")),
    ]
    m = evaluate_extraction(golds, said).metrics
    # Each pairing is one fp and one fn: tp 0, fp 2, fn 2.
    assert (m["wrong_entity"], m["wrong_value"], m["tp"], m["fp"], m["fn"]) == (2, 0, 0, 2, 2)


def test_flipped_polarity_never_matches():
    golds = [gold("d1", subject=ada, predicate="born", object_value=1815)]
    said = [
        Fact(
            subject=ada,
            predicate="born",
            object_value=1815,
            polarity=Polarity.denied,
            evidence=cite("d1"),
        )
    ]
    m = evaluate_extraction(golds, said).metrics
    assert (m["tp"], m["wrong_value"], m["missing"], m["spurious"]) == (0, 0, 1, 1)


def test_prediction_scores_in_first_labelled_document_it_cites():
    golds = [gold("d2", subject=ada, predicate="born", object_value=1815)]
    said = [
        Fact(
            subject=ada,
            predicate="born",
            object_value=1815,
            evidence=(Evidence(doc_id="elsewhere"), Evidence(doc_id="d2")),
        ),
        Fact(subject=ada, predicate="died", object_value=1852, evidence=cite("unlabelled")),
    ]
    report = evaluate_extraction(golds, said)
    assert (report.metrics["tp"], report.metrics["fp"]) == (1, 0)
    assert "1 prediction(s) cite only unlabelled documents and were not scored" in report.notes


def test_uncited_predictions_match_gold_left_over_anywhere():
    golds = [
        gold("d1", subject=ada, predicate="born", object_value=1815),
        gold("d2", subject=babbage, predicate="born", object_value=1791),
    ]
    said = [
        Fact(subject=ada, predicate="born", object_value=1815, evidence=cite("d1")),
        Fact(subject=babbage, predicate="born", object_value=1791),  # uncited hit in d2
        Fact(subject=babbage, predicate="died", object_value=1871),  # uncited spurious
    ]
    from openodke.eval.stages.extract import score_facts

    score = score_facts(golds, said)
    assert score.report().metrics["tp"] == 2
    assert (score.uncited, score.uncited_fp) == (2, 1)
    # The uncited spurious fact is in no document's row.
    assert score.per_document() == {"d1": [1, 0, 0], "d2": [1, 0, 0]}


def test_duplicates_count_once():
    golds = [gold("d1", subject=ada, predicate="born", object_value=1815)] * 2
    said = [Fact(subject=ada, predicate="born", object_value=1815, evidence=cite("d1"))] * 3
    report = evaluate_extraction(golds, said)
    assert (report.n, report.metrics["tp"], report.metrics["fp"]) == (1, 1, 0)
    assert "duplicates counted once: 1 gold row(s), 2 prediction(s)" in report.notes


@pytest.mark.parametrize(
    ("golds", "said", "precision", "recall"),
    [
        ([], [], None, None),
        ([gold("d1", subject=ada, predicate="born", object_value=1815)], [], None, 0.0),
        (
            [],
            [Fact(subject=ada, predicate="born", object_value=1, evidence=cite("d1"))],
            None,
            None,
        ),
    ],
    ids=["neither", "no-predictions", "no-labels"],
)
def test_degenerate_tables(golds, said, precision, recall):
    report = evaluate_extraction(golds, said)
    assert report.metrics["precision"] == precision
    assert report.metrics["recall"] == recall
    assert "—" in report.render() or not golds


def test_run_extract_runs_a_stage_and_cites_its_document():
    class Extractor:
        def extract(self, document: Document):
            yield Fact(subject=ada, predicate="born", object_value=document.text)

    golds = [gold("d1", subject=ada, predicate="born", object_value=1815)]
    report = run_extract(Extractor(), golds, [Document(id="d1", text="1815")])
    assert report.metrics["tp"] == 1


literal = st.one_of(
    st.integers(-10_000, 10_000),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
)


@settings(max_examples=200, deadline=None)
@given(value=literal, pad=st.sampled_from(["", " ", "  \t"]), upper=st.booleans())
def test_signature_normalisation_matches_surface_variants(value, pad, upper):
    text = str(value)
    variant = pad + (text.upper() if upper else text) + pad
    golds = [gold("d1", subject=ada, predicate="p", object_value=value)]
    said = [Fact(subject=ada, predicate="p", object_value=variant, evidence=cite("d1"))]
    m = evaluate_extraction(golds, said).metrics
    # An int and its string match; whitespace at the ends and case are folded. A string whose
    # upper-casing changes its casefold (e.g. 'ß' → 'SS' folds alike, 'ı' → 'I' does not) may miss.
    if text.upper().casefold() == text.casefold() or not upper:
        assert m["tp"] == 1


@settings(max_examples=100, deadline=None)
@given(value=literal, polarity=st.sampled_from(list(Polarity)))
def test_polarity_is_kept_in_the_match(value, polarity):
    golds = [gold("d1", subject=ada, predicate="p", object_value=value)]
    said = [
        Fact(subject=ada, predicate="p", object_value=value, polarity=polarity, evidence=cite("d1"))
    ]
    assert evaluate_extraction(golds, said).metrics["tp"] == int(polarity is Polarity.asserted)


def test_int_and_numeric_string_match_exactly_the_spec_way():
    golds = [gold("d1", subject=ada, predicate="born", object_value=1815)]
    for value in (1815, "1815", " 1815 ", 1815.0, "1815.0"):
        said = [Fact(subject=ada, predicate="born", object_value=value, evidence=cite("d1"))]
        assert evaluate_extraction(golds, said).metrics["tp"] == 1, value


def test_ids_joined_by_file_stem_score_as_matching_ids_and_say_so():
    golds = [
        gold("d1", subject=ada, predicate="born", object_value=1815),
        gold("d2", subject=babbage, predicate="born", object_value=1791),
    ]
    said = [
        Fact(subject=ada, predicate="born", object_value=1815, evidence=cite("d1.txt")),
        Fact(subject=babbage, predicate="born", object_value=1792, evidence=cite("texts/d2.md")),
    ]
    report = evaluate_extraction(golds, said, documents=["d1.txt", "d2.txt", "d3.txt"])
    # d1: a hit; d2: a wrong value (fp 1, fn 1); d3 has no gold: P 1/2, R 1/2
    m = report.metrics
    assert (m["tp"], m["fp"], m["fn"], m["wrong_value"]) == (1, 1, 1, 1)
    assert report.notes == (
        "3 document ids joined a labelled document by letter case or file stem, none having their id "
        "(e.g. 'd1' ↔ 'd1.txt')",
    )
    plain = evaluate_extraction(
        golds,
        [
            f.model_copy(update={"evidence": cite(d)})
            for f, d in zip(said, ["d1", "d2"], strict=True)
        ],
        documents=["d1", "d2", "d3"],
    )
    assert plain.metrics == report.metrics and plain.breakdown == report.breakdown


def test_most_predictions_citing_unlabelled_documents_is_the_first_note():
    golds = [gold(f"doc-{i}", subject=ada, predicate="born", object_value=i) for i in range(3)]
    said = [
        Fact(subject=ada, predicate="born", object_value=i, evidence=cite(f"file{i}.txt"))
        for i in range(3)
    ] + [Fact(subject=ada, predicate="born", object_value=0, evidence=cite("doc-0"))]
    report = evaluate_extraction(golds, said)
    assert report.notes[0] == (
        "3 of 4 predictions citing a document cite none the labels name, even by file stem "
        "(they cite 'file0.txt', 'file1.txt'; the labels name 'doc-0', 'doc-1'): they are not "
        "scored; name documents as the labels do"
    )
    assert not any("cite only unlabelled documents" in n for n in report.notes)
    # half of them (or fewer): the plain note instead
    half = evaluate_extraction(golds, said[2:])
    assert half.notes == ("1 prediction(s) cite only unlabelled documents and were not scored",)
