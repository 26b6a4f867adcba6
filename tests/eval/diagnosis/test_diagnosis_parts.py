"""The diagnosis's parts: saturation fit, sentence evidence, trace, lenient, name rules, replays."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm

from openodke import Entity, Evidence, Fact
from openodke.errors import InputError
from openodke.eval import GoldFact
from openodke.eval.diagnosis import (
    Offered,
    SentenceEvidence,
    alike,
    config_from_trace,
    diagnose,
    evidence_from_redocred,
    gold_view,
    inverse_pairs,
    name_key,
    offered_from_trace,
    saturation,
    split_sentences,
)
from openodke.eval.diagnosis.saturation import loglog_slope
from openodke.eval.diagnosis.sentences import TextIndex
from openodke.eval.engine.key_table import KeyTable
from openodke.eval.engine.matching import fact_key
from openodke.ontology import Ontology

# --- saturation -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loglog_slope_matches_statsmodels_ols(seed: int) -> None:
    rng = np.random.default_rng(seed)
    length = rng.integers(50, 5000, size=40).astype(float)
    count = np.maximum(1, np.round(length**0.7 * rng.uniform(0.5, 1.5, size=40)))
    reference = sm.OLS(np.log(count), sm.add_constant(np.log(length))).fit().params[1]
    assert loglog_slope(length, count) == pytest.approx(reference, rel=1e-12)


@pytest.mark.parametrize(
    ("extractions", "saturated"),
    [
        ([5, 5, 5, 5], True),  # flat: slope 0 < half the gold's
        ([2, 4, 8, 16], False),  # keeps up: slope 1
        ([4, 5, 6, 7], True),  # slope about 0.27 < 0.5
    ],
)
def test_saturation_flags_flat_output(extractions: list[int], saturated: bool) -> None:
    lengths, gold = [100, 200, 400, 800], [2, 4, 8, 16]  # gold slope exactly 1
    fit = saturation(lengths, extractions, gold)
    assert fit.measured and fit.saturated is saturated
    assert fit.gold_slope == pytest.approx(1.0)
    assert fit.median_length == 300 and fit.is_long(400) and not fit.is_long(300)


def test_saturation_needs_three_documents_with_both() -> None:
    fit = saturation([100, 200, 400], [1, 0, 3], [2, 4, 8])
    assert not fit.measured and fit.documents == 2 and "2 have both" in fit.note


# --- sentences --------------------------------------------------------------------------------


def test_split_sentences() -> None:
    text = 'Ada was born in 1815 . She met "Babbage" later.\nLondon is big! 1842 came.'
    assert split_sentences(text) == [
        "Ada was born in 1815 .",
        'She met "Babbage" later.',
        "London is big!",
        "1842 came.",
    ]


def test_name_key_ignores_case_accents_and_punctuation() -> None:
    assert name_key("Ängström-Labs, Inc.") == "angstrom labs inc"


@pytest.mark.parametrize(
    ("subject", "obj", "cross"),
    [
        (("Ada Lovelace",), ("London",), True),  # sentences 0 and 1
        (("Ada Lovelace", "Ada"), ("Babbage",), False),  # "Ada" names her in sentence 2
        (("Lovelace",), ("Paris",), None),  # Paris is named nowhere: cannot say
        (("ada",), ("Lon",), None),  # whole words only
    ],
)
def test_text_index_cross(subject, obj, cross) -> None:
    index = TextIndex("Ada Lovelace was born. London was big. Ada met Babbage.")
    assert index.cross(subject, obj) is cross


def test_sentence_evidence_order_of_sources() -> None:
    evidence = SentenceEvidence(
        facts={("d", "k1"): (3,), ("d", "k2"): (1, 4)},
        mentions={"d": {"a": frozenset({0, 2}), "b": frozenset({2}), "c": frozenset({5})}},
    )
    assert evidence.cross("d", "k1", "a", "c") is False  # one evidence sentence wins
    assert evidence.cross("d", "k2", "a", "b") is True  # two evidence sentences win
    assert evidence.cross("d", "k3", "a", "b") is False  # mentions share sentence 2
    assert evidence.cross("d", "k3", "a", "c") is True  # min distance ≥ 1
    assert evidence.cross("d", "k3", "a", "zz") is None  # no mentions for an end
    assert SentenceEvidence(one_sentence=True).cross("d", "k", "a", "b") is False


def test_evidence_from_redocred_reads_evidence_and_mentions() -> None:
    doc = {
        "id": "t0",
        "title": "T",
        "sents": [["Ada", "met", "Bob", "."], ["Bob", "lives", "in", "Rome", "."]],
        "vertexSet": [
            [{"name": "Ada", "sent_id": 0, "pos": [0, 1], "type": "PER"}],
            [
                {"name": "Bob", "sent_id": 0, "pos": [2, 3], "type": "PER"},
                {"name": "Bob", "sent_id": 1, "pos": [0, 1], "type": "PER"},
            ],
            [{"name": "Rome", "sent_id": 1, "pos": [3, 4], "type": "LOC"}],
        ],
        "labels": [
            {"h": 0, "t": 2, "r": "P551", "evidence": [0, 1]},
            {"h": 1, "t": 2, "r": "P551", "evidence": []},
        ],
    }
    evidence = evidence_from_redocred([doc], {"P551": "residence"})
    assert evidence.mentions["t0"] == {
        "Person:ada": frozenset({0}),
        "Person:bob": frozenset({0, 1}),
        "Location:rome": frozenset({1}),
    }
    ada = Fact(
        subject=Entity(key="Person:ada", type="Person"),
        predicate="residence",
        object_entity=Entity(key="Location:rome", type="Location"),
    )
    assert evidence.facts == {("t0", fact_key(ada)): (0, 1)}
    assert evidence.cross("t0", fact_key(ada), "Person:ada", "Location:rome") is True
    assert evidence.cross("t0", "other", "Person:bob", "Location:rome") is False


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (("Gabby Logan",), ("gabby  LOGAN",), True),  # name keys equal
        (("Logan",), ("Gabby Logan",), True),  # whole words inside
        (("Log",), ("Gabby Logan",), False),  # not a whole word, and far apart
        (("Noriyuki Abe",), ("Noriyuki Abé",), True),  # accents ignored
        (("Bleach: Hell Verse",), ("Bleach : Hell Verse",), True),
        (("Alexander",), ("Alexandra",), True),  # rapidfuzz ratio 88.9 ≥ 85
        (("Paris",), ("London",), False),
    ],
)
def test_alike(a, b, same) -> None:
    assert alike(a, b) is same


# --- inverses ---------------------------------------------------------------------------------


def test_inverse_pairs_from_ontology_and_bench_pairs() -> None:
    ontology = Ontology.from_dict(
        {
            "types": {"Person": {}},
            "predicates": {
                "parent": {"domain": ["Person"], "range": "Person", "inverse_of": "child"},
                "child": {"domain": ["Person"], "range": "Person"},
                "spouse": {"domain": ["Person"], "range": "Person", "symmetric": True},
            },
        }
    )
    implied = inverse_pairs([ontology, ("head_of", "jurisdiction_of")])
    assert implied == {
        "parent": ("child",),
        "child": ("parent",),
        "spouse": ("spouse",),
        "head_of": ("jurisdiction_of",),
    }
    assert inverse_pairs(("p", "q")) == {"p": ("q",)}


# --- trace ------------------------------------------------------------------------------------

ONTOLOGY = {
    "types": {"Person": {}, "Company": {}},
    "predicates": {
        "born": {"domain": ["Person"], "range": "date", "importance": 0.9},
        "employer": {"domain": ["Person"], "range": "Company", "importance": 0.5},
        "award": {"domain": ["Person"], "range": "string", "importance": 0.1},
        "founded": {"domain": ["Company"], "range": "date"},
    },
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "ontology.json").write_text(json.dumps(ONTOLOGY), encoding="utf-8")
    return tmp_path


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("extractor", "person", "company"),
    [
        ({"use": "llm", "snippet_limit": 2}, ("born", "employer"), ("founded",)),
        ({"use": "llm"}, ("born", "employer", "award"), ("founded",)),  # default 25
        ({"use": "llm", "types": ["Person"]}, ("born", "employer", "award"), ()),
        ("llm", ("born", "employer", "award"), ("founded",)),
        (
            {
                "use": "hybrid",
                "llm": {"snippet_limit": 1},
                "pattern": {"mappings": {"F": "founded"}},
            },
            ("born",),  # the model part's, as the run's manifest records it (DECISIONS 133)
            ("founded",),
        ),
        (
            {"use": "pattern", "mappings": {"Born": "born"}, "subject_type": "Person"},
            ("born",),
            None,
        ),
    ],
)
def test_offered_from_a_run_config(folder: Path, extractor, person, company) -> None:
    config = _write(
        folder / "odke.json", {"ontology": "ontology.json", "stages": {"extractor": extractor}}
    )
    offered = offered_from_trace(config)
    assert offered is not None
    assert offered.by_type.get("Person") == person
    assert offered.by_type.get("Company") == company


def test_offered_from_yaml_config_and_triples_extractor(folder: Path) -> None:
    yaml_config = folder / "odke.yaml"
    yaml_config.write_text(
        "ontology: ontology.json\nstages:\n  extractor: {use: llm, snippet_limit: 1}\n",
        encoding="utf-8",
    )
    assert offered_from_trace(yaml_config).by_type["Person"] == ("born",)
    triples = _write(
        folder / "t.json",
        {"ontology": "ontology.json", "stages": {"extractor": {"use": "triples", "path": "x"}}},
    )
    assert offered_from_trace(triples) is None  # nothing says what it was shown


def test_offered_from_a_manifest(folder: Path) -> None:
    manifest = _write(
        folder / "manifest.json",
        {
            "manifest_version": 1,
            "stats": {
                "coverage": {
                    "snippet_limit": 25,
                    "offered": {"Person": ["born"], "Company": []},
                    "never_offered": {"Person": ["award"], "Company": ["founded"]},
                }
            },
            "config": {"stages": {"extractor": "llm"}},
        },
    )
    offered = offered_from_trace(manifest)
    assert offered == Offered(by_type={"Person": ("born",), "Company": ()}, snippet_limit=25)
    assert config_from_trace(manifest) == {"stages": {"extractor": "llm"}}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "expected a manifest or run config"),
        ("{", "not a manifest or run config"),
        ('{"stages": {}}', "no stages.extractor"),
        ('{"stages": {"extractor": "llm"}}', "names no ontology"),
        ('{"manifest_version": 1, "stats": {}}', "neither stats.coverage nor config"),
    ],
)
def test_bad_traces_are_input_errors(folder: Path, content: str, message: str) -> None:
    path = folder / "trace.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        offered_from_trace(path)


# --- lenient, replays, rates ------------------------------------------------------------------


def said(s: str, p: str, o: str, doc: str = "d", s_type: str = "Person", o_type: str = "Thing"):
    return Fact(
        subject=Entity(key=s, type=s_type),
        predicate=p,
        object_entity=Entity(key=o, type=o_type),
        evidence=(Evidence(doc_id=doc),),
    )


def test_lenient_decisions_decide_surface_forms() -> None:
    gold = [
        GoldFact(doc_id="d", fact=said("ada", "employer", "acme")),
        GoldFact(doc_id="d", fact=said("ada", "employer", "the beta")),
    ]
    preds = [said("ada", "employer", "acme corp"), said("ada", "employer", "beta")]
    decisions = [
        {
            "doc_id": "d",
            "gold": gold[0].fact.model_dump(mode="json"),
            "prediction": preds[0].model_dump(mode="json"),
            "same": True,
            "why": "same firm",
        },
        {
            "doc_id": "d",
            "gold": gold[1].model_dump(mode="json"),
            "prediction": preds[1].model_dump(mode="json"),
            "same": False,
            "why": "no",
        },
    ]
    view = gold_view(gold, preds)
    unconfirmed = diagnose(view)
    assert unconfirmed.bucket("surface_form").count == 2  # both pass the name rules
    assert unconfirmed.bucket("surface_form").label == "surface form (unconfirmed)"
    judged = diagnose(view, lenient=decisions)
    surface = judged.bucket("surface_form")
    assert (surface.count, surface.label) == (1, "surface form")
    assert surface.examples[0].nearest == "ada · employer · acme corp"
    # Judged different, the other goes on: "the beta" is in no prediction.
    assert judged.bucket("entity_missing").count == 1


def test_audit_replay_accepts_every_refusal() -> None:
    # 4 gold, 1 hit, 1 spurious; the gate refused one true and one false fact.
    gold = [
        GoldFact(doc_id="d", fact=said("ada", p, o))
        for p, o in [("a", "x"), ("b", "y"), ("c", "z"), ("e", "w")]
    ]
    preds = [said("ada", "a", "x"), said("ada", "q", "q")]
    refused = [said("ada", "b", "y"), said("ada", "r", "r")]
    found = diagnose(gold_view(gold, preds), validator=refused)
    replay = found.replays["audit"]
    # Before: tp 1, fp 1 -> P 0.5, R 0.25. After: tp 2, fp 2 -> P 0.5, R 0.5.
    assert (replay.added, replay.found) == (2, 1)
    assert (replay.recall_before, replay.recall_after) == (0.25, 0.5)
    assert (replay.precision_before, replay.precision_after) == (0.5, 0.5)
    assert found.bucket("refused").count == 1
    assert found.bucket("refused_not_in_gold").count == 1


def test_inverse_replay_adds_the_reversed_facts() -> None:
    gold = [
        GoldFact(doc_id="d", fact=said("ada", "parent", "bob", o_type="Person")),
        GoldFact(doc_id="d", fact=said("cy", "parent", "dan", o_type="Person")),
    ]
    preds = [
        said("bob", "child", "ada", o_type="Person"),  # reversed: the step recovers it
        said("dan", "friend", "cy", o_type="Person"),  # reversed, but no pair implies parent
    ]
    found = diagnose(gold_view(gold, preds), inverses=[("child", "parent")])
    assert found.bucket("inverse").count == 2
    replay = found.replays["inverses"]
    # Before: tp 0, fp 2. After adding (ada parent bob): tp 1, fp 2 -> P 1/3, R 0.5.
    assert (replay.added, replay.found) == (1, 1)
    assert replay.recall_after == 0.5 and replay.precision_after == pytest.approx(1 / 3)
    assert diagnose(gold_view(gold, preds)).replays["inverses"] is None


def test_rates_for_the_fixes() -> None:
    gold = [
        GoldFact(doc_id="d", fact=said("ann", "employer", "acme")),  # offered, hit, same sentence
        GoldFact(doc_id="d", fact=said("ann", "lives_in", "oslo")),  # offered, cross-sentence
        GoldFact(doc_id="d", fact=said("ann", "award", "medal")),  # not offered, named nowhere
    ]
    found = diagnose(
        gold_view(gold, [said("ann", "employer", "acme")]),
        offered=Offered(by_type={"Person": ("employer", "lives_in")}),
        texts={"d": "Ann joined Acme . Oslo is far ."},
    )
    rates = {k: (v.hits, v.of) if v else None for k, v in found.rates.items()}
    assert rates == {
        "row": (1, 3),
        "offered": (1, 2),
        "same_sentence": (1, 1),
        "short_documents": None,  # one document: no regression
    }


@pytest.mark.parametrize("seed", range(6))
def test_fast_replay_equals_rescoring(seed: int) -> None:
    """Without uncited facts the replay is reckoned, not rerun: it must equal the matcher's."""
    from openodke.eval.diagnosis.replay import replay
    from openodke.eval.stages.extract import score_facts

    rng = np.random.default_rng(seed)

    def random_fact(doc: str) -> Fact:
        s, p, o = (f"{x}{rng.integers(0, 4)}" for x in "spo")
        literal = rng.random() < 0.3
        return Fact(
            subject=Entity(key=s, type="T"),
            predicate=p,
            **({"object_value": o} if literal else {"object_entity": Entity(key=o, type="T")}),
            evidence=(Evidence(doc_id=doc),),
        )

    docs = ["a", "b", "c"]
    gold = [GoldFact(doc_id=d, fact=random_fact(d)) for d in rng.choice(docs, 40)]
    preds = [random_fact(d) for d in rng.choice(docs, 30)]
    added = [random_fact(d) for d in rng.choice([*docs, "elsewhere"], 25)]
    view = gold_view(gold, preds)
    fast = replay(view, [f.doc_ids for f in added], [fact_key(f) for f in added])
    slow = score_facts(gold, [*preds, *added]).matching.counts()
    assert fast.recall_after == pytest.approx(slow["tp"] / (slow["tp"] + slow["fn"]))
    assert fast.precision_after == pytest.approx(slow["tp"] / (slow["tp"] + slow["fp"]))


def test_gold_view_reuses_the_rows_score() -> None:
    from openodke.eval.stages.extract import score_facts

    gold = [GoldFact(doc_id="d", fact=said("ann", "employer", "acme"))]
    preds = [said("ann", "employer", "acme"), said("ann", "owns", "x")]
    score = score_facts(gold, preds)
    view = gold_view(gold, preds, score=score)
    assert view.score is score
    # The columns' keys are those of the encoded keys: the same hashes as the CLI's loader.
    assert view.gold.keys.key.tolist() == KeyTable.of([fact_key(g.fact) for g in gold]).key.tolist()
    assert (
        view.predicted.keys.key.tolist() == KeyTable.of([fact_key(f) for f in preds]).key.tolist()
    )
    with pytest.raises(ValueError, match="not made from these"):
        gold_view(gold, preds[:1], score=score)
    with pytest.raises(ValueError, match="not made from these"):
        gold_view(gold, preds[::-1], score=score)
