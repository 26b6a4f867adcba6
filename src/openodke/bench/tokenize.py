"""A word tokenizer that behaves like NLTK's ``word_tokenize(text, preserve_line=True)``.

Text2KGBench's official subject/object hallucination check tokenizes with NLTK, which is not in
the base install (DECISIONS #26). This module replays the regular-expression passes of NLTK's
improved Treebank tokenizer (``NLTKWordTokenizer``, as shipped in NLTK 3.8.1, the release the
benchmark's 2023 scores were made with) over one line of text, without the punkt sentence
splitter (whose trained model cannot be read offline). Agreement with NLTK on the TekGen data is
recorded in ``openodke/bench/TOKENIZER.md``; the tests check known Treebank cases.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["word_tokenize"]

_Pass = tuple[re.Pattern[str], str]


def _passes(*pairs: tuple[str, str]) -> tuple[_Pass, ...]:
    return tuple((re.compile(pattern), replacement) for pattern, replacement in pairs)


# Opening quotes become the PTB opening mark; a lone apostrophe before a word (not a clitic
# such as 're or 's) is split off.
_OPENING = _passes(
    ("([«“‘„]|[`]+)", r" \1 "),
    (r'^"', "``"),
    ("(``)", r" \1 "),
    (r"""([ (\[{<])("|'{2})""", r"\1 `` "),
    (r"(?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b", r"\1 \2"),
)

# Punctuation, in NLTK's order: the sentence-final period (possibly followed by closing
# brackets or quotes) first, then commas and colons not inside numbers, ellipses, symbols, a
# second final-period pass, question and exclamation marks, a closing apostrophe, asterisks.
_PUNCTUATION = _passes(
    (r"""([^.])(\.)([\])}>"'»”’ ]*)\s*$""", r"\1 \2 \3 "),
    (r"([:,])([^\d])", r" \1 \2"),
    (r"([:,])$", r" \1 "),
    (r"\.{2,}", r" \g<0> "),
    (r"[;@#$%&]", r" \g<0> "),
    (r"""([^.])(\.)([\])}>"']*)\s*$""", r"\1 \2\3 "),
    (r"[?!]", r" \g<0> "),
    (r"([^'])' ", r"\1 ' "),
    (r"[*]", r" \g<0> "),
)

_BRACKETS = _passes((r"[\][(){}<>]", r" \g<0> "), ("--", " -- "))

# Closing quotes become '' and clitics split from their word; these run on the text padded
# with a space at each end, as NLTK does.
_CLOSING = _passes(
    ("([»”’])", r" \1 "),
    ("''", " '' "),
    ('"', " '' "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
)

# Robert MacIntyre's contractions, split into two tokens ("cannot" -> "can not").
_CONTRACTIONS = _passes(
    *(
        (pattern, r" \1 \2 ")
        for pattern in (
            r"(?i)\b(can)(not)\b",
            r"(?i)\b(d)('ye)\b",
            r"(?i)\b(gim)(me)\b",
            r"(?i)\b(gon)(na)\b",
            r"(?i)\b(got)(ta)\b",
            r"(?i)\b(lem)(me)\b",
            r"(?i)\b(more)('n)\b",
            r"(?i)\b(wan)(na)(?=\s)",
            r"(?i) ('t)(is)\b",
            r"(?i) ('t)(was)\b",
        )
    )
)


def _apply(text: str, passes: tuple[_Pass, ...]) -> str:
    for pattern, replacement in passes:
        text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=65536)
def _tokenize(text: str) -> tuple[str, ...]:
    text = _apply(text, _OPENING)
    text = _apply(text, _PUNCTUATION)
    text = _apply(text, _BRACKETS)
    text = _apply(f" {text} ", _CLOSING)
    text = _apply(text, _CONTRACTIONS)
    return tuple(text.split())


def word_tokenize(text: str) -> list[str]:
    """Split ``text`` into Treebank tokens, as NLTK's ``word_tokenize(text, preserve_line=True)``.

    >>> word_tokenize("They'll pay $3.88 (roughly).")
    ['They', "'ll", 'pay', '$', '3.88', '(', 'roughly', ')', '.']
    """
    return list(_tokenize(text))
