"""Reading a document's text for grounding: sentences with offsets, words with offsets, names.

Everything here works on character offsets into ``Document.text``, so a window it finds can become
a ``Span``. Words compare with case, accents and punctuation ignored (``word_key``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from openodke.types import Entity

__all__ = [
    "Word",
    "entity_names",
    "sentence_bounds",
    "sentences_around",
    "word_key",
    "words",
]

_WORD = re.compile(r"\w+")
# A sentence ends at . ! or ? (and any closing quotes or brackets) before whitespace, and at a
# blank line; a single line break ends one too (lists, headings, records).
_END = re.compile(r"""[.!?]+["'”’)\]]*(?=\s)|\n""")
# A short word before a full stop that does not end a sentence: titles, initials, common Latin.
_ABBREVIATIONS = frozenset(
    (  # noqa: SIM905 - a word list reads better as words
        "mr mrs ms dr st jr sr prof rev gen col lt sgt capt mt ft no vs etc inc ltd co corp "
        "e.g i.e cf al approx dept est fig jan feb mar apr jun jul aug sep sept oct nov dec"
    ).split()
)


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text: its offsets, the text as written, and its comparison key."""

    start: int
    end: int
    text: str
    key: str

    @property
    def capitalised(self) -> bool:
        """True when it starts with an upper-case letter (or is a number, which has no case)."""
        first = self.text[0]
        return first.isupper() or first.isdigit()


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


def _is_abbreviation(text: str, stop: int) -> bool:
    """True when the full stop at ``stop`` closes an abbreviation or an initial (``J.``)."""
    before = text[max(0, stop - 12) : stop]
    match = re.search(r"([\w.]+)$", before)
    if match is None:
        return False
    token = match.group(1).rstrip(".")
    if len(token) == 1 and token.isalpha():
        return True  # an initial: "J. R. R. Tolkien", "U.S."
    if "." in token:
        return True  # "U.S", "e.g"
    return token.casefold() in _ABBREVIATIONS


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence, leading and trailing whitespace left out.

    A sentence ends at ``.``, ``!`` or ``?`` before whitespace (not after an initial or a common
    abbreviation such as ``Dr.``), and at a line break.
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        stop = match.end()
        if (
            match.group() != "\n"
            and match.group()[0] == "."
            and _is_abbreviation(text, match.start())
        ):
            continue
        _add(text, start, stop, bounds)
        start = stop
    _add(text, start, len(text), bounds)
    return bounds


def _add(text: str, start: int, stop: int, bounds: list[tuple[int, int]]) -> None:
    piece = text[start:stop]
    stripped = piece.strip()
    if not stripped:
        return
    lead = len(piece) - len(piece.lstrip())
    bounds.append((start + lead, start + lead + len(stripped)))


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
