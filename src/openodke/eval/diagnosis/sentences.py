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

Sentences come from sentencex (Wikimedia's rule-based segmenter, DECISIONS #63): it knows
abbreviations ("Acme Inc. is based in Berlin." is one sentence), joins lines wrapped mid-sentence
and ends one at a paragraph break; about 0.01 ms a document, so every document can be read. A
capitalised name need not appear capitalised; dates are not read by value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import sentencex

__all__ = [
    "SentenceEvidence",
    "TextIndex",
    "evidence_from_bench",
    "evidence_from_redocred",
    "MARK",
    "bare_key",
    "name_key",
    "segments",
    "split_sentences",
]

_NON_WORD = re.compile(r"[\W_]+")
LANGUAGE = "en"
"""The language whose abbreviations and rules the splitter uses."""
# ASCII punctuation and whitespace as spaces: the fast path of normalising an ASCII text.
_ASCII_BLANKS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})


# Combining marks left by NFKD (accents): the main combining blocks.
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


@lru_cache(maxsize=1 << 16)
def name_key(name: str) -> str:
    """A name's matching form: accents stripped, case-folded, punctuation as spaces, collapsed."""
    return bare_key(name)


def bare_key(name: str) -> str:
    """``name_key`` without the cache, for names seen once."""
    if name.isascii():
        if name.replace(" ", "").isalnum():  # letters, digits and spaces: no regex needed
            return " ".join(name.casefold().split())
    else:
        name = _COMBINING.sub("", unicodedata.normalize("NFKD", name))
    return " ".join(_NON_WORD.sub(" ", name.casefold()).split())


def segments(text: str) -> list[str]:
    """The text cut where sentences end, every character kept: the pieces join back to it.

    A paragraph break may be a piece of its own (blank).
    """
    return list(sentencex.segment(LANGUAGE, text)) if text else []


def split_sentences(text: str) -> list[str]:
    """The text's sentences, stripped: "Acme Inc. is based in Berlin." is one."""
    return [piece.strip() for piece in segments(text) if piece.strip()]


def _bare(text: str) -> str:
    """A long text normalised as ``name_key`` normalises a name (not collapsed)."""
    if text.isascii():
        return text.casefold().translate(_ASCII_BLANKS)
    text = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
    return _NON_WORD.sub(" ", text.casefold())


# A word (so it survives normalisation, and ASCII, so an ASCII text stays on the fast path) that
# stands for a sentence break; any copy in the text itself is blanked first.
MARK = "qq0sentencebreak0qq"
_MARKS = re.compile(MARK, re.IGNORECASE)


class TextIndex:
    """One document's text, normalised once, with its sentence starts, for whole-word lookups.

    The sentence breaks (``split_sentences``'s) are marked with a word no name contains,
    the whole text is normalised as ``name_key`` normalises a name, and a name's key surrounded by
    spaces is found with ``str.find`` and placed in its sentence by the marks before it. A match
    cannot span two sentences: the mark stands between them as a word of its own.
    """

    def __init__(self, text: str) -> None:
        if MARK in text.casefold():
            text = _MARKS.sub(" ", text)
        marked = f" {MARK} ".join(piece for piece in segments(text) if piece.strip())
        self.text = " " + " ".join(_bare(marked).split()) + " "
        self._found: dict[str, frozenset[int]] = {}

    def naming(self, name: str) -> frozenset[int]:
        """The sentences that name ``name`` as whole words (empty: named nowhere)."""
        return self._naming_key(name_key(name))

    def _naming_key(self, key: str) -> frozenset[int]:
        cached = self._found.get(key)
        if cached is not None:
            return cached
        found: set[int] = set()
        if key:
            needle = f" {key} "
            at = self.text.find(needle)
            while at >= 0:
                found.add(self.text.count(MARK, 0, at))  # the sentence: marks before it
                at = self.text.find(needle, at + 1)
        result = self._found[key] = frozenset(found)
        return result

    def naming_any(self, names: Iterable[str]) -> frozenset[int]:
        """The sentences that name any of ``names``."""
        return self.naming_keys({name_key(n) for n in names})

    def naming_keys(self, keys: Iterable[str]) -> frozenset[int]:
        """The sentences that name any of these name keys."""
        found = self._found
        out: frozenset[int] | None = None
        for key in keys:
            hit = found.get(key)
            if hit is None:
                hit = self._naming_key(key)
            out = hit if out is None else out | hit
        return out if out is not None else frozenset()

    def cross(self, subject: Iterable[str], obj: Iterable[str]) -> bool | None:
        """True: both ends named, never in one sentence; False: one sentence names both; None."""
        a, b = self.naming_any(subject), self.naming_any(obj)
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
    from openodke.eval.engine.matching import fact_key

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
