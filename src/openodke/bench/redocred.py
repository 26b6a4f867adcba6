"""Re-DocRED: documents, gold facts and the ontology, from the dataset's own files.

Gold entity keys: each ``vertexSet`` entry becomes ``Type:<case-folded first mention name>``
(whitespace collapsed; Type from the first mention's DocRED type: PER → Person, ORG →
Organization, LOC → Location, TIME → Time, NUM → Amount, MISC → Misc; ``Number`` would clash
with the literal type ``number``, which the ontology reserves). When two entries of one
document would share a key, the later one gets ``#<vertexSet index>`` appended
(``Location:paris#7``), so a key names exactly one entry. Every fact is an edge.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from openodke.bench.names import entity_key, snake_case
from openodke.eval.stages.labels import GoldFact
from openodke.safeio import read_json as safe_read_json
from openodke.types import Entity, Evidence, Fact

__all__ = [
    "INVERSE_SHARE",
    "TYPE_NAMES",
    "build_ontology",
    "document_text",
    "fact_count",
    "gold_facts",
    "predicate_names",
    "read_json",
    "vertex_entities",
]

TYPE_NAMES = {
    "PER": "Person",
    "ORG": "Organization",
    "LOC": "Location",
    "TIME": "Time",
    "NUM": "Amount",
    "MISC": "Misc",
}
"""DocRED entity type → our type name."""

_TYPE_DESCRIPTIONS = {
    "Person": "A person, real or fictional.",
    "Organization": "An organization: company, institution, team, band, party, agency.",
    "Location": "A place: country, region, city, building, river, mountain.",
    "Time": "A date or time expression, as written (a year, a day, a period).",
    "Amount": "A number or quantity, as written (DocRED's NUM; 'Number' is a literal type).",
    "Misc": "Any other named thing: a work, event, product, award, language, nationality.",
}

INVERSE_SHARE = 0.9
"""Share of a predicate's facts whose reverse must be labelled for ``inverse_of`` to be declared."""


def read_json(path: Path) -> Any:
    """Read a JSON file within the bounds of :mod:`openodke.safeio`; InputError (exit 2) when
    it is missing, not a regular file or not JSON."""
    return safe_read_json(path)


def document_text(doc: Mapping[str, Any]) -> str:
    """The document's tokens joined with single spaces, sentence after sentence."""
    return " ".join(token for sentence in doc["sents"] for token in sentence)


def vertex_entities(doc: Mapping[str, Any]) -> list[Entity]:
    """One Entity per ``vertexSet`` entry, keyed by the convention in the module docstring."""
    entities: list[Entity] = []
    seen: set[str] = set()
    for index, mentions in enumerate(doc["vertexSet"]):
        first = mentions[0]
        type_name = TYPE_NAMES.get(first["type"], "Misc")
        key = entity_key(type_name, first["name"])
        if key in seen:
            key = f"{key}#{index}"
        seen.add(key)
        aliases = tuple(
            dict.fromkeys(m["name"] for m in mentions[1:] if m["name"] != first["name"])
        )
        entities.append(Entity(key=key, type=type_name, label=first["name"], aliases=aliases))
    return entities


def predicate_names(rel_info: Mapping[str, str]) -> dict[str, str]:
    """Wikidata property id → predicate name (``P69`` → ``educated_at``)."""
    return {pid: snake_case(label) for pid, label in rel_info.items()}


def fact_count(doc: Mapping[str, Any]) -> int:
    """How many GoldFacts ``gold_facts`` makes of a document: its distinct (h, t, r)."""
    return len({(label["h"], label["t"], label["r"]) for label in doc["labels"]})


def gold_facts(
    doc: Mapping[str, Any], doc_id: str, predicates: Mapping[str, str]
) -> list[GoldFact]:
    """The document's labels as GoldFacts citing ``doc_id``; a repeated (h, t, r) counts once."""
    entities = vertex_entities(doc)
    rows: list[GoldFact] = []
    seen: set[tuple[int, int, str]] = set()
    for number, label in enumerate(doc["labels"]):
        triple = (label["h"], label["t"], label["r"])
        if triple in seen:
            continue
        seen.add(triple)
        fact = Fact(
            id=f"{doc_id}:L{number}",
            subject=entities[label["h"]],
            predicate=predicates.get(label["r"], label["r"]),
            object_entity=entities[label["t"]],
            evidence=(Evidence(doc_id=doc_id),),
            extractor="gold",
        )
        rows.append(GoldFact(doc_id=doc_id, fact=fact))
    return rows


def _facts_by_relation(docs: Sequence[Mapping[str, Any]]) -> dict[str, set[tuple[int, int, int]]]:
    facts: dict[str, set[tuple[int, int, int]]] = defaultdict(set)
    for number, doc in enumerate(docs):
        for label in doc["labels"]:
            facts[label["r"]].add((number, label["h"], label["t"]))
    return facts


def _reverse_share(facts: Mapping[str, set[tuple[int, int, int]]], p: str, q: str) -> float:
    """Share of p's facts (d, h, t) whose reverse (d, t, h) is labelled with q."""
    mine = facts.get(p, set())
    if not mine:
        return 0.0
    theirs = facts.get(q, set())
    return sum((d, t, h) in theirs for d, h, t in mine) / len(mine)


def _declared_inverses(
    rules: Mapping[str, Sequence[str]], facts: Mapping[str, set[tuple[int, int, int]]]
) -> tuple[list[tuple[str, str]], list[str]]:
    """Pairs (and symmetric ids) the rules list that hold both ways on INVERSE_SHARE of facts."""
    pairs = {tuple(sorted((p, q))) for p, qs in rules.items() for q in qs}
    strength = {
        pair: min(_reverse_share(facts, pair[0], pair[1]), _reverse_share(facts, pair[1], pair[0]))
        for pair in pairs
    }
    inverse: list[tuple[str, str]] = []
    symmetric: list[str] = []
    taken: set[str] = set()
    for pair in sorted(pairs, key=lambda pair: (-strength[pair], pair)):
        p, q = pair
        if strength[pair] < INVERSE_SHARE or p in taken or q in taken:
            continue
        taken.update(pair)
        if p == q:
            symmetric.append(p)
        else:
            inverse.append((p, q))
    return sorted(inverse), sorted(symmetric)


def build_ontology(
    rel_info: Mapping[str, str],
    other_docs: Sequence[Mapping[str, Any]] | None,
    reverse_rules: Mapping[str, Sequence[str]] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Our ontology JSON for Re-DocRED, and the details dataset.json records about it.

    Domain (head types, most frequent first), range (the most frequent tail type) and
    ``importance`` (the predicate's fact count over the most frequent predicate's, 4 decimals)
    come from ``other_docs``, the split not being prepared, so the test gold never shapes the
    schema. A predicate absent there is open to all types, ranged ``Misc``, importance 0.
    ``inverse_of``/``symmetric`` are declared for the reverse rules that hold both ways on
    ``INVERSE_SHARE`` of the other split's facts; every listed rule goes to ``inverses``.
    """
    names = predicate_names(rel_info)
    heads: dict[str, Counter[str]] = defaultdict(Counter)
    tails: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in other_docs or ():
        types = [TYPE_NAMES.get(mentions[0]["type"], "Misc") for mentions in doc["vertexSet"]]
        for label in doc["labels"]:
            heads[label["r"]][types[label["h"]]] += 1
            tails[label["r"]][types[label["t"]]] += 1
    counts = {pid: sum(heads[pid].values()) for pid in rel_info}
    most = max(counts.values(), default=0)
    predicates: dict[str, dict[str, Any]] = {}
    for pid, label in rel_info.items():
        spec: dict[str, Any] = {
            "label": label,
            "description": f"{label} (Wikidata property {pid})",
            "domain": _by_frequency(heads[pid]),
            "range": next(iter(_by_frequency(tails[pid])), "Misc"),
            "cardinality": "multi",
            "aliases": [pid, label],
        }
        if other_docs is not None:
            spec["importance"] = round(counts[pid] / most, 4) if most else 0.0
        predicates[names[pid]] = spec
    rules = {p: list(qs) for p, qs in (reverse_rules or {}).items()}
    details: dict[str, Any] = {
        "inverses": [
            [names[p], names[q]] for p, qs in rules.items() for q in qs if p in names and q in names
        ],
        "declared_inverses": [],
        "symmetric": [],
    }
    if other_docs is not None and rules:
        # Only relations rel_info.json names can be declared (a rule may name others).
        known = {p: [q for q in qs if q in names] for p, qs in rules.items() if p in names}
        pairs, symmetric = _declared_inverses(known, _facts_by_relation(other_docs))
        for p, q in pairs:
            _declare(predicates, names[p], names[q])
        for p in symmetric:
            _declare(predicates, names[p], names[p])
        details["declared_inverses"] = [[names[p], names[q]] for p, q in pairs]
        details["symmetric"] = [names[p] for p in symmetric]
    ontology = {
        "name": "redocred",
        "version": "1",
        "types": {
            name: {"description": _TYPE_DESCRIPTIONS[name], "aliases": [code]}
            for code, name in TYPE_NAMES.items()
        },
        "predicates": predicates,
    }
    return ontology, details


def _by_frequency(counts: Counter[str]) -> list[str]:
    """Keys, most frequent first, ties by name."""
    return sorted(counts, key=lambda key: (-counts[key], key))


def _declare(predicates: dict[str, dict[str, Any]], p: str, q: str) -> None:
    """Declare p and q inverse (or p symmetric), widening domains so the ends swap."""
    if p == q:
        predicates[p]["symmetric"] = True
    else:
        predicates[p]["inverse_of"] = q
        predicates[q]["inverse_of"] = p
    for a, b in ((p, q), (q, p)):
        if predicates[a]["domain"] and predicates[b]["range"] not in predicates[a]["domain"]:
            predicates[a]["domain"].append(predicates[b]["range"])
