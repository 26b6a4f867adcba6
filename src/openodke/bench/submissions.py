"""Benchmarks' own submission formats, both ways: reading them as Facts, writing ours as them.

Read: Text2KGBench response rows (JSONL ``{"id", "triples": [[s, r, o], ...]}``, other keys
such as the published ``response`` allowed) and DocRED-style submissions (one JSON list of
``{title, h_idx, t_idx, r, evidence?}``). Written: our facts as a DocRED submission (after
alignment) or as Text2KGBench response rows, for the official scorers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from openodke.bench import redocred, text2kgbench
from openodke.bench.load import BenchSet, align_each
from openodke.bench.names import entity_names
from openodke.errors import InputError
from openodke.safeio import open_regular, read_json
from openodke.types import Entity, Evidence, Fact, Polarity

__all__ = ["docred_facts", "facts_to_responses", "read_submission", "to_docred_submission"]


def read_submission(
    path: str | Path, bench: BenchSet, *, notes: list[str] | None = None
) -> list[Fact]:
    """Read a benchmark-format predictions file as Facts on ``bench``'s gold keys.

    A file whose first non-blank character is ``[`` is a DocRED submission (needs a Re-DocRED
    set); otherwise JSONL response rows (Text2KGBench). InputError names what is wrong. Rows the
    official scorer counts wrong without reading them (see :func:`docred_facts`) are noted in
    ``notes``.
    """
    file = Path(path)
    with open_regular(file, what="predictions") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"["):
        if bench.dataset != "redocred":
            raise InputError("a DocRED submission needs a Re-DocRED bench set", path=str(file))
        items = read_json(file, what="a DocRED submission")
        return docred_facts(items, bench, source=str(file), notes=notes)
    rows = text2kgbench.read_responses(file)
    if bench.dataset != "text2kgbench":
        raise InputError(
            "response rows are Text2KGBench's format; this is a Re-DocRED set", path=str(file)
        )
    return text2kgbench.response_facts(rows, bench.predicates, "submission")


def docred_facts(
    items: Sequence[Any],
    bench: BenchSet,
    *,
    source: str = "submission",
    notes: list[str] | None = None,
) -> list[Fact]:
    """A DocRED submission as Facts: title → document id, indices → gold entities, Pid → predicate.

    As DocRED's and Re-DocRED's official scorers do, a row naming a title the gold does not hold
    or an entity index out of range stays in the submission and counts wrong: its Fact names an
    entity no gold fact has (``Thing:<title> #<index>``), cites its document when the title is
    known and none otherwise, and ``notes`` gets one line saying how many such rows there were.
    A row that is not ``{title, h_idx, t_idx, r}`` is still an InputError.
    """
    by_title = {row["title"]: row["id"] for row in bench.gold_rows}
    facts: list[Fact] = []
    unknown_titles = out_of_range = 0
    examples: list[str] = []
    for number, item in enumerate(items):
        if not isinstance(item, dict) or not {"title", "h_idx", "t_idx", "r"} <= item.keys():
            raise InputError(f"item {number}: expected {{title, h_idx, t_idx, r}}", path=source)
        title = str(item["title"])
        doc_id = by_title.get(title)
        entities = bench.entities(doc_id) if doc_id is not None else []
        bad = [end for end in ("h_idx", "t_idx") if not _in_range(item[end], entities)]
        ends = [_end(item, end, title, entities) for end in ("h_idx", "t_idx")]
        if doc_id is None:
            unknown_titles += 1
            examples.append(f"item {number}: title {title!r} is not in the bench set")
        elif bad:
            out_of_range += 1
            examples.append(
                f"item {number}: {bad[0]} {item[bad[0]]!r} is not an entity of {doc_id}"
            )
        facts.append(
            Fact(
                id=f"submission:{number}",
                subject=ends[0],
                predicate=bench.predicates.resolve(str(item["r"])) or str(item["r"]),
                object_entity=ends[1],
                evidence=(Evidence(doc_id=doc_id),) if doc_id is not None else (),
                extractor="submission",
            )
        )
    if (unknown_titles or out_of_range) and notes is not None:
        notes.append(
            f"{source}: {unknown_titles} row(s) name a title the gold does not hold and "
            f"{out_of_range} an entity index out of range; as the official scorer does, they "
            f"count as wrong (first: {examples[0]})"
        )
    return facts


def _in_range(index: Any, entities: Sequence[Entity]) -> bool:
    return isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(entities)


def _end(item: dict[str, Any], end: str, title: str, entities: Sequence[Entity]) -> Entity:
    """The entity a submission row's ``h_idx``/``t_idx`` names, or one no gold fact has."""
    index = item[end]
    if _in_range(index, entities):
        return entities[index]
    return Entity(key=f"Thing:{title} #{index}", type="Thing", label=f"{title} #{index}")


def to_docred_submission(
    bench: BenchSet, facts: Sequence[Fact]
) -> tuple[list[dict[str, Any]], int]:
    """Our facts as a DocRED submission, and how many could not be put in it.

    Each fact is aligned first (``align``); one fails when an end matches no ``vertexSet``
    entry, its predicate is not a Re-DocRED relation, or it is not asserted.
    """
    titles = {row["id"]: row["title"] for row in bench.gold_rows}
    pid_of = {name: pid for pid, name in redocred.predicate_names(bench.info["ontology"]).items()}
    rows: list[dict[str, Any]] = []
    failed = 0
    for fact, ok in align_each(bench, facts):
        if (
            not ok
            or fact.predicate not in pid_of
            or fact.polarity is not Polarity.asserted
            or fact.object_entity is None
        ):
            failed += 1
            continue
        doc_id = fact.doc_ids[0]
        keys = [e.key for e in bench.entities(doc_id)]
        rows.append(
            {
                "title": titles[doc_id],
                "h_idx": keys.index(fact.subject.key),
                "t_idx": keys.index(fact.object_entity.key),
                "r": pid_of[fact.predicate],
            }
        )
    return rows, failed


def _name(value: Any, bench: BenchSet) -> str:
    if hasattr(value, "key"):
        return entity_names(value, bench.ontology.get("types", {}))[0]
    return str(value)


def facts_to_responses(
    bench: BenchSet, facts: Iterable[Fact], *, documents: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """Our facts as Text2KGBench response rows ``{"id", "triples"}``, one per document.

    Every document of ``documents`` (default: all of the bench set's) gets a row, empty when no
    fact cites it, since the official score treats a missing row as a sentence not attempted.
    A fact counts in its first cited document; relations are written as the benchmark's
    baselines write them (the ontology label with spaces as underscores), others as they are.
    """
    ids = list(documents) if documents is not None else [d.id for d in bench.documents]
    triples: dict[str, list[list[str]]] = {doc_id: [] for doc_id in ids}
    for fact in map(bench.on_bench_documents, facts):
        if not fact.doc_ids or fact.doc_ids[0] not in triples:
            continue
        predicate = bench.predicates.resolve(fact.predicate)
        relation = (
            bench.predicates.label(predicate).replace(" ", "_") if predicate else fact.predicate
        )
        obj = fact.object_entity if fact.object_entity is not None else fact.object_value
        triples[fact.doc_ids[0]].append([_name(fact.subject, bench), relation, _name(obj, bench)])
    return [{"id": doc_id, "triples": rows} for doc_id, rows in triples.items()]
