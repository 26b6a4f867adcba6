"""Does a gold fact's evidence span sentences? The dataset's word first, else the text's.

Order of sources, per gold fact (DECISIONS #38's "cross-sentence" bucket):

1. the dataset's evidence sentence ids for the fact, when it lists any: it spans sentences when it
   lists two or more distinct ones;
2. the dataset's mention positions, when both ends have some: it spans sentences when no sentence
   mentions both ends (the minimum sentence distance between a head and a tail mention is 1 or
   more, as Re-DocRED's own scorer reckons it; benchmarks.md);
3. a set whose documents are single sentences (Text2KGBench): never;
4. the text: split into sentences, it spans sentences when each end is named somewhere but no one
   sentence names both. Names match as whole words with case, accents and punctuation ignored.
   When an end is named nowhere the text cannot say (None), and the miss is not put here.

The text rule is a simplification of the span locator's (surface.md): it does not insist that a
capitalised name appear capitalised, and it does not read dates by value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "SentenceEvidence",
    "TextIndex",
    "evidence_from_bench",
    "evidence_from_redocred",
    "name_key",
    "split_sentences",
]

_NON_WORD = re.compile(r"[\W_]+")
# A sentence ends at . ! or ? (with closing quotes or brackets) before whitespace and a capital,
# digit or opening quote; or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9À-Þ])|\n+")


@lru_cache(maxsize=1 << 18)
def name_key(name: str) -> str:
    """A name's matching form: accents stripped, case-folded, punctuation as spaces, collapsed."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_NON_WORD.sub(" ", bare.casefold()).split())


def split_sentences(text: str) -> list[str]:
    """The text cut into sentences (at . ! ? before a capital or digit, and at line breaks)."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


class TextIndex:
    """One document's sentences, indexed by word, for whole-word name lookups."""

    def __init__(self, text: str) -> None:
        self.sentences = [f" {name_key(s)} " for s in split_sentences(text)]
        self.words: dict[str, set[int]] = {}
        for number, sentence in enumerate(self.sentences):
            for word in sentence.split():
                self.words.setdefault(word, set()).add(number)
        self._found: dict[str, frozenset[int]] = {}

    def naming(self, name: str) -> frozenset[int]:
        """The sentences that name ``name`` as whole words (empty: named nowhere)."""
        cached = self._found.get(name)
        if cached is not None:
            return cached
        key = name_key(name)
        words = key.split()
        found: frozenset[int] = frozenset()
        if words:
            candidates = min((self.words.get(w, set()) for w in words), key=len)
            needle = f" {key} "
            found = frozenset(n for n in candidates if needle in self.sentences[n])
        self._found[name] = found
        return found

    def cross(self, subject: Iterable[str], obj: Iterable[str]) -> bool | None:
        """True: both ends named, never in one sentence; False: one sentence names both; None."""
        a = frozenset().union(*(self.naming(n) for n in subject))
        b = frozenset().union(*(self.naming(n) for n in obj))
        if not a or not b:
            return None
        return not (a & b)


@dataclass
class SentenceEvidence:
    """What the dataset says about sentences: evidence ids per gold fact, mentions per entity.

    ``facts`` maps ``(doc_id, gold key)`` (the encoded match key, ``matching.fact_key``) to the
    fact's evidence sentence ids; ``mentions`` maps a document to entity key -> the sentence ids
    it is mentioned in; ``one_sentence`` says every document is a single sentence.
    """

    facts: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)
    mentions: dict[str, dict[str, frozenset[int]]] = field(default_factory=dict)
    one_sentence: bool = False

    def cross(self, doc_id: str, key: str, subject: str, obj: str) -> bool | None:
        """Rules 1-3 of the module docstring for one gold fact; None when the dataset cannot say.

        ``subject`` and ``obj`` are entity keys (without the node's ``E`` prefix).
        """
        ids = self.facts.get((doc_id, key))
        if ids:
            return len(set(ids)) > 1
        places = self.mentions.get(doc_id)
        if places is not None:
            a, b = places.get(subject), places.get(obj)
            if a and b:
                return not (a & b)
        if self.one_sentence:
            return False
        return None


def evidence_from_redocred(
    rows: Iterable[Mapping[str, Any]], relation_names: Mapping[str, str]
) -> SentenceEvidence:
    """Evidence ids and mention sentences from Re-DocRED documents (a bench set's gold rows).

    ``rows`` are the dataset's documents with an ``"id"`` (gold.jsonl), ``relation_names`` the
    Wikidata id -> label map (``rel_info.json``). Keys follow ``openodke.bench.redocred``.
    """
    from openodke.bench import redocred
    from openodke.eval.matching import fact_key

    names = redocred.predicate_names(relation_names)
    evidence = SentenceEvidence()
    for row in rows:
        doc_id = str(row["id"])
        entities = redocred.vertex_entities(row)
        evidence.mentions[doc_id] = {
            entity.key: frozenset(m["sent_id"] for m in mentions)
            for entity, mentions in zip(entities, row["vertexSet"], strict=True)
        }
        labels = [
            label
            for label in row["labels"]
            if label.get("evidence")  # only facts that list evidence need a key here
        ]
        if not labels:
            continue
        gold = {
            (g.fact.subject.key, g.fact.predicate, g.fact.object_key): fact_key(g.fact)
            for g in redocred.gold_facts(row, doc_id, names)
        }
        for label in labels:
            found = gold.get(
                (
                    entities[label["h"]].key,
                    names.get(label["r"], label["r"]),
                    entities[label["t"]].key,
                )
            )
            if found is not None:
                evidence.facts.setdefault((doc_id, found), tuple(label["evidence"]))
    return evidence


def evidence_from_bench(bench: Any) -> SentenceEvidence:
    """A bench set's evidence: Re-DocRED's from its gold rows; Text2KGBench's are single sentences."""
    if bench.dataset == "redocred":
        return evidence_from_redocred(bench.gold_rows, bench.info["ontology"])
    return SentenceEvidence(one_sentence=True)
