"""Reading a grounding answer: the structured answer first, then a bare word; prose is unreadable.

Span format: ``{"verdict": "supported" | "contradicted" | "not_found"}``, or the bare word
(``Supported.``, ``"not_found"``, ``NOT FOUND``: case, surrounding punctuation and the separator
inside ``not found`` ignored). Paper format: ``True`` or ``False`` (a JSON boolean, ``{"answer":
true}``, or the bare word), True → supported, False → not_found. Anything else, prose included,
is None: the fact stays ``unchecked``.
"""

from __future__ import annotations

import re
from typing import Any

from openodke.types import GroundingVerdict

__all__ = ["read_answer", "read_paper_answer", "read_span_answer"]

_SURROUNDING = " \t\r\n\"'`*_.,;:!?()[]{}<>"
_SEPARATORS = re.compile(r"[\s_-]+")
_SPAN_WORDS = {
    "supported": GroundingVerdict.supported,
    "contradicted": GroundingVerdict.contradicted,
    "not found": GroundingVerdict.not_found,
}
_PAPER_WORDS = {"true": GroundingVerdict.supported, "false": GroundingVerdict.not_found}
_ANSWER_KEYS = ("verdict", "answer")


def _bare(text: str) -> str | None:
    """The text as one bare word (separators as single spaces, case-folded), else None."""
    word = text.strip(_SURROUNDING)
    if not word:
        return None
    word = _SEPARATORS.sub(" ", word).casefold()
    return word if len(word.split()) <= 2 else None


def _field(parsed: Any) -> Any:
    if isinstance(parsed, dict):
        lowered = {str(k).casefold(): v for k, v in parsed.items()}
        for key in _ANSWER_KEYS:
            if key in lowered:
                return lowered[key]
        return None
    return parsed


def read_span_answer(parsed: Any, text: str) -> GroundingVerdict | None:
    """A span-format answer as a verdict, or None when it cannot be read."""
    value = _field(parsed)
    if isinstance(value, str):
        word = _bare(value)
        if word in _SPAN_WORDS:
            return _SPAN_WORDS[word]
    if parsed is not None and not isinstance(parsed, str):
        return None  # a structured answer that says something else: not read as prose
    word = _bare(text)
    return _SPAN_WORDS.get(word) if word is not None else None


def read_paper_answer(parsed: Any, text: str) -> GroundingVerdict | None:
    """A paper-format answer (True or False) as a verdict, or None when it cannot be read."""
    value = _field(parsed)
    if isinstance(value, bool):
        return GroundingVerdict.supported if value else GroundingVerdict.not_found
    if isinstance(value, str):
        word = _bare(value)
        if word in _PAPER_WORDS:
            return _PAPER_WORDS[word]
    if parsed is not None and not isinstance(parsed, str):
        return None
    word = _bare(text)
    return _PAPER_WORDS.get(word) if word is not None else None


def read_answer(claim_format: str, parsed: Any, text: str) -> GroundingVerdict | None:
    """``read_span_answer`` or ``read_paper_answer`` by claim format."""
    if claim_format == "paper":
        return read_paper_answer(parsed, text)
    return read_span_answer(parsed, text)
