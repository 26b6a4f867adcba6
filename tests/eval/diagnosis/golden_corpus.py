"""Seeded corpora that reach every bucket, every input and every odd shape of a row, and what the
diagnosis said of each when the goldens were written (``tests/fixtures/diagnosis/golden.json``).

The goldens were written by the row-by-row diagnosis that came before the columnar engine, so the
test holding the engine to them says the engine changed no bucket, count, example or fix.
Regenerate (only when a change of behaviour is meant) with
``python -m tests.eval.diagnosis.golden_corpus``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from openodke import Entity, Evidence, Fact, GroundingVerdict
from openodke.eval import GoldFact
from openodke.eval.diagnosis import Offered, SentenceEvidence, diagnose, gold_view
from openodke.eval.diagnosis.fixes import fixes
from openodke.eval.engine.matching import fact_key
from openodke.types import Polarity

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "diagnosis" / "golden.json"
SEEDS = range(64)

_NAMES = [
    ("ann", "Ann", ()),
    ("bob", "Bob", ("Robert",)),
    ("acme", "Acme", ("Acme Corp",)),
    ("acme corporation", "Acme Corporation", ()),
    ("the acme", None, ()),
    ("Org:beta", "Beta", ()),
    ("Org:béta", "Béta", ()),
    ("cal", None, ()),
    ("dan", "Dan", ()),
    ("oslo", "Oslo", ("Christiania",)),
    ("Person:eve", None, ()),
    ("gamma ray", "Gamma Ray", ()),
]
_TYPES = ["Person", "Thing", "Org"]
_PREDICATES = ["employer", "founded", "parent", "child", "award", "lives_in"]
_VALUES = [1815, "1815", " 1815 ", 2.5, True, "Acme", "acme corp", "x"]


def _entity(rng: random.Random) -> Entity:
    key, label, aliases = rng.choice(_NAMES)
    kind = rng.choice(_TYPES)
    if rng.random() < 0.2:
        label = None
    return Entity(key=key, type=kind, label=label, aliases=aliases if rng.random() < 0.5 else ())


def _fact(rng: random.Random, docs: tuple[str, ...]) -> Fact:
    literal = rng.random() < 0.25
    update: dict[str, Any] = {}
    if rng.random() < 0.1:
        update["polarity"] = rng.choice([Polarity.denied, Polarity.partial])
    if rng.random() < 0.08:
        update["qualifiers"] = {"year": rng.choice([1, 2])}
        update["identity_keys"] = ("year",)
    if rng.random() < 0.2:
        update["verdict"] = rng.choice(list(GroundingVerdict))
    return Fact(
        subject=_entity(rng),
        predicate=rng.choice(_PREDICATES),
        **({"object_value": rng.choice(_VALUES)} if literal else {"object_entity": _entity(rng)}),
        evidence=tuple(Evidence(doc_id=d) for d in docs),
        **update,
    )


def _near(rng: random.Random, fact: Fact) -> Fact:
    """A prediction made from a gold fact by one of the mistakes the buckets sort."""
    kind = rng.randrange(8)
    if kind == 0:  # another relation
        return fact.model_copy(update={"predicate": rng.choice(_PREDICATES)})
    if kind == 1 and fact.object_entity is not None:  # the other way round
        return fact.model_copy(
            update={"subject": fact.object_entity, "object_entity": fact.subject}
        )
    if kind == 2:  # another subject type
        subject = fact.subject.model_copy(update={"type": rng.choice(_TYPES)})
        return fact.model_copy(update={"subject": subject})
    if kind == 3:  # another end in other words
        if fact.object_entity is not None:
            return fact.model_copy(update={"object_entity": _entity(rng)})
        return fact.model_copy(update={"object_value": rng.choice(_VALUES)})
    if kind == 4:
        return fact.model_copy(update={"subject": _entity(rng)})
    if kind == 5:
        return fact.model_copy(update={"polarity": Polarity.denied})
    return fact


def _texts(rng: random.Random, docs: list[str]) -> dict[str, str]:
    """Sentences any splitter cuts alike: capitalised, ended by a full stop and a space."""
    words = [n[1] or n[0] for n in _NAMES] + ["1815", "lorem", "ipsum", "Christiania"]
    out = {}
    for d in docs:
        sentences = [
            "Then " + " ".join(rng.choice(words) for _ in range(rng.randrange(2, 6))) + " here."
            for _ in range(rng.randrange(1, 5 + 3 * int(d[1:])))
        ]
        out[d] = " ".join(sentences)
    return out


def scenario(seed: int) -> dict[str, Any]:
    """One seeded corpus and the diagnosis inputs it is given."""
    rng = random.Random(seed)
    docs = [f"d{k}" for k in range(rng.randrange(1, 6))]
    gold = [
        GoldFact(doc_id=(d := rng.choice(docs)), fact=_fact(rng, (d,)))
        for _ in range(rng.randrange(0, 40))
    ]
    predicted: list[Fact] = []
    for row in gold:
        r = rng.random()
        if r < 0.35:
            predicted.append(row.fact)
        elif r < 0.75:
            predicted.append(_near(rng, row.fact))
        if rng.random() < 0.05:
            predicted.append(row.fact)  # a repeat
    for _ in range(rng.randrange(0, 15)):
        cited = rng.choice([(rng.choice(docs),), (), ("elsewhere",), ("elsewhere", docs[0])])
        predicted.append(_fact(rng, cited))
    rng.shuffle(predicted)
    for k in range(len(predicted)):
        if rng.random() < 0.05:
            predicted[k] = predicted[k].model_copy(update={"evidence": ()})
    inputs: dict[str, Any] = {"examples": rng.choice([0, 1, 3, 3, 5])}
    if rng.random() < 0.5:
        by_type = {t: tuple(rng.sample(_PREDICATES, rng.randrange(0, 6))) for t in _TYPES[:2]}
        inputs["offered"] = Offered(by_type=by_type)
    if rng.random() < 0.4:
        pool = [g.fact for g in gold] + [_fact(rng, (rng.choice(docs),)) for _ in range(3)]
        chosen = rng.sample(pool, min(len(pool), rng.randrange(0, 6)))
        inputs["validator"] = [
            {"fact": f.model_dump(mode="json"), "reason": rng.choice(["contradicted", None])}
            if rng.random() < 0.5
            else f
            for f in chosen
        ]
    if rng.random() < 0.25 and gold and predicted:
        inputs["lenient"] = [
            {
                "doc_id": g.doc_id,
                "gold": g.fact.model_dump(mode="json"),
                "prediction": rng.choice(predicted).model_dump(mode="json"),
                "same": rng.random() < 0.7,
            }
            for g in rng.sample(gold, min(len(gold), 4))
        ]
    if rng.random() < 0.4:
        inputs["inverses"] = [("parent", "child"), ("child", "parent"), ("employer", "employer")]
    if rng.random() < 0.3 and gold:
        evidence = SentenceEvidence(one_sentence=rng.random() < 0.2)
        for g in rng.sample(gold, min(len(gold), 5)):
            evidence.facts[(g.doc_id, fact_key(g.fact))] = tuple(
                rng.sample(range(4), rng.randrange(0, 3))
            )
            ends = [g.fact.subject.key]
            if g.fact.object_entity is not None:
                ends.append(g.fact.object_entity.key)
            places = evidence.mentions.setdefault(g.doc_id, {})
            for key in ends:
                places[key] = frozenset(rng.sample(range(4), rng.randrange(0, 3)))
        inputs["evidence"] = evidence
    if rng.random() < 0.6:
        inputs["texts"] = _texts(rng, docs)
    labelled = docs + ["spare"] if rng.random() < 0.3 else None
    return {"gold": gold, "predicted": predicted, "documents": labelled, "inputs": inputs}


def outcome(seed: int) -> dict[str, Any]:
    """What the diagnosis and the fixes say of scenario ``seed``, as JSON."""
    case = scenario(seed)
    view = gold_view(case["gold"], case["predicted"], documents=case["documents"])
    found = diagnose(view, **case["inputs"])
    ranked = fixes(found)
    return {
        "diagnosis": found.model_dump(mode="json"),
        "fixes": [f.model_dump(mode="json") for f in ranked],
    }


def main() -> None:
    """Write the goldens."""
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{json.dumps(str(s))}: {json.dumps(outcome(s), ensure_ascii=False)}" for s in SEEDS]
    GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
