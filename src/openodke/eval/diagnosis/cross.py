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

from openodke.eval.diagnosis.sentences import SentenceEvidence
from openodke.eval.diagnosis.texts import TextAnswers, sentences_naming
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.fold import key_parts
from openodke.eval.engine.joins import member, mix
from openodke.eval.engine.key_table import KeyTable, hashes_of
from openodke.eval.engine.match_key import fact_key
from openodke.eval.engine.matching import DUPLICATE
from openodke.types import normalise_value

__all__ = ["NONE", "CrossSentence"]

NONE = -1
"""An answer that cannot say (the others are 0, one sentence, and 1, spans sentences)."""
_BATCH = 1 << 16  # rows read in words at once: their facts are dropped after each batch


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
        places: dict[tuple[int, int], frozenset[int]] = {}
        for doc, keyed in mentions.items():
            for key, found in keyed.items():
                # A node is the key's whole or its rest (fold.end_names): wholes first.
                places[(hash(doc), key_parts(key)[0])] = found
            for key, found in keyed.items():
                places.setdefault((hash(doc), key_parts(key)[2]), found)
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
