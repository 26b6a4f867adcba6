"""``odke bench prepare``: a bench set folder from a benchmark's local files, calling no model.

Layout (surface.md, Bench sets): ``docs/<id>.txt``, ``ontology.json``, ``gold.jsonl`` (the
dataset's own rows), ``dataset.json``, ``odke.json`` and ``competitors/<name>/`` (``facts.jsonl``,
``usage.json`` and the raw ``responses.jsonl`` the official scorer replays).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke import __version__
from openodke.bench import formats, redocred, text2kgbench
from openodke.bench.formats import check
from openodke.bench.names import PredicateIndex
from openodke.bench.writer import (
    PREPARED_BY,
    check_max_tokens,
    check_out,
    dumps,
    run_config,
    write_tree,
)
from openodke.errors import InputError

__all__ = ["PrepareResult", "prepare_redocred", "prepare_text2kgbench"]

REDOCRED_KEYS = (
    "Type:<case-folded first mention name> per vertexSet entry (Type from the first mention's "
    "DocRED type); a later entry of the same document with the same key gets '#<vertexSet index>'"
)
TEXT2KG_KEYS = (
    "Type:<case-folded collapsed name>, Type the predicate's domain (subject) or range (object); "
    "literal ranges give object values; relations outside the ontology give Thing"
)


class PrepareResult(BaseModel):
    """What prepare wrote."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dataset: str
    out: str
    title: str = Field(description="The set in words, e.g. 'Re-DocRED test (first 50 of 500)'.")
    documents: int
    gold_facts: int = Field(description="GoldFacts the set loads to (repeats counted once).")
    gold_triples: int | None = Field(default=None, description="Text2KGBench: triples as written.")
    predicates: int
    types: int
    competitors: dict[str, int] = Field(default_factory=dict, description="name → facts.")
    notes: list[str] = Field(default_factory=list)

    def summary(self) -> str:
        """One paragraph saying what was written where."""
        rivals = (
            "competitors " + ", ".join(f"{n} ({k:,} facts)" for n, k in self.competitors.items())
            if self.competitors
            else "no competitors"
        )
        text = (
            f"Prepared {self.title} in {self.out}: {self.documents:,} documents in docs/, "
            f"{self._gold()} (gold.jsonl), an ontology of {self.predicates} "
            f"predicates and {self.types} types (ontology.json), dataset.json, odke.json "
            f"(snippet_limit {self.predicates}), and {rivals}."
        )
        return " ".join([text, *self.notes])

    def _gold(self) -> str:
        if self.gold_triples is None or self.gold_triples == self.gold_facts:
            return f"{self.gold_facts:,} gold facts"
        return f"{self.gold_triples:,} gold triples ({self.gold_facts:,} distinct facts)"


def _redocred_dir(data_dir: Path) -> Path:
    for candidate in (data_dir / "redocred", data_dir):
        if (candidate / "rel_info.json").is_file():
            return candidate
    raise InputError(
        "no Re-DocRED data: expected redocred/rel_info.json and redocred/<split>_revised.json "
        "(DATA_DIR laid out like data/)",
        path=str(data_dir),
    )


def _reverse_rules_path(data_dir: Path, folder: Path) -> Path | None:
    for candidate in (
        data_dir / "revisit-docred" / "reverse_rules.json",
        folder / "reverse_rules.json",
        folder.parent / "revisit-docred" / "reverse_rules.json",
    ):
        if candidate.is_file():
            return candidate
    return None


def _read_split(path: Path) -> list[dict[str, Any]]:
    docs = redocred.read_json(path)
    if not isinstance(docs, list):
        raise InputError(
            "not a Re-DocRED split: expected a list of {title, sents, vertexSet, labels}, "
            f"got {type(docs).__name__}",
            path=str(path),
        )
    check(formats.split, docs, path=str(path))
    return docs


def prepare_redocred(
    data_dir: str | Path,
    out: str | Path,
    *,
    split: str = "test",
    limit: int | None = None,
    paper: bool = False,
    max_tokens: int | None = None,
) -> PrepareResult:
    """Prepare the first ``limit`` documents of Re-DocRED ``split`` (ids ``test_0000`` …)."""
    data_dir, out = Path(data_dir), Path(out)
    if split not in ("dev", "test"):
        raise InputError(f"--split must be dev or test, got {split!r}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    check_max_tokens(max_tokens)
    check_out(out)
    folder = _redocred_dir(data_dir)
    rel_info = check(
        formats.rel_info,
        redocred.read_json(folder / "rel_info.json"),
        path=str(folder / "rel_info.json"),
    )
    all_docs = _read_split(folder / f"{split}_revised.json")
    docs = all_docs[:limit] if limit else all_docs
    other = "dev" if split == "test" else "test"
    notes: list[str] = []
    other_docs = None
    if (folder / f"{other}_revised.json").is_file():
        other_docs = _read_split(folder / f"{other}_revised.json")
    else:
        notes.append(
            f"No {other} split was found, so predicates have open domains and default importance."
        )
    rules_path = _reverse_rules_path(data_dir, folder)
    rules = (
        check(formats.reverse_rules, redocred.read_json(rules_path), path=str(rules_path))
        if rules_path
        else None
    )
    if rules is None:
        notes.append("No reverse_rules.json was found, so no inverses are recorded.")
    ontology, details = redocred.build_ontology(rel_info, other_docs, rules)
    names = redocred.predicate_names(rel_info)
    ids = [f"{split}_{i:04d}" for i in range(len(docs))]
    gold_count = sum(redocred.fact_count(doc) for doc in docs)
    shown = (
        f"first {len(docs)} of {len(all_docs)}" if len(docs) < len(all_docs) else f"all {len(docs)}"
    )
    title = f"Re-DocRED {split} ({shown})"
    info = {
        "schema_version": "1.0",
        "prepared_by": PREPARED_BY,
        "openodke": __version__,
        "dataset": "redocred",
        "title": title,
        "source": str((folder / f"{split}_revised.json").resolve()),
        "ontology_id": "redocred",
        "documents": len(docs),
        "sentences": sum(len(doc["sents"]) for doc in docs),
        "gold_facts": gold_count,
        "relation_labels": {names[pid]: label for pid, label in rel_info.items()},
        "ontology": rel_info,
        "details": {
            "split": split,
            "limit": limit,
            "other_split": other if other_docs is not None else None,
            "document_ids": ids,
            "entity_keys": REDOCRED_KEYS,
            "importance": f"facts of the predicate in {other} over the most frequent predicate's",
            "reverse_rules": str(rules_path.resolve()) if rules_path else None,
            **details,
        },
    }
    files: dict[str, str | bytes] = {
        f"docs/{i}.txt": redocred.document_text(doc) for doc, i in zip(docs, ids, strict=True)
    }
    files["gold.jsonl"] = "".join(
        json.dumps({"id": i, **doc}, ensure_ascii=False) + "\n"
        for doc, i in zip(docs, ids, strict=True)
    )
    files["ontology.json"] = dumps(ontology)
    files["odke.json"] = dumps(
        run_config(len(ontology["predicates"]), paper=paper, max_tokens=max_tokens)
    )
    files["dataset.json"] = dumps(info)
    write_tree(out, files)
    declared = len(details["declared_inverses"])
    if rules is not None:
        notes.insert(
            0,
            f"Inverses: {len(details['inverses'])} reverse rules recorded in dataset.json; "
            f"{declared} inverse pairs and {len(details['symmetric'])} symmetric predicates "
            f"declared in the ontology (those that hold both ways in {other}).",
        )
    return PrepareResult(
        dataset="redocred",
        out=str(out),
        title=title,
        documents=len(docs),
        gold_facts=gold_count,
        predicates=len(ontology["predicates"]),
        types=len(ontology["types"]),
        notes=notes,
    )


def prepare_text2kgbench(
    data_dir: str | Path,
    out: str | Path,
    *,
    ontology: str,
    paper: bool = False,
    max_tokens: int | None = None,
) -> PrepareResult:
    """Prepare one Wikidata-TekGen ontology's test sentences, gold and published baselines."""
    out = Path(out)
    check_max_tokens(max_tokens)
    check_out(out)
    source = text2kgbench.read_source(Path(data_dir), ontology)
    ours = text2kgbench.build_ontology(source.raw_ontology, source.sibling_concepts)
    index = PredicateIndex(ours)
    gold_count = sum(len(text2kgbench.gold_facts(row, index)) for row in source.gold_rows)
    outside: dict[str, int] = {}
    for row in source.gold_rows:
        for triple in row["triples"]:
            if index.resolve(triple["rel"]) is None:
                outside[triple["rel"]] = outside.get(triple["rel"], 0) + 1
    files: dict[str, str | bytes] = {
        f"docs/{row['id']}.txt": row["sent"] for row in source.sentences
    }
    files["gold.jsonl"] = "".join(
        json.dumps(row, ensure_ascii=False) + "\n" for row in source.gold_rows
    )
    competitors: dict[str, int] = {}
    for name, path in source.baselines.items():
        facts = text2kgbench.response_facts(text2kgbench.read_responses(path), index, name)
        competitors[name] = len(facts)
        files[f"competitors/{name}/facts.jsonl"] = "".join(
            f.model_dump_json() + "\n" for f in facts
        )
        files[f"competitors/{name}/responses.jsonl"] = path.read_bytes()
        files[f"competitors/{name}/usage.json"] = dumps(
            {"model": name, "cost": None, "latency": None, "source": str(path.resolve())}
        )
    oid = source.ontology_id
    title = f"Text2KGBench Wikidata-TekGen {oid}"
    info = {
        "schema_version": "1.0",
        "prepared_by": PREPARED_BY,
        "openodke": __version__,
        "dataset": "text2kgbench",
        "title": title,
        "source": str(source.root.resolve()),
        "ontology_id": oid,
        "documents": len(source.sentences),
        "sentences": len(source.sentences),
        "gold_facts": gold_count,
        "gold_triples": sum(len(row["triples"]) for row in source.gold_rows),
        "relation_labels": {name: spec["label"] for name, spec in ours["predicates"].items()},
        "ontology": source.raw_ontology,
        "details": {
            "split": "test",
            "document_ids": [row["id"] for row in source.sentences],
            "entity_keys": TEXT2KG_KEYS,
            "verified_ids": source.verified_ids,
            "gold_relations_outside_ontology": outside,
            "competitors": sorted(competitors),
            "inverses": [],
        },
    }
    files["ontology.json"] = dumps(ours)
    files["odke.json"] = dumps(
        run_config(len(ours["predicates"]), paper=paper, max_tokens=max_tokens)
    )
    files["dataset.json"] = dumps(info)
    write_tree(out, files)
    notes = []
    if source.verified_ids is not None:
        notes.append(f"{len(source.verified_ids)} sentence ids are manually verified.")
    if outside:
        notes.append(
            f"{sum(outside.values())} gold triples use relations outside the ontology JSON ({', '.join(sorted(outside))})."
        )
    return PrepareResult(
        dataset="text2kgbench",
        out=str(out),
        title=title,
        documents=len(source.sentences),
        gold_facts=gold_count,
        gold_triples=info["gold_triples"],
        predicates=len(ours["predicates"]),
        types=len(ours["types"]),
        competitors=competitors,
        notes=notes,
    )
