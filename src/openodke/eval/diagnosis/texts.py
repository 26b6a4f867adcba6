"""What the texts say of each gold fact, row by row: are its ends named in one sentence?

:class:`TextAnswers` answers a block of gold rows from their own names (the rule is in
:mod:`~openodke.eval.diagnosis.sentences`): 1 both ends are named, never in one sentence; 0 some
sentence names both; -1 the text cannot say. It runs where the rows are at hand: in the loader's
workers as they read a large file (so a million rows are not read twice), or over the Facts the
Python API was given. Where a document's rows name an end in two ways, the diagnosis asks again
row by row, in order (:mod:`~openodke.eval.diagnosis.cross`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from openodke.doc_ids import DocIds
from openodke.eval.diagnosis.sentences import MARK, TextIndex, bare_key, name_key

__all__ = ["TextAnswers", "fast_name_keys", "sentences_naming"]

_LITERALS = (str, int, float, bool)
_KEYS_KEPT = 1 << 17  # name keys remembered per process before the memo starts again


def sentences_naming(text: str, keys: tuple[str, ...]) -> set[int]:
    """The sentences of an indexed text (``TextIndex.text``) that name any of ``keys``."""
    found: set[int] = set()
    for key in keys:
        needle = f" {key} "
        at = text.find(needle)
        while at >= 0:
            found.add(text.count(MARK, 0, at))  # the sentence: the marks before it
            at = text.find(needle, at + 1)
    return found


def fast_name_keys(end: Any) -> tuple[str, ...]:
    """:func:`~openodke.eval.diagnosis.names.name_keys`, with short ways for the common ends."""
    if isinstance(end, _LITERALS):
        key = name_key(str(end))
        return (key,) if key else ()
    label, aliases = end.label, end.aliases
    if not aliases and not label:
        key, kind = end.key, end.type
        head, sep, tail = key.partition(":")
        second = tail if sep and tail.strip() and head.casefold() == kind.casefold() else key
        found = bare_key(second)
        return (found,) if found else ()
    from openodke.eval.diagnosis.names import name_keys

    return name_keys(end)


class TextAnswers:
    """The documents' texts, indexed when first needed, and the rule applied to rows."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = dict(texts)
        self._ids: DocIds | None = None  # the documents' ids, for a name none of them is
        self._unjoined: set[str] = set()
        self._indexed: dict[str, str | None] = {}
        self._lower: dict[str, str | None] = {}
        self._keys: dict[int, tuple[str, ...]] = {}

    def has(self, doc_id: str) -> bool:
        """Whether ``doc_id`` has a text: its own, else that of the one document its file stem
        names (:func:`openodke.doc_ids.under_names`), kept under ``doc_id`` from then on."""
        if doc_id in self.texts:
            return True
        if doc_id in self._unjoined or not self.texts:
            return False
        if self._ids is None:
            self._ids = DocIds(self.texts)
        found = self._ids.by_stem(doc_id)
        if found is None:
            self._unjoined.add(doc_id)
            return False
        self.texts[doc_id] = self.texts[self._ids.names[found]]
        return True

    def join(self, doc_ids: Iterable[str]) -> None:
        """Key the texts also by each of ``doc_ids`` that names a document by file stem."""
        for doc_id in doc_ids:
            self.has(doc_id)

    def indexed(self, doc_id: str) -> str | None:
        """The document's indexed text (``TextIndex.text``); None when it has none."""
        found = self._indexed.get(doc_id, "")
        if found == "":
            raw = self.texts.get(doc_id)
            found = self._indexed[doc_id] = None if raw is None else TextIndex(raw).text
        return found

    def _low(self, doc_id: str) -> str | None:
        """The text case-folded when it is ASCII (None: not ASCII, so nothing is passed over)."""
        low = self._lower.get(doc_id, "")
        if low == "":
            raw = self.texts[doc_id]
            low = self._lower[doc_id] = raw.casefold() if raw.isascii() else None
        return low

    def _keys_of(self, names: int, end: Any) -> tuple[str, ...]:
        found = self._keys.get(names)
        if found is None:
            if len(self._keys) >= _KEYS_KEPT:
                self._keys.clear()
            found = self._keys[names] = fast_name_keys(end)
        return found

    def _naming(self, doc_id: str, names: int, end: Any) -> set[int]:
        """The sentences of a document that name an end.

        A key whose words are not all in an ASCII text (case-folded) cannot be in its index,
        whose words are runs of its letters and digits: such keys are passed over without
        indexing the text (most ends of a large run are named in no text of theirs).
        """
        low = self._low(doc_id)
        keys = self._keys_of(names, end)
        if low is not None:
            keys = tuple(
                k
                for k in keys
                if (k in low if " " not in k else all(w in low for w in k.split(" "))) or MARK in k
            )
            if not keys:
                return set()
        text = self.indexed(doc_id)
        return sentences_naming(text, keys) if text is not None else set()

    def block(
        self,
        facts: Sequence[Any],
        docs: Sequence[str],
        nodes: tuple[np.ndarray, np.ndarray],
        names: tuple[np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """The answer for each of ``facts`` (in ``docs``), each end known by its node and
        names hashes (the columns')."""
        out = np.full(len(facts), -1, dtype=np.int8)
        places: dict[tuple[str, int], set[int]] = {}
        texts, naming, has = self.texts, self._naming, self.has
        rows = zip(
            facts,
            docs,
            nodes[0].tolist(),
            nodes[1].tolist(),
            names[0].tolist(),
            names[1].tolist(),
            strict=True,
        )
        lower = self._lower
        for i, (fact, doc, s, o, s_names, o_names) in enumerate(rows):
            if doc not in texts and not has(doc):
                continue
            a = places.get((doc, s))
            if a is None:
                # The common gold row, inlined (``_simple_key`` and the first test of
                # ``_naming``): a one-word name absent from an ASCII text names nothing.
                subject = fact.subject
                low = lower.get(doc, "")
                if low and not subject.label and not subject.aliases:
                    head, sep, tail = subject.key.partition(":")
                    if sep and head.casefold() == subject.type.casefold() and tail.strip():
                        second = tail
                    else:
                        second = subject.key
                    if second.isalnum() and second.isascii() and second.casefold() not in low:
                        continue
                a = naming(doc, s_names, subject)
                if a:
                    places[(doc, s)] = a
            if not a:
                continue
            b = places.get((doc, o))
            if b is None:
                target = fact.object_entity
                b = naming(doc, o_names, target if target is not None else fact.object_value)
                if b:
                    places[(doc, o)] = b
            if b:
                out[i] = a.isdisjoint(b)
        return out
