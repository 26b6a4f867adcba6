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

from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from openodke.eval.diagnosis.sentences import SentenceEvidence
from openodke.eval.diagnosis.texts import TextAnswers, sentences_naming
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.fold import key_parts
from openodke.eval.engine.joins import member, mix, search
from openodke.eval.engine.key_table import KeyTable, hashes_of
from openodke.eval.engine.match_key import fact_key
from openodke.eval.engine.matching import DUPLICATE
from openodke.forms import normalise_value

__all__ = ["NONE", "CrossSentence"]

NONE = -1
"""An answer that cannot say (the others are 0, one sentence, and 1, spans sentences)."""
_BATCH = 1 << 16  # rows read in words at once: their facts are dropped after each batch


def _lookup(keys: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per code, the index of the last equal key (as a dict built from ``keys`` keeps), or -1."""
    if not len(keys):
        return np.full(len(codes), -1, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    last = np.ones(len(ordered), dtype=bool)
    last[:-1] = ordered[1:] != ordered[:-1]
    ordered, order = ordered[last], order[last]
    at = np.minimum(search(ordered, codes), len(ordered) - 1)
    return np.where(ordered[at] == codes, order[at], -1)


def _ids(ids: frozenset[int]) -> str:
    shown = sorted(ids)
    return ", ".join(map(str, shown[:3])) + (", ..." if len(shown) > 3 else "")


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
        self._texts = TextAnswers(texts)

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
            listed = list(evidence.facts)
            ids = list(evidence.facts.values())
            codes = mix(
                hashes_of(list(map(itemgetter(0), listed))),
                KeyTable.of(list(map(itemgetter(1), listed))).key,
            )
            some = np.fromiter(map(len, ids), np.int64, len(ids)) > 0
            spans = np.fromiter(map(len, map(set, ids)), np.int64, len(ids)) > 1
            rows = np.flatnonzero(todo)
            item = _lookup(codes, mix(docs[rows], g.keys.key[rows]))
            take = item >= 0
            take[take] = some[item[take]]
            out[rows[take]] = spans[item[take]]
            todo[rows[take]] = False
        if evidence.mentions:
            self._from_mentions(evidence.mentions, todo, out)
        if evidence.one_sentence:
            out[todo] = 0
            todo[:] = False

    def _from_mentions(
        self, mentions: dict[str, dict[str, frozenset[int]]], todo: np.ndarray, out: np.ndarray
    ) -> None:
        g = self.view.gold
        places: dict[tuple[int, int], frozenset[int]] = {}
        for doc, keyed in mentions.items():
            for key, found in keyed.items():
                # A node is the key's whole or its rest (fold.end_names): wholes first.
                places[(hash(doc), key_parts(key)[0])] = found
            for key, found in keyed.items():
                places.setdefault((hash(doc), key_parts(key)[2]), found)
        docs = g.docs.hashes
        named = member(docs, hashes_of(list(mentions)))
        # Places are keyed by folded names, which hold no capital: a literal object's
        # ("L" + its value) is never one, so literal rows are never answered here.
        rows = np.flatnonzero(todo & named & ~g.keys.literal)
        if not len(rows) or not places:
            return
        pairs = np.array(list(places), dtype=np.int64).reshape(-1, 2)
        sets = list(places.values())
        size = np.fromiter(map(len, sets), np.int64, len(sets))
        # (place, sentence) for every sentence a place is mentioned in, sorted
        table = np.sort(
            mix(
                np.repeat(np.arange(len(sets), dtype=np.int64), size),
                np.fromiter(chain.from_iterable(sets), np.int64, int(size.sum())),
            )
        )
        codes = mix(pairs[:, 0], pairs[:, 1])
        a = _lookup(codes, mix(docs[rows], g.subject_node[rows]))
        b = _lookup(codes, mix(docs[rows], g.object_node[rows]))
        ok = (a >= 0) & (b >= 0)
        ok[ok] = (size[a[ok]] > 0) & (size[b[ok]] > 0)
        rows, a, b = rows[ok], a[ok], b[ok]
        # each row's subject sentences, looked up among its object's
        starts = np.zeros(len(size), dtype=np.int64)
        np.cumsum(size[:-1], out=starts[1:])
        row = np.repeat(np.arange(len(rows), dtype=np.int64), size[a])
        first = np.zeros(len(rows), dtype=np.int64)
        np.cumsum(size[a][:-1], out=first[1:])
        sentence = np.fromiter(chain.from_iterable(sets), np.int64, int(size.sum()))
        at = starts[a][row] + np.arange(len(row), dtype=np.int64) - first[row]
        shared = member(mix(b[row], sentence[at]), table)
        together = np.zeros(len(rows), dtype=bool)
        together[row[shared]] = True
        out[rows] = ~together
        todo[rows] = False

    # --- the text ----------------------------------------------------------------------------

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

    def _together(self, rows: np.ndarray, out: np.ndarray) -> None:
        """Rows of documents whose ends are named one way: each by its own names, as the loader
        answered them when it was given these texts, else read now a batch at a time."""
        if not len(rows):
            return
        g = self.view.gold
        if g.answers is not None and g.answered_from is not None and g.answered_from == self.texts:
            out[rows] = g.answers[rows]
            return
        names = g.docs.names
        for start in range(0, len(rows), _BATCH):
            batch = rows[start : start + _BATCH]
            out[batch] = self._texts.block(
                g.rows.fetch(batch.tolist()),
                [names[h] for h in g.docs.hashes[batch].tolist()],
                (g.subject_node[batch], g.object_node[batch]),
                (g.subject_names[batch], g.object_names[batch]),
            )

    def _in_order(self, rows: np.ndarray, out: np.ndarray) -> None:
        """Rows of documents that name an end two ways, one by one in gold order."""
        g, ends = self.view.gold, self.view.gold_ends
        names = g.docs.names
        places: dict[tuple[int, int], set[int]] = {}
        for i in rows.tolist():
            doc = int(g.docs.hashes[i])
            text = self._texts.indexed(names[doc])
            if text is None:
                continue
            s, o = int(g.subject_node[i]), int(g.object_node[i])
            a = places.get((doc, s))
            if a is None:
                a = places[(doc, s)] = sentences_naming(text, ends.keys(i, True))
            if not a:
                continue
            b = places.get((doc, o))
            if b is None:
                b = places[(doc, o)] = sentences_naming(text, ends.keys(i, False))
            if b:
                out[i] = a.isdisjoint(b)

    def reason(self, i: int) -> str:
        """Why gold fact ``i`` counts as cross-sentence, in words."""
        g, ends = self.view.gold, self.view.gold_ends
        doc_id = g.docs.names[int(g.docs.hashes[i])]
        if self.evidence is not None:
            fact = ends.fact(i)
            ids = self.evidence.facts.get((doc_id, fact_key(fact)))
            if ids:
                return "evidence in sentences " + ", ".join(map(str, sorted(set(ids))))
            places = self.evidence.mentions.get(doc_id, {})
            target = fact.object_entity
            obj = target.key if target is not None else normalise_value(fact.object_value)
            a, b = places.get(fact.subject.key), places.get(obj)
            if a and b:
                return f"mentioned in sentences {_ids(a)} and {_ids(b)}, never together"
        return "no sentence names both ends"
