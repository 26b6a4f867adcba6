"""Loading a prepared bench set, and aligning predicted facts onto its gold entity keys."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.bench import formats, redocred, text2kgbench
from openodke.bench.formats import check, check_file_id
from openodke.bench.names import (
    PredicateIndex,
    collapse,
    compact,
    entity_key,
    entity_names,
    snake_case,
)
from openodke.errors import InputError
from openodke.eval.stages.labels import GoldFact
from openodke.ontology.load import build
from openodke.ontology.model import OntologyData
from openodke.safeio import iter_json_lines, read_text
from openodke.types import Document, Entity, Fact

__all__ = ["BenchSet", "align", "load_bench"]


class BenchSet(BaseModel):
    """A prepared bench set: documents, gold, ontology, competitors (``odke bench prepare``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    path: Path = Field(description="The bench set folder.")
    dataset: Literal["redocred", "text2kgbench"]
    title: str
    info: dict[str, Any] = Field(description="dataset.json as written.")
    ontology: dict[str, Any] = Field(description="ontology.json as written (our form).")
    documents: list[Document] = Field(description="One per docs/<id>.txt; id = the file stem.")
    gold: list[GoldFact]
    gold_rows: list[dict[str, Any]] = Field(description="gold.jsonl: the dataset's own rows.")
    competitors: dict[str, Path] = Field(description="name → competitors/<name> folder.")
    inverses: list[tuple[str, str]] = Field(description="[p, q]: (h p t) implies (t q h).")
    verified_ids: list[str] | None = Field(default=None, description="Text2KGBench's verified ids.")

    @property
    def config(self) -> Path:
        """The set's run config, ``odke.json``."""
        return self.path / "odke.json"

    @cached_property
    def predicates(self) -> PredicateIndex:
        """Predicate lookup by name, label or alias."""
        return PredicateIndex(self.ontology)

    @cached_property
    def _entities(self) -> dict[str, list[Entity]]:
        return {row["id"]: redocred.vertex_entities(row) for row in self.gold_rows}

    @cached_property
    def _mentions(self) -> dict[str, tuple[dict[str, list[int]], dict[str, list[int]]]]:
        tables: dict[str, tuple[dict[str, list[int]], dict[str, list[int]]]] = {}
        for row in self.gold_rows:
            exact: dict[str, list[int]] = {}
            loose: dict[str, list[int]] = {}
            for index, mentions in enumerate(row["vertexSet"]):
                for mention in mentions:
                    for table, form in ((exact, collapse), (loose, compact)):
                        hits = table.setdefault(form(mention["name"]), [])
                        if index not in hits:
                            hits.append(index)
            tables[row["id"]] = (exact, loose)
        return tables

    def entities(self, doc_id: str) -> list[Entity]:
        """Re-DocRED: the gold entities of a document, by vertexSet index."""
        return self._entities.get(doc_id, [])

    def find_entity(
        self,
        doc_id: str,
        names: Sequence[str],
        prefer_type: str | None = None,
        *,
        key: str | None = None,
    ) -> int | None:
        """Re-DocRED: the vertexSet index an entity refers to in ``doc_id``, or None.

        An entity whose ``key`` is a gold key of the document is that entry. Otherwise a name
        matches an entry when it equals any of its mention names, case-folded with whitespace
        collapsed; failing that, with all whitespace removed (the texts are tokenized:
        "July 15 , 1895"). Among several entries: the predicted type first, then an entry whose
        first mention is the name, then the lowest index.
        """
        if doc_id not in self._mentions:
            return None
        entities = self._entities[doc_id]
        if key is not None:
            for index, entity in enumerate(entities):
                if entity.key == key:
                    return index
        for table, form in zip(self._mentions[doc_id], (collapse, compact), strict=True):
            for name in names:
                hits = table.get(form(name))
                if hits:
                    return min(
                        hits,
                        key=lambda i: (
                            entities[i].type != prefer_type,
                            collapse(entities[i].label) != collapse(name),
                            i,
                        ),
                    )
        return None

    @cached_property
    def _doc_ids(self) -> dict[str, str]:
        ids = {d.id: d.id for d in self.documents}
        for doc in self.documents:
            ids.setdefault(f"docs/{doc.id}.txt", doc.id)
            ids.setdefault(f"{doc.id}.txt", doc.id)
        return ids

    def doc_id_for(self, cited: str) -> str | None:
        """The bench document a cited id names: its id, or its file under docs/ (as ``odke run``
        names documents, ``docs/test_0001.txt``), or that file's stem; None for any other."""
        found = self._doc_ids.get(cited)
        if found is None and cited.endswith(".txt"):
            found = self._doc_ids.get(Path(cited).stem)
        return found

    def on_bench_documents(self, fact: Fact) -> Fact:
        """``fact`` with each cited document renamed to its bench document id where it has one."""
        evidence = []
        for item in fact.evidence:
            doc_id = self.doc_id_for(item.doc_id)
            if doc_id is None or doc_id == item.doc_id:
                evidence.append(item)
                continue
            update: dict[str, Any] = {"doc_id": doc_id}
            for field in ("span", "mention"):
                span = getattr(item, field)
                if span is not None:
                    update[field] = span.model_copy(update={"doc_id": doc_id})
            evidence.append(item.model_copy(update=update))
        if evidence == list(fact.evidence):
            return fact
        return fact.model_copy(update={"evidence": tuple(evidence)})

    def align(self, facts: Sequence[Fact]) -> tuple[list[Fact], int]:
        """``align(self, facts)``."""
        return align(self, facts)


def _aligned_redocred(bench: BenchSet, fact: Fact) -> Fact | None:
    doc_ids = fact.doc_ids
    if not doc_ids:
        return None
    doc_id = doc_ids[0]
    types = bench.ontology.get("types", {})
    subject = bench.find_entity(
        doc_id, entity_names(fact.subject, types), fact.subject.type, key=fact.subject.key
    )
    if fact.object_entity is not None:
        target = fact.object_entity
        obj = bench.find_entity(doc_id, entity_names(target, types), target.type, key=target.key)
    else:
        obj = bench.find_entity(doc_id, [str(fact.object_value)])
    if subject is None or obj is None:
        return None
    entities = bench.entities(doc_id)
    predicate = bench.predicates.resolve(fact.predicate) or fact.predicate
    return fact.model_copy(
        update={
            "subject": entities[subject],
            "predicate": predicate,
            "object_entity": entities[obj],
            "object_value": None,
        }
    )


def _aligned_text2kg(bench: BenchSet, fact: Fact) -> tuple[Fact, bool]:
    index = bench.predicates
    types = bench.ontology.get("types", {})
    predicate = index.resolve(fact.predicate)
    if predicate is None:
        name, subject_type, object_type, literal = (
            snake_case(fact.predicate) or fact.predicate,
            "Thing",
            "Thing",
            False,
        )
    else:
        domain = index.domain(predicate)
        name, subject_type, object_type = (
            predicate,
            domain[0] if domain else "Thing",
            index.range(predicate),
        )
        literal = index.is_literal(predicate)
    subject_name = entity_names(fact.subject, types)[0]
    subject = Entity(
        key=entity_key(subject_type, subject_name), type=subject_type, label=subject_name
    )
    update: dict[str, Any] = {"subject": subject, "predicate": name}
    if fact.object_entity is not None:
        object_name: Any = entity_names(fact.object_entity, types)[0]
    else:
        object_name = fact.object_value
    if literal:
        update.update(object_entity=None, object_value=object_name)
    else:
        target = Entity(
            key=entity_key(object_type, object_name), type=object_type, label=str(object_name)
        )
        update.update(object_entity=target, object_value=None)
    return fact.model_copy(update=update), predicate is not None


def align_each(bench: BenchSet, facts: Sequence[Fact]) -> list[tuple[Fact, bool]]:
    """Each fact aligned (or as it was), with whether it aligned."""
    pairs: list[tuple[Fact, bool]] = []
    for fact in map(bench.on_bench_documents, facts):
        if bench.dataset == "redocred":
            aligned = _aligned_redocred(bench, fact)
            if aligned is None:
                predicate = bench.predicates.resolve(fact.predicate) or fact.predicate
                pairs.append((fact.model_copy(update={"predicate": predicate}), False))
            else:
                pairs.append((aligned, True))
        else:
            pairs.append(_aligned_text2kg(bench, fact))
    return pairs


def align(bench: BenchSet, facts: Sequence[Fact]) -> tuple[list[Fact], int]:
    """Map predicted facts onto the bench set's gold entity keys; also count the failures.

    Re-DocRED: subject and object (an entity, or a literal's text) must each match a
    ``vertexSet`` entry of the fact's first cited document by any mention name (see
    ``BenchSet.find_entity``); they then take the gold entity's key, type and label. Text2KGBench:
    keys are rebuilt as ``Type:<name>`` with Type from the predicate's domain and range, so a
    triple with the gold's strings matches. Predicates are matched by name, label or alias
    (case-insensitive, spaces and underscores alike). A fact that fails (Re-DocRED: an end
    matches no entry or no document is cited; Text2KGBench: the predicate is not in the
    ontology) is returned with only its predicate normalised, and counted. Cited documents are
    renamed to bench ids first (``docs/test_0001.txt`` → ``test_0001``; ``BenchSet.doc_id_for``).
    """
    pairs = align_each(bench, facts)
    return [fact for fact, _ in pairs], sum(not ok for _, ok in pairs)


def _read_json(path: Path) -> dict[str, Any]:
    value = redocred.read_json(path)
    if not isinstance(value, dict):
        raise InputError("expected a JSON object", path=str(path))
    return value


def _gold_rows(path: Path, dataset: str) -> list[dict[str, Any]]:
    """gold.jsonl's rows, each checked as the dataset's own row (with our ``id``)."""
    rows: list[dict[str, Any]] = []
    for line, row in iter_json_lines(path):
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object, got {type(row).__name__}", path=str(path), line=line
            )
        shape = formats.DocredDoc if dataset == "redocred" else formats.TekgenGoldRow
        check(shape, row, path=str(path), line=line)
        if not isinstance(row.get("id"), str):
            raise InputError("id: expected a string", path=str(path), line=line)
        rows.append(row)
    return rows


def load_bench(path: str | Path) -> BenchSet:
    """Read a bench set folder written by ``odke bench prepare``; InputError when it is not one."""
    folder = Path(path)
    if not (folder / "dataset.json").is_file():
        raise InputError(
            "not a bench set (no dataset.json); make one with `odke bench prepare`",
            path=str(folder),
        )
    info = _read_json(folder / "dataset.json")
    dataset = info.get("dataset")
    if dataset not in ("redocred", "text2kgbench"):
        raise InputError(
            f"dataset: expected redocred or text2kgbench, got {dataset!r}",
            path=str(folder / "dataset.json"),
        )
    ontology = _read_json(folder / "ontology.json")
    build(OntologyData, ontology, strict=False, path=folder / "ontology.json")
    for part in ("types", "predicates"):  # the set's readers take each entry as an object
        entries = ontology.get(part) or {}
        bad = (
            [k for k, v in entries.items() if not isinstance(v, dict)]
            if isinstance(entries, dict)
            else [""]
        )
        if bad:
            raise InputError(
                f"{part}.{bad[0][:60]}: expected an object", path=str(folder / "ontology.json")
            )
    gold_rows = _gold_rows(folder / "gold.jsonl", dataset)
    details = info.get("details", {})
    where = str(folder / "dataset.json")
    if not isinstance(details, dict):
        raise InputError("details: expected an object", path=where)
    ids = details.get("document_ids") or sorted(p.stem for p in (folder / "docs").glob("*.txt"))
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise InputError("details.document_ids: expected a list of strings", path=where)
    titles = {row["id"]: row.get("title") for row in gold_rows}
    documents = []
    for doc_id in ids:
        check_file_id(doc_id, path=where)
        file = folder / "docs" / f"{doc_id}.txt"
        if not os.path.lexists(file):
            raise InputError("missing document named in dataset.json", path=str(file))
        text = read_text(file, what="a document text")
        documents.append(Document(id=doc_id, text=text, title=titles.get(doc_id), uri=str(file)))
    if dataset == "text2kgbench":
        check(formats.TekgenOntology, info.get("ontology"), path=where, at="ontology")
    if dataset == "redocred":
        names = redocred.predicate_names(check(formats.rel_info, info.get("ontology"), path=where))
        gold = [g for row in gold_rows for g in redocred.gold_facts(row, row["id"], names)]
    else:
        index = PredicateIndex(ontology)
        gold = [g for row in gold_rows for g in text2kgbench.gold_facts(row, index)]
    competitors_dir = folder / "competitors"
    competitors = (
        {p.name: p for p in sorted(competitors_dir.iterdir()) if p.is_dir()}
        if competitors_dir.is_dir()
        else {}
    )
    inverses = details.get("inverses", [])
    if not isinstance(inverses, list) or not all(
        isinstance(pair, list) and len(pair) == 2 for pair in inverses
    ):
        raise InputError("details.inverses: expected a list of [p, q] pairs", path=where)
    try:
        return BenchSet(
            path=folder,
            dataset=dataset,
            title=str(info.get("title", dataset)),
            info=info,
            ontology=ontology,
            documents=documents,
            gold=gold,
            gold_rows=gold_rows,
            competitors=competitors,
            inverses=[(p, q) for p, q in inverses],
            verified_ids=details.get("verified_ids"),
        )
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise InputError(f"{field}: {problem['msg']}", path=where) from None
