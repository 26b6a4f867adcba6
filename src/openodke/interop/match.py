"""Harness matching: which Document a row's ``doc`` names.

A row's ``doc`` may be, in this order of precedence:

1. the Document's id;
2. the name its text had in the folder a ``--cmd`` pipeline read (``names``: doc id -> file
   name, e.g. ``halden.txt``), with or without ``.txt``;
3. the stem of the document's source file (its id or uri without folder and suffix: ``texts/
   halden.txt`` -> ``halden``), when exactly one document has that stem; a ``doc`` naming a
   record (``register.csv#L2``) keeps to that record (:mod:`openodke.doc_ids`, the rule labels,
   predictions and ``--documents`` join by too).

A row naming no document, or a stem several documents share, is dropped and counted in a note.
A file name given to two documents goes to the first, with a warning note.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from openodke.doc_ids import DocIds, StemIndex, source_stem
from openodke.interop.triples import TripleRow
from openodke.types import Document

__all__ = [
    "DocumentIndex",
    "MatchResult",
    "RowMatcher",
    "match_documents",
    "match_rows",
    "source_stem",
]

How = Literal["id", "name", "stem", "ambiguous", "unmatched"]

_LISTED = 20  # how many unmatched or ambiguous references a note names


class DocumentIndex:
    """Looks documents up by id, by the file name a harness gave them, by source stem, by text."""

    def __init__(
        self, documents: Iterable[Document], *, names: Mapping[str, str] | None = None
    ) -> None:
        self.documents: list[Document] = list(documents)
        self.notes: list[str] = []
        self._by_id: dict[str, Document] = {}
        for doc in self.documents:
            self._by_id.setdefault(doc.id, doc)
        self._by_name: dict[str, Document] = {}
        owner: dict[str, str] = {}
        for doc_id, file_name in (names or {}).items():
            named = self._by_id.get(doc_id)
            if named is None:
                continue
            for form in _name_forms(file_name):
                if form in self._by_name and self._by_name[form].id != named.id:
                    if form == file_name:
                        self.notes.append(
                            f"file name '{file_name}' is shared by documents '{owner[form]}' "
                            f"and '{named.id}'; rows naming it go to '{owner[form]}'"
                        )
                    continue
                self._by_name[form] = named
                owner[form] = named.id
        self._stems = StemIndex()  # the rule labels and --documents join by (openodke.doc_ids)
        first: dict[str, int] = {}
        for number, doc in enumerate(self.documents):
            number = first.setdefault(doc.id, number)
            self._stems.add(doc.id, number)
            if doc.uri:
                self._stems.add(doc.uri, number)
        self._by_text: dict[str, Document] = {}
        for doc in self.documents:
            self._by_text.setdefault(doc.text, doc)

    def resolve(self, reference: str) -> tuple[Document | None, How]:
        """The document ``reference`` names, and how: ``id``, ``name``, ``stem``, or why not."""
        if reference in self._by_id:
            return self._by_id[reference], "id"
        if reference in self._by_name:
            return self._by_name[reference], "name"
        group = self._stems.candidates(reference)
        if len(group) == 1:
            return self.documents[group[0]], "stem"
        if not group:  # the same id or stem in another letter case (HALDEN.TXT)
            found = self._folded.by_stem(reference)
            if found is not None:
                return self._by_id[self._folded.names[found]], "stem"
        return None, "ambiguous" if group else "unmatched"

    @cached_property
    def _folded(self) -> DocIds:
        first = list(self._by_id)
        number = {doc_id: k for k, doc_id in enumerate(first)}
        uris = {d.uri: number[d.id] for d in self.documents if d.uri and d.uri not in number}
        return DocIds(first, uris)

    def get(self, reference: str) -> Document | None:
        """The document ``reference`` names, or None (unmatched or ambiguous)."""
        return self.resolve(reference)[0]

    def by_text(self, text: str) -> Document | None:
        """The first document whose text is exactly ``text`` (then ignoring outer whitespace)."""
        found = self._by_text.get(text)
        if found is None:
            stripped = text.strip()
            found = next((d for d in self.documents if d.text.strip() == stripped), None)
        return found

    def containing(self, text: str) -> Document | None:
        """The one document whose text contains ``text``; None when none or several do."""
        if not text.strip():
            return None
        hits = [d for d in self.documents if text in d.text]
        return hits[0] if len(hits) == 1 else None


def _name_forms(file_name: str) -> list[str]:
    forms = [file_name]
    if file_name.endswith(".txt"):
        forms.append(file_name[: -len(".txt")])
    return forms


@dataclass(frozen=True)
class MatchResult:
    """Rows paired with their documents, and what could not be paired."""

    matched: list[tuple[TripleRow, Document]]
    unmatched_rows: int = 0
    ambiguous_rows: int = 0
    unmatched_docs: list[str] = field(default_factory=list)
    ambiguous_docs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        """Rows naming no document, or a stem several documents share."""
        return self.unmatched_rows + self.ambiguous_rows


class RowMatcher:
    """Pairs rows with documents one at a time, counting what it cannot pair, so a reader can
    turn each matched row into something else as it goes (:func:`match_rows` on a stream)."""

    def __init__(self, index: DocumentIndex) -> None:
        self.index = index
        self.missing: dict[str, int] = {}
        self.ambiguous: dict[str, int] = {}

    def document(self, row: TripleRow) -> Document | None:
        """The document ``row`` names, or None (counted as unmatched or ambiguous)."""
        doc, how = self.index.resolve(row.doc)
        if doc is None:
            counts = self.ambiguous if how == "ambiguous" else self.missing
            counts[row.doc] = counts.get(row.doc, 0) + 1
        return doc

    def result(self, matched: list[tuple[TripleRow, Document]]) -> MatchResult:
        """What was matched (``matched``, as the caller kept it), dropped and noted."""
        missing, ambiguous = self.missing, self.ambiguous
        notes = list(self.index.notes)
        if missing:
            count = sum(missing.values())
            notes.append(
                f"{_rows(count)} named no document and {_were(count)} dropped: {_listed(missing)}"
            )
        if ambiguous:
            count = sum(ambiguous.values())
            notes.append(
                f"{_rows(count)} named a file stem several documents share and {_were(count)} "
                f"dropped: {_listed(ambiguous)}"
            )
        return MatchResult(
            matched=matched,
            unmatched_rows=sum(missing.values()),
            ambiguous_rows=sum(ambiguous.values()),
            unmatched_docs=list(missing)[:_LISTED],
            ambiguous_docs=list(ambiguous)[:_LISTED],
            notes=notes,
        )


def match_rows(
    rows: Iterable[TripleRow],
    documents: Iterable[Document] | DocumentIndex,
    *,
    names: Mapping[str, str] | None = None,
) -> MatchResult:
    """Pair each row with the document its ``doc`` names; count and note the rest.

    ``unmatched_docs`` and ``ambiguous_docs`` list the first 20 distinct references.
    """
    index = (
        documents if isinstance(documents, DocumentIndex) else DocumentIndex(documents, names=names)
    )
    matcher = RowMatcher(index)
    matched: list[tuple[TripleRow, Document]] = []
    for row in rows:
        doc = matcher.document(row)
        if doc is not None:
            matched.append((row, doc))
    return matcher.result(matched)


def match_documents(
    rows: Iterable[TripleRow],
    documents: Iterable[Document],
    *,
    names: Mapping[str, str] | None = None,
) -> tuple[list[tuple[TripleRow, Document]], int, list[str]]:
    """``(matched, dropped, notes)``: each row with its document, rows dropped, notes to print."""
    result = match_rows(rows, documents, names=names)
    return result.matched, result.dropped, result.notes


def _rows(count: int) -> str:
    return f"{count} row" if count == 1 else f"{count} rows"


def _were(count: int) -> str:
    return "was" if count == 1 else "were"


def _listed(counts: dict[str, int]) -> str:
    shown = [f"'{ref}'" + (f" ({n})" if n > 1 else "") for ref, n in list(counts.items())[:_LISTED]]
    more = len(counts) - _LISTED
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
