"""Reading a document's text for grounding: sentences with offsets, words with offsets, names.

Everything here works on character offsets into ``Document.text``, so a window it finds can become
a ``Span``. Words compare with case, accents and punctuation ignored (``word_key``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import sentencex

from openodke.types import Entity

__all__ = [
    "LANGUAGE",
    "Word",
    "entity_names",
    "sentence_bounds",
    "sentences_around",
    "word_key",
    "words",
]

_WORD = re.compile(r"\w+")
LANGUAGE = "en"
"""The language sentencex segments by (as the diagnosis does, DECISIONS #63)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text: its offsets, the text as written, and its comparison key."""

    start: int
    end: int
    text: str
    key: str


@lru_cache(maxsize=1 << 14)
def word_key(word: str) -> str:
    """A word's comparison form: accents stripped, case-folded."""
    if not word.isascii():
        word = "".join(
            c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c)
        )
    return word.casefold()


def words(text: str, start: int = 0, end: int | None = None) -> list[Word]:
    """The words of ``text[start:end]`` with offsets into ``text``; ``_`` counts as a break."""
    stop = len(text) if end is None else end
    found: list[Word] = []
    for match in _WORD.finditer(text, start, stop):
        for part in _split_underscores(match.start(), match.group()):
            found.append(part)
    return found


def _split_underscores(offset: int, token: str) -> list[Word]:
    if "_" not in token:
        return [Word(offset, offset + len(token), token, word_key(token))]
    parts: list[Word] = []
    at = offset
    for piece in token.split("_"):
        if piece:
            parts.append(Word(at, at + len(piece), piece, word_key(piece)))
        at += len(piece) + 1
    return parts


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence, leading and trailing whitespace left out.

    Sentences come from sentencex, the project's segmenter (DECISIONS #63): it knows
    abbreviations and initials ("Dr.", "J. R. R. Tolkien", tokenised "Sr ."), joins a line wrapped
    mid-sentence and ends a sentence at a paragraph break. Its pieces are the text cut in order,
    so offsets are their running sum.
    """
    bounds: list[tuple[int, int]] = []
    at = 0
    for piece in sentencex.segment(LANGUAGE, text) if text else ():
        stripped = piece.strip()
        if stripped:
            start = text.find(stripped, at)
            bounds.append((start, start + len(stripped)))
        at += len(piece)
    return bounds


def sentences_around(bounds: list[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The smallest run of whole sentences covering ``[start, end)``; None when none overlaps."""
    touching = [(s, e) for s, e in bounds if s < max(end, start + 1) and e > start]
    if not touching:
        return None
    return touching[0][0], touching[-1][1]


def entity_names(entity: Entity) -> tuple[str, ...]:
    """The names an entity goes by: its label (else its key without ``Type:``), then aliases."""
    first = entity.label
    if not first:
        head, colon, rest = entity.key.partition(":")
        first = rest if colon and head == entity.type else entity.key
    names = [first, *entity.aliases]
    return tuple(dict.fromkeys(name for name in names if name and name.strip()))
