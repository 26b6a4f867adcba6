"""Bucket 7's question for every gold fact at once: does its evidence span sentences?

The rules and their order are in :mod:`openodke.eval.diagnosis.sentences`. Every gold fact is
answered in one pass (the same-sentence recall the ``wider-context`` fix uses needs the hits'
answers too), each document's text indexed once and each end's sentences found once per document.
The text lookups are inlined here: this loop runs once per gold fact and dominates a large run.
"""

from __future__ import annotations

from openodke.eval.diagnosis.sentences import MARK, SentenceEvidence, TextIndex
from openodke.eval.diagnosis.view import DiagnosisView, name_keys
from openodke.eval.engine.matching import DUPLICATE

__all__ = ["CrossSentence"]


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


class CrossSentence:
    """Each gold fact's answer: True (spans sentences), False (one sentence), None (cannot say)."""

    def __init__(
        self, view: DiagnosisView, evidence: SentenceEvidence | None, texts: dict[str, str]
    ) -> None:
        self.view, self.evidence, self.texts = view, evidence, texts
        self.measured = evidence is not None or bool(texts)
        self._answers: list[bool | None] | None = None

    def __call__(self, i: int) -> bool | None:
        """Gold fact ``i``'s answer."""
        if self._answers is None:
            self._answers = self.answers()
        return self._answers[i]

    def answers(self) -> list[bool | None]:
        """Every gold fact's answer, in gold order (None for repeats)."""
        if self._answers is not None:
            return self._answers
        g = self.view.gold
        status = self.view.score.matching.gold_status.tolist()
        evidence, texts = self.evidence, self.texts
        answers: list[bool | None] = [None] * len(status)
        indexed: dict[str, str | None] = {}
        places: dict[tuple[str, str], set[int]] = {}
        subject_ends, object_ends = g.subject_names.ends, g.object_names.ends
        docs, subjects, objects, keys = g.docs, g.subject, g.obj, g.key
        for i, st in enumerate(status):
            if st == DUPLICATE:
                continue
            doc_id = docs[i][0]
            s, o = subjects[i], objects[i]
            if evidence is not None:
                found = evidence.cross(doc_id, keys[i], s[1:], o[1:] if o[0] == "E" else o)
                if found is not None:
                    answers[i] = found
                    continue
            if doc_id in indexed:
                text = indexed[doc_id]
            else:
                raw = texts.get(doc_id)
                text = indexed[doc_id] = None if raw is None else TextIndex(raw).text
            if text is None:
                continue
            a = places.get((doc_id, s))
            if a is None:
                a = places[(doc_id, s)] = _sentences(text, name_keys(subject_ends[i]))
            if not a:
                continue
            b = places.get((doc_id, o))
            if b is None:
                b = places[(doc_id, o)] = _sentences(text, name_keys(object_ends[i]))
            if b:
                answers[i] = a.isdisjoint(b)
        self._answers = answers
        return answers

    def reason(self, i: int) -> str:
        """Why gold fact ``i`` counts as cross-sentence, in words."""
        g = self.view.gold
        doc_id = g.docs[i][0]
        if self.evidence is not None:
            ids = self.evidence.facts.get((doc_id, g.key[i]))
            if ids:
                return "evidence in sentences " + ", ".join(map(str, sorted(set(ids))))
            places = self.evidence.mentions.get(doc_id, {})
            a, b = places.get(g.subject[i][1:]), places.get(g.obj[i][1:])
            if a and b:
                return f"mentioned in sentences {_ids(a)} and {_ids(b)}, never together"
        return "no sentence names both ends"
