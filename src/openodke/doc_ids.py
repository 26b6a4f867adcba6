"""Which document an id names: the same id, else the one document with the same file stem.

Labels, predictions, ``--documents`` and other systems' rows name documents their own ways
(``d0``, ``d0.txt``, ``texts/d0.txt``, ``D0.TXT``). One rule joins them everywhere (surface.md
section 9 and "Harness matching"): an id names the document with that id; else the one document
whose id is the same in another letter case; else the one document whose file stem is the id, or
the id's stem (:func:`source_stem`: folder, ``#L<line>``/``~n`` and suffix dropped), in that
letter case, else in any.
A stem that several documents share joins none of them. An id naming a record (``r.csv#L2``)
joins by stem only a document naming the same record, never a sibling record of its file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import TypeVar

__all__ = ["DocIds", "StemIndex", "join_ids", "source_stem", "under_names"]

_RECORD_SUFFIX = re.compile(r"(#L\d+)?(~\d+)?$")
_T = TypeVar("_T")


def source_stem(reference: str) -> str:
    """A source path's stem: folder, ``#L<line>``/``~n`` and suffix dropped (``a/b.txt`` -> ``b``).

    The name is the last part that is not empty or ``.``, as ``PurePosixPath(path).name``; its
    stem drops what follows its last dot, unless the dot leads or ends it (``.env``, ``a.``).
    """
    path = reference.replace("\\", "/") if "\\" in reference else reference
    if "#" in path or "~" in path:
        path = _RECORD_SUFFIX.sub("", path)
    name = path.rpartition("/")[2]
    if not name or name == ".":
        name = next((part for part in reversed(path.split("/")) if part not in ("", ".")), "")
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def _record(reference: str) -> str:
    """The record part of an id (``#L2``, ``~2``, ``#L2~2``), or ``""``."""
    if "#" not in reference and "~" not in reference:
        return ""
    found = _RECORD_SUFFIX.search(reference)
    return found.group(0) if found else ""


class StemIndex:
    """Documents (numbered by the caller) by the file stems of the paths that name them."""

    def __init__(self, paths: Iterable[tuple[str, int]] = ()) -> None:
        self._by_stem: dict[str, list[int]] = {}
        self._records: dict[int, set[str]] = {}  # the records a document's paths name
        by_stem, stem_of = self._by_stem, source_stem
        for path, document in paths:  # add(), inline: indexes are built of 10^5 ids at once
            stem = stem_of(path)
            if not stem:
                continue
            group = by_stem.get(stem)
            if group is None:
                by_stem[stem] = [document]
            elif document not in group:
                group.append(document)
            if "#" in path or "~" in path:
                self._add_record(path, document)

    def _add_record(self, path: str, document: int) -> None:
        record = _record(path)
        if record:
            self._records.setdefault(document, set()).add(record)

    def add(self, path: str, document: int) -> None:
        """``path`` (an id or a uri) names document number ``document``."""
        stem = source_stem(path)
        if not stem:
            return
        group = self._by_stem.setdefault(stem, [])
        if document not in group:
            group.append(document)
        self._add_record(path, document)

    def candidates(self, reference: str) -> list[int]:
        """The documents ``reference`` may name by stem, in the order they were added: those whose
        stem is ``reference`` itself, else its stem; one naming a record keeps that record's."""
        group = self._by_stem.get(reference) or self._by_stem.get(source_stem(reference))
        if not group:
            return []
        record = _record(reference)
        if record:
            return [d for d in group if record in self._records.get(d, ())]
        return list(group)

    def resolve(self, reference: str) -> int | None:
        """The one document ``reference``'s stem names; None when none or several do."""
        group = self._by_stem.get(reference) or self._by_stem.get(source_stem(reference))
        if not group:
            return None
        if "#" in reference or "~" in reference:
            group = self.candidates(reference)
        return group[0] if len(group) == 1 else None


class DocIds:
    """Labelled documents, one name each, and the other ids joined to them (``aliases``).

    :meth:`find` gives the document another id names: by id (a name or an alias), else by
    unique stem. The stems are indexed when first needed, so ids that all match cost nothing.
    """

    def __init__(self, names: Iterable[str], aliases: Mapping[str, int] | None = None) -> None:
        self.names: list[str] = list(dict.fromkeys(names))
        self.aliases: dict[str, int] = dict(aliases or {})
        self._index = {name: d for d, name in enumerate(self.names)}
        for alias, d in self.aliases.items():
            self._index.setdefault(alias, d)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._index

    @cached_property
    def _stems(self) -> StemIndex:
        return StemIndex(self._index.items())

    def exact(self, doc_id: str) -> int | None:
        """The document named ``doc_id`` or joined to it; None when none is."""
        return self._index.get(doc_id)

    @cached_property
    def _folded(self) -> dict[str, int | None]:
        """Each id case-folded → its document (None: ids of two documents fold alike)."""
        out: dict[str, int | None] = {}
        for name, d in self._index.items():
            if out.setdefault(name.casefold(), d) != d:
                out[name.casefold()] = None
        return out

    @cached_property
    def _folded_stems(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for name, d in self._index.items():
            stem = source_stem(name).casefold()
            group = out.setdefault(stem, []) if stem else []
            if stem and d not in group:
                group.append(d)
        return out

    def by_stem(self, reference: str) -> int | None:
        """The one document ``reference`` names other than by its exact id: by id in another
        letter case, else by file stem, else by file stem in another letter case; None when
        none or several do."""
        if not self.names:
            return None
        found = self._folded.get(reference.casefold())
        if found is not None:
            return found
        found = self._stems.resolve(reference)
        if found is not None or "#" in reference or "~" in reference:
            return found
        stems = self._folded_stems
        group = stems.get(reference.casefold()) or stems.get(source_stem(reference).casefold())
        return group[0] if group is not None and len(group) == 1 else None

    def find(self, reference: str) -> int | None:
        """The document ``reference`` names: by id, else by unique stem; None when none does."""
        found = self._index.get(reference)
        return found if found is not None else self.by_stem(reference)

    @property
    def joined(self) -> list[tuple[str, str]]:
        """``(name, alias)`` for every id joined to a document by its stem."""
        return [(self.names[d], alias) for alias, d in self.aliases.items()]


def join_ids(gold: Sequence[str], others: Iterable[str] | DocIds) -> DocIds:
    """The labelled documents: ``gold``'s ids, then ``others``' (``--documents``') ids that are not
    the same document as one of them.

    An id of ``others`` that no gold id equals joins the gold id that equals no id of ``others``
    when each is the other's only match by stem (``d0`` and ``d0.txt``); that gold id keeps its
    name. ``others`` may be a :class:`DocIds` made by this function for the same gold ids: it is
    then used as it is.
    """
    if isinstance(others, DocIds):
        missing = [g for g in dict.fromkeys(gold) if g not in others]
        if not missing:
            return others
        return DocIds([*others.names, *missing], others.aliases)
    gold_ids = list(dict.fromkeys(gold))
    other_ids = list(dict.fromkeys(others))
    known, given = set(gold_ids), set(other_ids)
    extra = [d for d in other_ids if d not in known]
    aliases: dict[str, int] = {}
    # the gold ids no other id equals: indexed only when some other id is not a gold one
    unpaired = DocIds(g for g in gold_ids if g not in given) if extra else DocIds(())
    if extra and unpaired.names:
        extras = DocIds(extra)
        position = {g: d for d, g in enumerate(gold_ids)}
        for e, doc_id in enumerate(extra):
            g = unpaired.by_stem(doc_id)
            if g is not None and extras.by_stem(unpaired.names[g]) == e:
                aliases[doc_id] = position[unpaired.names[g]]
    return DocIds([*gold_ids, *(d for d in extra if d not in aliases)], aliases)


def under_names(by_id: Mapping[str, _T], names: Iterable[str]) -> dict[str, _T]:
    """``by_id`` (keyed by document id), also keyed by each of ``names`` that is none of its ids
    but names one by unique file stem: a document's text under the name the labels give it."""
    out = dict(by_id)
    missing = [name for name in names if name not in out]
    if missing and out:
        ids = DocIds(by_id)
        for name in missing:
            found = ids.by_stem(name)
            if found is not None:
                out[name] = by_id[ids.names[found]]
    return out
