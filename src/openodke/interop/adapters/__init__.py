"""Adapters: other systems' output as triples rows (``--adapter``).

Each adapter is ``read_<name>(path, documents) -> list[TripleRow]`` and documents its mapping in
its docstring. ``documents`` may be a DocumentIndex, so a harness's file names count when matching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from openodke.errors import InputError
from openodke.interop.adapters.graphrag import read_graphrag
from openodke.interop.adapters.langchain import read_langchain
from openodke.interop.adapters.langextract import read_langextract
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow, read_triples
from openodke.ontology.checks import did_you_mean
from openodke.types import Document

__all__ = [
    "ADAPTERS",
    "Adapter",
    "read_graphrag",
    "read_langchain",
    "read_langextract",
    "read_predictions",
    "read_triples_rows",
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


def read_predictions(
    path: str | Path,
    adapter: str = "triples",
    documents: Iterable[Document] | DocumentIndex = (),
) -> list[TripleRow]:
    """Read ``path`` with the named adapter; an unknown name is an InputError with a did-you-mean."""
    reader = ADAPTERS.get(adapter.strip().casefold())
    if reader is None:
        hint = did_you_mean(adapter, ADAPTERS)
        choices = ", ".join(ADAPTERS)
        raise InputError(f"unknown adapter '{adapter}'{hint}; choose one of {choices}")
    return reader(path, documents)
