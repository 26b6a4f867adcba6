"""The document text around a diagnosis example, with the fact's ends highlighted."""

from __future__ import annotations

import re
from html import escape

__all__ = ["ends_of", "snippet"]

_WIDTH = 140  # characters of text kept each side of the highlighted ends
_SPAN = 500  # at most this many characters between the first and last end shown


def ends_of(fact: str) -> tuple[str, str]:
    """The subject and object of ``subject · predicate · object``, without a ``Type:`` prefix."""
    parts = fact.split(" · ")
    if len(parts) < 3:
        return fact, ""
    return _bare(parts[0]), _bare(" · ".join(parts[2:]))


def _bare(name: str) -> str:
    name = name.strip()
    head, colon, rest = name.partition(":")
    return rest.strip() if colon and rest.strip() and " " not in head else name


def _pattern(name: str) -> re.Pattern[str] | None:
    words = name.split()
    if not words:
        return None
    pattern = re.escape(words[0])
    for before, word in zip(words, words[1:], strict=False):
        # "Bleach : Hell Verse" (a tokenised name) is "Bleach: Hell Verse" in the text
        loose = not any(c.isalnum() for c in before + word) or not any(c.isalnum() for c in word)
        pattern += (r"\s*" if loose else r"\s+") + re.escape(word)
    return re.compile(pattern, re.IGNORECASE)


def snippet(text: str, fact: str) -> str | None:
    """HTML: the text around where both ends of ``fact`` are closest, each end in ``<mark>``;
    around one end when only one is in the text; None when neither is."""
    subject, obj = ends_of(fact)
    found: list[list[tuple[int, int]]] = []
    for name in (subject, obj):
        pattern = _pattern(name)
        found.append([m.span() for m in pattern.finditer(text)] if pattern else [])
    spans_s, spans_o = found
    if spans_s and spans_o:
        best = min(
            ((a, b) for a in spans_s[:200] for b in spans_o[:200]),
            key=lambda pair: abs(pair[0][0] - pair[1][0]),
        )
        marks = sorted(best)
        if marks[-1][0] - marks[0][1] > _SPAN:
            marks = [spans_s[0]]
    elif spans_s or spans_o:
        marks = [(spans_s or spans_o)[0]]
    else:
        return None
    marks = _merge(marks)
    start = max(0, marks[0][0] - _WIDTH)
    end = min(len(text), marks[-1][1] + _WIDTH)
    out = ["…" if start else ""]
    at = start
    for a, b in marks:
        out.append(escape(text[at:a]))
        out.append(f"<mark>{escape(text[a:b])}</mark>")
        at = b
    out.append(escape(text[at:end]))
    out.append("…" if end < len(text) else "")
    return " ".join("".join(out).split())


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged
