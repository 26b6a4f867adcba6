"""Adapters: other systems' output as triples rows (``--adapter``).

Each adapter is ``read_<name>(path, documents) -> list[TripleRow]`` and documents its mapping in
its docstring. ``documents`` may be a DocumentIndex, so a harness's file names count when matching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.interop.adapters._records import iter_records, plain
from openodke.interop.adapters.graphrag import (
    GraphragNotes,
    graphrag_notes,
    iter_graphrag,
    read_graphrag,
)
from openodke.interop.adapters.langchain import (
    iter_langchain_rows,
    langchain_rows,
    read_langchain,
)
from openodke.interop.adapters.langextract import (
    iter_langextract_rows,
    langextract_rows,
    read_langextract,
)
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow, iter_triples, read_triples
from openodke.ontology.checks import did_you_mean
from openodke.types import Document

__all__ = [
    "ADAPTERS",
    "GraphragNotes",
    "OBJECT_ADAPTERS",
    "Adapter",
    "adapter_for",
    "adapter_notes",
    "graphrag_notes",
    "iter_graphrag",
    "iter_objects",
    "iter_predictions",
    "langchain_rows",
    "langextract_rows",
    "plain",
    "read_graphrag",
    "read_langchain",
    "read_langextract",
    "read_predictions",
    "read_triples_rows",
    "rows_from_objects",
]

Adapter = Callable[[str | Path, Iterable[Document] | DocumentIndex], list[TripleRow]]
"""An adapter: a file (or folder) and the documents -> triples rows."""


def read_triples_rows(
    path: str | Path, documents: Iterable[Document] | DocumentIndex = ()
) -> list[TripleRow]:
    """The ``triples`` adapter: :func:`read_triples`; rows are matched to documents later."""
    return read_triples(path)


ADAPTERS: dict[str, Adapter] = {
    "triples": read_triples_rows,
    "langchain": read_langchain,
    "langextract": read_langextract,
    "graphrag": read_graphrag,
}
"""Adapter name -> reader, the values ``--adapter`` takes."""


ObjectAdapter = Callable[..., list[TripleRow]]

OBJECT_ADAPTERS: dict[str, ObjectAdapter] = {
    "langchain": langchain_rows,
    "langextract": langextract_rows,
}
"""Adapters that also read a ``--run`` function's returned objects (or their dumps)."""

OBJECT_READERS: dict[str, Callable[..., Iterator[TripleRow]]] = {
    "langchain": iter_langchain_rows,
    "langextract": iter_langextract_rows,
}
""":data:`OBJECT_ADAPTERS` one object at a time."""


def _name(adapter: str) -> str:
    name = adapter.strip().casefold()
    if name not in ADAPTERS:
        hint = did_you_mean(adapter, ADAPTERS)
        choices = ", ".join(ADAPTERS)
        raise InputError(f"unknown adapter '{adapter}'{hint}; choose one of {choices}")
    return name


def read_predictions(
    path: str | Path,
    adapter: str = "triples",
    documents: Iterable[Document] | DocumentIndex = (),
) -> list[TripleRow]:
    """Read ``path`` with the named adapter; an unknown name is an InputError with a did-you-mean."""
    return ADAPTERS[_name(adapter)](path, documents)


def iter_predictions(
    path: str | Path,
    adapter: str = "triples",
    documents: Iterable[Document] | DocumentIndex = (),
) -> Iterator[TripleRow]:
    """:func:`read_predictions` one row at a time: triples rows, and LangChain and LangExtract
    JSONL records, and GraphRAG's relationships table, are read as they are turned into rows."""
    name = _name(adapter)
    if name == "triples":
        return iter_triples(path)
    if name == "langchain":
        return iter_langchain_rows(iter_records(path), documents, path=path)
    if name == "langextract":
        return iter_langextract_rows(iter_records(path), documents, path=path)
    return iter_graphrag(path, documents)


def adapter_for(item: Any) -> str | None:
    """The adapter an object or dict is the output of: ``langchain`` for a GraphDocument (or its
    dump), ``langextract`` for an annotated document, else None."""
    kind = type(item).__name__
    if kind == "GraphDocument":
        return "langchain"
    if kind == "AnnotatedDocument":
        return "langextract"
    if isinstance(item, dict):
        if item.get("lc") == 1 and isinstance(item.get("id"), list) and item["id"]:
            return "langchain" if item["id"][-1] in {"GraphDocument", "Document"} else None
        if "relationships" in item and "nodes" in item:
            return "langchain"
        if "extractions" in item and "subject" not in item:
            return "langextract"
    return None


def rows_from_objects(
    items: Iterable[Any],
    adapter: str,
    documents: Iterable[Document] | DocumentIndex = (),
    *,
    where: str = "returned rows",
) -> list[TripleRow]:
    """A ``--run`` function's returned objects read by ``adapter``: LangChain GraphDocuments or
    LangExtract annotated documents (the objects, or the dicts their dumps hold).

    InputError for an adapter that reads only files (``graphrag``: its output is tables) or
    ``triples`` (its rows are read by ``collect`` itself).
    """
    return list(iter_objects(items, adapter, documents, where=where))


def iter_objects(
    items: Iterable[Any],
    adapter: str,
    documents: Iterable[Document] | DocumentIndex = (),
    *,
    where: str = "returned rows",
) -> Iterator[TripleRow]:
    """:func:`rows_from_objects` one object at a time, as ``items`` yields them (the adapter is
    refused before any is read)."""
    name = _name(adapter)
    reader = OBJECT_READERS.get(name)
    if reader is None:
        raise InputError(
            f"{where}: --adapter {name} reads files, not returned objects: "
            "write the output and pass it with --predictions (or --cmd)"
        )
    return reader(((None, plain(item)) for item in items), documents, path=where)


def adapter_notes(adapter: str, rows: list[TripleRow], ontology: Any = None) -> list[str]:
    """What an adapter's rows say about how they will score (GraphRAG's sentence descriptions)."""
    return graphrag_notes(rows, ontology) if _name(adapter) == "graphrag" else []
