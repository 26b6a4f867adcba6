"""Text2KGBench (Wikidata-TekGen): sentences, gold triples, the ontology and published outputs.

Entity keys: ``Type:<case-folded collapsed name>`` with Type the predicate's domain (subject)
or range (object), so a triple written with the gold's strings gets the gold's keys. A predicate
whose range is a literal type (the ontology's empty range becomes ``string``) takes the object
as a value, written as in the data. A relation the ontology JSON lacks (the gold has a few:
``occupation`` in music, seven in computer) keeps its snake_case name and ``Thing`` types.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke.bench.formats import (
    TekgenGoldRow,
    TekgenOntology,
    TekgenSentence,
    check,
    check_file_id,
)
from openodke.bench.names import PredicateIndex, entity_key, pascal_case, snake_case
from openodke.bench.redocred import read_json
from openodke.errors import InputError
from openodke.eval.stages.labels import GoldFact
from openodke.safeio import iter_json_lines, read_text
from openodke.types import Entity, Evidence, Fact, SpanOrigin

__all__ = [
    "TekgenSource",
    "build_ontology",
    "gold_facts",
    "locate",
    "read_responses",
    "read_source",
    "response_facts",
    "triple_fact",
]


@dataclass(frozen=True)
class TekgenSource:
    """Everything prepare reads for one TekGen ontology."""

    root: Path
    ontology_id: str
    raw_ontology: dict[str, Any]
    sentences: list[dict[str, Any]]
    gold_rows: list[dict[str, Any]]
    verified_ids: list[str] | None
    baselines: dict[str, Path] = field(default_factory=dict)
    sibling_concepts: dict[str, str] = field(default_factory=dict)


def locate(data_dir: Path) -> Path:
    """The ``wikidata_tekgen`` folder under DATA_DIR (data/, data/text2kgbench/, or itself)."""
    for candidate in (
        data_dir / "text2kgbench" / "wikidata_tekgen",
        data_dir / "wikidata_tekgen",
        data_dir,
    ):
        if (candidate / "ontologies").is_dir() and (candidate / "ground_truth").is_dir():
            return candidate
    raise InputError(
        "no Text2KGBench data: expected text2kgbench/wikidata_tekgen/ with ontologies/ and "
        "ground_truth/ (DATA_DIR laid out like data/)",
        path=str(data_dir),
    )


def _number(path: Path) -> int:
    match = re.match(r"(\d+)_", path.name)
    return int(match.group(1)) if match else 0


def _ontology_files(root: Path) -> dict[str, Path]:
    names = [name for name in _listing(root / "ontologies") if name.endswith("_ontology.json")]
    files = sorted((root / "ontologies" / name for name in names), key=_number)
    return {"ont_" + f.name.removesuffix("_ontology.json"): f for f in files}


def _resolve_id(root: Path, given: str) -> str:
    known = _ontology_files(root)
    wanted = given if given.startswith("ont_") else f"ont_{given}"
    if wanted in known:
        return wanted
    by_name = [oid for oid in known if oid.split("_", 2)[-1] == given]
    if len(by_name) == 1:
        return by_name[0]
    raise InputError(
        f"unknown ontology {given!r}; expected one of: {', '.join(known) or '(none found)'}",
        path=str(root / "ontologies"),
    )


def read_source(data_dir: Path, ontology: str) -> TekgenSource:
    """Read one ontology's files: ontology JSON, test sentences, ground truth, baselines."""
    root = locate(data_dir)
    oid = _resolve_id(root, ontology)
    raw = _ontology(_ontology_files(root)[oid])
    gold_path = root / "ground_truth" / f"{oid}_ground_truth.jsonl"
    gold_rows = _rows(gold_path, TekgenGoldRow)
    test_path = root / "test" / f"{oid}_test.jsonl"
    sentences = _rows(test_path, TekgenSentence) if os.path.lexists(test_path) else gold_rows
    verified_path = root / "manually_verified_sentences" / f"selected_{oid}.txt"
    verified = None
    if os.path.lexists(verified_path):
        text = read_text(verified_path, what="a list of sentence ids")
        verified = [line.strip() for line in text.splitlines() if line.strip()]
    baselines: dict[str, Path] = {}
    for name in _listing(root / "baselines"):
        folder = root / "baselines" / name / "llm_responses"
        if not folder.is_dir():
            continue
        found = [
            folder / f for f in _listing(folder) if f.startswith(f"{oid}_") and f.endswith(".jsonl")
        ]
        if found:
            baselines[name] = found[0]
    siblings: dict[str, str] = {}
    for path in _ontology_files(root).values():
        for concept in _ontology(path).get("concepts", []):
            siblings.setdefault(concept["qid"], concept["label"])
    return TekgenSource(root, oid, raw, sentences, gold_rows, verified, baselines, siblings)


def _ontology(path: Path) -> dict[str, Any]:
    value = read_json(path)
    if not isinstance(value, dict):
        raise InputError(
            f"expected a Text2KGBench ontology object, got {type(value).__name__}", path=str(path)
        )
    return check(TekgenOntology, value, path=str(path))  # type: ignore[no-any-return]


def _rows(path: Path, shape: type[TekgenSentence]) -> list[dict[str, Any]]:
    """The rows of a sentence or ground-truth file, each checked; ids must name files."""
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line, row in iter_json_lines(path):
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object, got {type(row).__name__}", path=str(path), line=line
            )
        check(shape, row, path=str(path), line=line)
        check_file_id(row["id"], path=str(path), line=line)
        if row["id"] in seen:
            raise InputError(
                f"id {row['id']!r} appears twice (first on line {seen[row['id']]})",
                path=str(path),
                line=line,
            )
        seen[row["id"]] = line
        rows.append(row)
    return rows


def _listing(folder: Path) -> list[str]:
    """The sorted entry names of ``folder`` (none when it does not exist); InputError when it
    cannot be read, so no baseline is skipped silently."""
    if not os.path.lexists(folder):
        return []
    try:
        return sorted(os.listdir(folder))
    except OSError as error:
        raise InputError(f"cannot read the folder: {error.strerror}", path=str(folder)) from None


def build_ontology(raw: Mapping[str, Any], sibling_concepts: Mapping[str, str]) -> dict[str, Any]:
    """Our ontology JSON: concepts → PascalCase types, relations → snake_case predicates.

    Domain and range go through the concept qids; an empty range becomes ``string``. A concept
    listed twice (sport repeats two qids) is one type, a second label becoming an alias; a
    relation listed twice is one predicate, its domains merged and its first range kept. A qid the
    ontology's concepts lack (sport, book, military, computer and nature have some) becomes a
    type named from another TekGen ontology's concept label, else from the qid itself.
    """
    types: dict[str, dict[str, Any]] = {}
    by_qid: dict[str, str] = {}

    def add_type(qid: str, label: str, note: str = "") -> str:
        name = pascal_case(label) or qid
        if name in types:
            name = f"{name}{qid}"
        types[name] = {"description": f"{label} (Wikidata {qid}){note}", "aliases": [label]}
        by_qid[qid] = name
        return name

    for concept in raw.get("concepts", []):
        name = by_qid.get(concept["qid"])
        if name is None:
            add_type(concept["qid"], concept["label"])
        elif concept["label"] not in types[name]["aliases"]:
            types[name]["aliases"].append(concept["label"])

    def type_for(qid: str) -> str:
        if qid in by_qid:
            return by_qid[qid]
        label = sibling_concepts.get(qid, qid)
        return add_type(qid, label, "; not among this ontology's concepts")

    predicates: dict[str, dict[str, Any]] = {}
    relations = raw.get("relations", [])
    for relation in relations:  # resolve every type first, so the aliases below see them all
        for qid in (relation.get("domain"), relation.get("range")):
            if qid:
                type_for(qid)
    _prune_aliases(types)
    for relation in relations:
        label, domain = (
            relation["label"],
            [type_for(relation["domain"])] if relation.get("domain") else [],
        )
        name = snake_case(label)
        if name in predicates:  # listed twice (sport's league, military's designed by)
            known = predicates[name]["domain"]
            known.extend(t for t in domain if known and t not in known)
            continue
        predicates[name] = {
            "label": label,
            "description": f"{label} (Wikidata property {relation['pid']})",
            "domain": domain,
            "range": type_for(relation["range"]) if relation.get("range") else "string",
            "cardinality": "multi",
            "aliases": [label],
        }
    return {
        "name": raw.get("id", "text2kgbench"),
        "version": "1",
        "types": types,
        "predicates": predicates,
    }


def _prune_aliases(types: dict[str, dict[str, Any]]) -> None:
    """Drop an alias that only repeats its type's name, or one an earlier type already has."""
    claimed = {_lookup(name) for name in types}
    for name, spec in types.items():
        kept = []
        for alias in spec.pop("aliases"):
            if _lookup(alias) != _lookup(name) and _lookup(alias) not in claimed:
                claimed.add(_lookup(alias))
                kept.append(alias)
        if kept:
            spec["aliases"] = kept


def _lookup(name: str) -> str:
    # How the ontology compares names: case-folded, underscores as spaces, spaces collapsed.
    return " ".join(name.replace("_", " ").split()).casefold()


def triple_fact(
    sub: str,
    rel: str,
    obj: str,
    index: PredicateIndex,
    *,
    doc_id: str,
    fact_id: str,
    extractor: str,
    origin: SpanOrigin = SpanOrigin.cited,
) -> Fact:
    """One (subject, relation, object) string triple as a Fact, keyed by the module's rule."""
    predicate = index.resolve(rel)
    if predicate is None:
        name, subject_type, object_type = snake_case(rel) or rel, "Thing", "Thing"
    else:
        domain = index.domain(predicate)
        name, subject_type, object_type = (
            predicate,
            domain[0] if domain else "Thing",
            index.range(predicate),
        )
    subject = Entity(key=entity_key(subject_type, sub), type=subject_type, label=sub)
    evidence = (Evidence(doc_id=doc_id, span_origin=origin),)
    if predicate is not None and index.is_literal(predicate):
        return Fact(
            id=fact_id,
            subject=subject,
            predicate=name,
            object_value=obj,
            evidence=evidence,
            extractor=extractor,
        )
    target = Entity(key=entity_key(object_type, obj), type=object_type, label=obj)
    return Fact(
        id=fact_id,
        subject=subject,
        predicate=name,
        object_entity=target,
        evidence=evidence,
        extractor=extractor,
    )


def gold_facts(row: Mapping[str, Any], index: PredicateIndex) -> list[GoldFact]:
    """One ground-truth row's triples as GoldFacts; a repeated triple counts once."""
    facts: dict[tuple[Any, ...], GoldFact] = {}
    for number, triple in enumerate(row["triples"]):
        fact = triple_fact(
            triple["sub"],
            triple["rel"],
            triple["obj"],
            index,
            doc_id=row["id"],
            fact_id=f"{row['id']}:G{number}",
            extractor="gold",
        )
        facts.setdefault(fact.signature, GoldFact(doc_id=row["id"], fact=fact))
    return list(facts.values())


def read_responses(path: Path) -> list[dict[str, Any]]:
    """Response rows ``{"id", "triples": [[s, r, o], ...], ...}``; the last row of an id wins.

    That is the official scorer's rule (it keys the rows by id); Alpaca-LoRA's book file repeats
    every id. Any other key (the published ``response`` text) is allowed and ignored.
    """
    rows: dict[str, dict[str, Any]] = {}
    for line, row in iter_json_lines(path):
        problem = _response_problem(row)
        if problem:
            raise InputError(problem, path=str(path), line=line)
        rows[row["id"]] = row
    return list(rows.values())


def _response_problem(row: Any) -> str | None:
    if not isinstance(row, dict) or not isinstance(row.get("id"), str):
        return 'expected a response row {"id": str, "triples": [[s, r, o], ...]}'
    triples = row.get("triples")
    if not isinstance(triples, list):
        return "triples: expected a list of [subject, relation, object]"
    for number, triple in enumerate(triples):
        if not (
            isinstance(triple, list)
            and len(triple) == 3
            and all(isinstance(x, str) for x in triple)
        ):
            return f"triples.{number}: expected [subject, relation, object] strings"
    return None


def response_facts(
    rows: Iterable[Mapping[str, Any]], index: PredicateIndex, extractor: str
) -> list[Fact]:
    """Response rows as Facts citing their sentence (a context span: nobody chose one)."""
    facts: list[Fact] = []
    for row in rows:
        for number, (sub, rel, obj) in enumerate(row["triples"]):
            facts.append(
                triple_fact(
                    sub,
                    rel,
                    obj,
                    index,
                    doc_id=row["id"],
                    fact_id=f"{extractor}:{row['id']}:{number}",
                    extractor=extractor,
                    origin=SpanOrigin.context,
                )
            )
    return facts
