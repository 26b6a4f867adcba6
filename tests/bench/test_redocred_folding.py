"""Issue 17: gold written from Re-DocRED's own names (each entity's first mention, its DocRED
type) has entities of one document that differ only in letter case (``Tears for Fears`` and
``Tears For Fears``). Identity reads each such pair as one entity; the first lines say how many,
in how many documents, counted here independently from the raw JSON."""

from __future__ import annotations

import re

from openodke.eval import GoldFact
from openodke.eval.stages.extract import score_facts
from openodke.eval.stages.first_warnings import first_warnings
from openodke.safeio import read_json
from openodke.types import Entity, Evidence, Fact
from tests.bench.conftest import DATA


def _identity(key: str, kind: str) -> str:
    """How identity reads a key, written out again: folded, an own-type prefix dropped."""
    whole = " ".join(key.casefold().split())
    prefix, colon, rest = whole.partition(":")
    if colon and prefix.strip() == kind.casefold() and rest.strip():
        return rest.strip()
    return whole


def test_folded_gold_entities_of_redocred_are_counted_and_said_first() -> None:
    docs = [
        doc
        for split in ("dev_revised", "test_revised")
        for doc in read_json(DATA / "redocred" / f"{split}.json")
    ]
    gold: list[GoldFact] = []
    groups: dict[tuple[str, str, str], set[str]] = {}
    for doc in docs:
        for label in doc["labels"]:
            ends = []
            for v in (label["h"], label["t"]):
                mention = doc["vertexSet"][v][0]
                name, kind = mention["name"], mention["type"]
                ends.append(Entity(key=name, type=kind))
                written = " ".join(name.split())
                groups.setdefault((doc["title"], _identity(name, kind), kind), set()).add(written)
            fact = Fact(subject=ends[0], predicate=label["r"], object_entity=ends[1])
            gold.append(GoldFact(doc_id=doc["title"], fact=fact))
    folded = {k: v for k, v in groups.items() if len(v) > 1}
    in_docs = len({title for title, _, _ in folded})
    # 9 of the 1,000 documents among the ends of labelled facts, typed (15 among every entity
    # by type; the 18 also counted prefixes such as `Album: Live`).
    assert in_docs == 9

    said = [g.fact.model_copy(update={"evidence": (Evidence(doc_id=g.doc_id),)}) for g in gold]
    first = first_warnings(score_facts(gold, said))
    line = next(w for w in first if w.startswith("folded: "))
    found = re.match(r"folded: ([\d,]+) pairs? of gold entities in ([\d,]+) of ([\d,]+) doc", line)
    assert found is not None, line
    assert (int(found[1].replace(",", "")), int(found[2]), found[3]) == (
        len(folded),
        in_docs,
        f"{len({g.doc_id for g in gold}):,}",
    )
    assert "--match exact" in line
