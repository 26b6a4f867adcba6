"""Bucket 7's question for every gold fact at once: does its evidence span sentences?

The rules and their order are in :mod:`openodke.eval.diagnosis.sentences`. Every gold fact is
answered in one pass (the same-sentence recall the ``wider-context`` fix uses needs the hits'
answers too). The dataset's evidence is looked up by hash. For the text, each (document, end) is
looked up once: where every gold row of a document names its ends the same way, the ends are
looked up together, a few rows read in words at a time; a document whose rows name one end in
two ways is read row by row, the first row to ask about an end deciding its names, as it always
was.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from openodke.eval.diagnosis.names import key_string
from openodke.eval.diagnosis.sentences import MARK, SentenceEvidence, TextIndex
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import first_of_each, member, mix
from openodke.eval.engine.key_table import KeyTable, hashes_of
from openodke.eval.engine.matching import DUPLICATE
from openodke.types import normalise_value

__all__ = ["NONE", "CrossSentence"]

NONE = -1
"""An answer that cannot say (the others are 0, one sentence, and 1, spans sentences)."""
_BATCH = 1 << 16  # rows read in words at once: their facts are dropped after each batch


def _ids(ids: frozenset[int]) -> str:
    shown = sorted(ids)
    return ", ".join(map(str, shown[:3])) + (", ..." if len(shown) > 3 else "")


def _sentences(text: str, keys: tuple[str, ...]) -> set[int]:
    """The sentences of an indexed text that name any of ``keys`` (whole words)."""
    found: set[int] = set()
    for key in keys:
        needle = f" {key} "
        at = text.find(needle)
        while at >= 0:
            found.add(text.count(MARK, 0, at))  # the sentence: the marks before it
            at = text.find(needle, at + 1)
    return found


def _object_node(fact: Any) -> str:
    """The object as the evidence's mentions are keyed: an entity's key, a literal's node id."""
    if fact.object_entity is not None:
        return str(fact.object_entity.key)
    return "L" + normalise_value(fact.object_value)


class CrossSentence:
    """Each gold fact's answer: 1 (spans sentences), 0 (one sentence), -1 (cannot say)."""

    def __init__(
        self, view: DiagnosisView, evidence: SentenceEvidence | None, texts: dict[str, str]
    ) -> None:
        self.view, self.evidence, self.texts = view, evidence, texts
        self.measured = evidence is not None or bool(texts)
        self._answers: np.ndarray | None = None
        self._indexed: dict[str, str] = {}

    def answers(self) -> np.ndarray:
        """Every gold fact's answer, in gold order (-1 for repeats)."""
        if self._answers is None:
            g = self.view.gold
            todo = self.view.score.matching.gold_status != DUPLICATE
            out = np.full(len(g), NONE, dtype=np.int8)
            if self.evidence is not None:
                self._from_evidence(self.evidence, todo, out)
            if self.texts:
                self._from_texts(todo, out)
            self._answers = out
        return self._answers

    # --- the dataset's evidence ------------------------------------------------------------

    def _from_evidence(self, evidence: SentenceEvidence, todo: np.ndarray, out: np.ndarray) -> None:
        g = self.view.gold
        docs = g.docs.hashes
        if evidence.facts:
            items = list(evidence.facts.items())
            codes = mix(
                hashes_of([doc for (doc, _), _ in items]),
                KeyTable.of([key for (_, key), _ in items]).key,
            )
            listed = dict(zip(codes.tolist(), (ids for _, ids in items), strict=True))
            row_codes = mix(docs, g.keys.key)
            for i in np.flatnonzero(todo & member(row_codes, codes)).tolist():
                ids = listed[int(row_codes[i])]
                if ids:
                    out[i] = len(set(ids)) > 1
                    todo[i] = False
        if evidence.mentions:
            self._from_mentions(evidence.mentions, todo, out)
        if evidence.one_sentence:
            out[todo] = 0
            todo[:] = False

    def _from_mentions(
        self, mentions: dict[str, dict[str, frozenset[int]]], todo: np.ndarray, out: np.ndarray
    ) -> None:
        g, ends = self.view.gold, self.view.gold_ends
        places = {
            (hash(doc), hash(key)): found
            for doc, keyed in mentions.items()
            for key, found in keyed.items()
        }
        docs = g.docs.hashes
        named = member(docs, hashes_of(list(mentions)))
        for i in np.flatnonzero(todo & named).tolist():
            a = places.get((int(docs[i]), int(g.subject_node[i])))
            if not a:
                continue
            if g.keys.literal[i]:
                b = places.get((int(docs[i]), hash(_object_node(ends.fact(i)))))
            else:
                b = places.get((int(docs[i]), int(g.object_node[i])))
            if b:
                out[i] = not (a & b)
                todo[i] = False

    # --- the text ----------------------------------------------------------------------------

    def _text(self, doc_id: str) -> str:
        found = self._indexed.get(doc_id)
        if found is None:
            found = self._indexed[doc_id] = TextIndex(self.texts[doc_id]).text
        return found

    def _from_texts(self, todo: np.ndarray, out: np.ndarray) -> None:
        g = self.view.gold
        names = g.docs.names
        with_text = np.fromiter(
            (names[h] in self.texts for h in names), dtype=bool, count=len(names)
        )
        known = np.fromiter(names, np.int64, len(names))[with_text]
        rows = np.flatnonzero(todo & member(g.docs.hashes, known))
        if not len(rows):
            return
        docs = g.docs.hashes[rows]
        s_codes, o_codes = mix(docs, g.subject_node[rows]), mix(docs, g.object_node[rows])
        ends = np.concatenate([s_codes, o_codes])
        named = np.concatenate([g.subject_names[rows], g.object_names[rows]])
        order = np.lexsort((named, ends))
        e, n = ends[order], named[order]
        twice = e[1:][(e[1:] == e[:-1]) & (n[1:] != n[:-1])]  # an end named two ways
        mixed = np.zeros(len(rows), dtype=bool)
        if len(twice):
            doubtful = member(s_codes, twice) | member(o_codes, twice)
            mixed = member(docs, docs[doubtful])
        self._together(rows[~mixed], out)
        self._in_order(rows[mixed], out)

    def _lookup(self, rows: np.ndarray, subject: bool) -> dict[int, set[int]]:
        """Each distinct (document, end) of ``rows`` that some sentence names: those sentences
        (an end named nowhere is left out)."""
        g, ends = self.view.gold, self.view.gold_ends
        node = g.subject_node if subject else g.object_node
        codes = mix(g.docs.hashes[rows], node[rows])
        order = np.argsort(codes, kind="stable")
        starts = first_of_each(codes[order])
        firsts, first_codes = rows[order][starts], codes[order][starts]
        in_file = np.argsort(firsts)  # read in file order
        firsts, first_codes = firsts[in_file], first_codes[in_file]
        doc_hashes = g.docs.hashes[firsts]
        names = g.docs.names
        found: dict[int, set[int]] = {}
        for start in range(0, len(firsts), _BATCH):
            stop = start + _BATCH
            batch = firsts[start:stop].tolist()
            ends.load(batch)
            for i, code, doc in zip(
                batch,
                first_codes[start:stop].tolist(),
                doc_hashes[start:stop].tolist(),
                strict=True,
            ):
                sentences = _sentences(self._text(names[doc]), ends.keys(i, subject))
                if sentences:
                    found[code] = sentences
            ends.forget()
        return found

    def _together(self, rows: np.ndarray, out: np.ndarray) -> None:
        """Rows of documents whose ends are named one way: each (document, end) looked up once."""
        if not len(rows):
            return
        g = self.view.gold
        docs = g.docs.hashes
        a = self._lookup(rows, True)
        if not a:
            return
        s_codes = mix(docs[rows], g.subject_node[rows])
        named = rows[member(s_codes, np.fromiter(a, np.int64, len(a)))]
        b = self._lookup(named, False)
        if not b:
            return
        s_named = mix(docs[named], g.subject_node[named]).tolist()
        o_named = mix(docs[named], g.object_node[named]).tolist()
        for i, sc, oc in zip(named.tolist(), s_named, o_named, strict=True):
            found = b.get(oc)
            if found:
                out[i] = a[sc].isdisjoint(found)

    def _in_order(self, rows: np.ndarray, out: np.ndarray) -> None:
        """Rows of documents that name an end two ways, one by one in gold order."""
        g, ends = self.view.gold, self.view.gold_ends
        names = g.docs.names
        places: dict[tuple[int, int], set[int]] = {}
        for i in rows.tolist():
            doc = int(g.docs.hashes[i])
            text = self._text(names[doc])
            s, o = int(g.subject_node[i]), int(g.object_node[i])
            a = places.get((doc, s))
            if a is None:
                a = places[(doc, s)] = _sentences(text, ends.keys(i, True))
            if not a:
                continue
            b = places.get((doc, o))
            if b is None:
                b = places[(doc, o)] = _sentences(text, ends.keys(i, False))
            if b:
                out[i] = a.isdisjoint(b)

    def reason(self, i: int) -> str:
        """Why gold fact ``i`` counts as cross-sentence, in words."""
        g, ends = self.view.gold, self.view.gold_ends
        doc_id = g.docs.names[int(g.docs.hashes[i])]
        if self.evidence is not None:
            fact = ends.fact(i)
            ids = self.evidence.facts.get((doc_id, key_string(fact)))
            if ids:
                return "evidence in sentences " + ", ".join(map(str, sorted(set(ids))))
            places = self.evidence.mentions.get(doc_id, {})
            target = fact.object_entity
            obj = target.key if target is not None else normalise_value(fact.object_value)
            a, b = places.get(fact.subject.key), places.get(obj)
            if a and b:
                return f"mentioned in sentences {_ids(a)} and {_ids(b)}, never together"
        return "no sentence names both ends"
