"""Functions for the --run tests: each returns one kind of row, or fails in one way."""

from __future__ import annotations

from collections.abc import Iterator

from openodke.interop import TripleRow
from openodke.types import Document, Entity, Evidence, Fact


def dict_rows(documents: list[Document]) -> list[dict]:
    return [
        {"doc": d.id, "subject": "Ada", "predicate": "founded", "object": "Halden"}
        for d in documents
    ]


def triple_rows(documents: list[Document]) -> list[TripleRow]:
    return [TripleRow.model_validate(row) for row in dict_rows(documents)]


def facts(documents: list[Document]) -> list[Fact]:
    ada = Entity(key="Thing:ada", type="Thing", label="Ada")
    return [
        Fact(
            subject=ada,
            predicate="founded",
            object_entity=Entity(key="Thing:halden", type="Thing", label="Halden"),
            evidence=(Evidence(doc_id=d.id),),
            extractor="mine",
        )
        for d in documents
    ]


def generated(documents: list[Document]) -> Iterator[dict]:
    yield from dict_rows(documents)


def broken_generator(documents: list[Document]) -> Iterator[dict]:
    yield dict_rows(documents)[0]
    raise KeyError("missing model")


def raises(documents: list[Document]) -> list[dict]:
    raise ValueError(f"cannot read {len(documents)} documents")


def returns_none(documents: list[Document]) -> None:
    return None


def returns_one_fact(documents: list[Document]) -> Fact:
    return facts(documents)[0]


def bad_row(documents: list[Document]) -> list[object]:
    return [dict_rows(documents)[0], {"doc": "a", "subject": "x", "predicat": "p", "object": 1}]


def not_a_row(documents: list[Document]) -> list[object]:
    return [("a", "b", "c")]


class Pipeline:
    """A class: built with no arguments, its run method called."""

    def run(self, documents: list[Document]) -> list[dict]:
        return dict_rows(documents)[:1]
