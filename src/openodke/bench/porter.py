"""The Porter stemmer with NLTK's extensions (NLTK's default ``PorterStemmer()`` mode).

Text2KGBench's official hallucination check stems every token with NLTK's ``PorterStemmer``,
whose default mode (``NLTK_EXTENSIONS``) adds to Porter (1980, "An algorithm for suffix
stripping", Program 14(3)) Martin Porter's own later changes and a few of NLTK's: a small table
of irregular forms, words of two letters or fewer left alone, ``-ies``/``-ied`` on four-letter
words kept as ``-ie``, ``y -> i`` only after a consonant that is not the first letter, ``-alli``
reduced recursively, ``-fulli`` and ``-logi`` rules, ``-bli -> -ble``, and the ``*o`` condition
also true for a two-letter vowel-consonant stem. Rules of a step are tried in order and the
first whose suffix matches decides: if its condition fails the word is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

__all__ = ["porter_stem"]

_VOWELS = frozenset("aeiou")

# NLTK's irregular forms: the word as given (not lower-cased) -> its stem.
_IRREGULAR = {
    "sky": "sky",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}


def _consonant(word: str, i: int) -> bool:
    """Porter's consonant: not a vowel, and a ``y`` only when first or after a vowel."""
    letter = word[i]
    if letter in _VOWELS:
        return False
    if letter == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``[C](VC){m}[V]``."""
    pattern = "".join("c" if _consonant(stem, i) else "v" for i in range(len(stem)))
    return pattern.count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Porter's *o (consonant-vowel-consonant, the last not w, x or y), plus NLTK's ``vc``."""
    if len(word) >= 3:
        return (
            _consonant(word, len(word) - 3)
            and not _consonant(word, len(word) - 2)
            and _consonant(word, len(word) - 1)
            and word[-1] not in "wxy"
        )
    return len(word) == 2 and not _consonant(word, 0) and _consonant(word, 1)


def _m_above(n: int) -> Callable[[str], bool]:
    return lambda stem: _measure(stem) > n


_Rule = tuple[str, str, Callable[[str], bool]]


def _first_rule(word: str, rules: tuple[_Rule, ...]) -> str:
    """Apply the first rule whose suffix ends ``word``; if its condition fails, keep ``word``."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            return stem + replacement if condition(stem) else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    for suffix, replacement in (("sses", "ss"), ("ies", "i"), ("ss", "ss"), ("s", "")):
        if word.endswith(suffix):
            return word[: len(word) - len(suffix)] + replacement
    return word


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            return _tidy_1b(word[: -len(suffix)])
    return word


def _tidy_1b(stem: str) -> str:
    """After -ed or -ing: restore an e (-at, -bl, -iz, short cvc) or undouble a consonant."""
    for suffix in ("at", "bl", "iz"):
        if stem.endswith(suffix):
            return stem + "e"
    if _double_consonant(stem):
        return stem if stem[-1] in "lsz" else stem[:-1]
    return stem + "e" if _measure(stem) == 1 and _cvc(stem) else stem


def _step1c(word: str) -> str:
    if word.endswith("y"):
        stem = word[:-1]
        if len(stem) > 1 and _consonant(stem, len(stem) - 1):
            return stem + "i"
    return word


_STEP2: tuple[_Rule, ...] = tuple(
    (suffix, replacement, _m_above(0))
    for suffix, replacement in (
        ("ational", "ate"),
        ("tional", "tion"),
        ("enci", "ence"),
        ("anci", "ance"),
        ("izer", "ize"),
        ("bli", "ble"),
        ("alli", "al"),
        ("entli", "ent"),
        ("eli", "e"),
        ("ousli", "ous"),
        ("ization", "ize"),
        ("ation", "ate"),
        ("ator", "ate"),
        ("alism", "al"),
        ("iveness", "ive"),
        ("fulness", "ful"),
        ("ousness", "ous"),
        ("aliti", "al"),
        ("iviti", "ive"),
        ("biliti", "ble"),
        ("fulli", "ful"),
    )
)


def _step2(word: str) -> str:
    if word.endswith("alli") and _measure(word[:-4]) > 0:
        return _step2(word[:-4] + "al")
    # NLTK's -logi rule measures the word without "ogi" (keeping the l), not the stem.
    rules = (*_STEP2, ("logi", "log", lambda _stem: _measure(word[:-3]) > 0))
    return _first_rule(word, rules)


_STEP3: tuple[_Rule, ...] = tuple(
    (suffix, replacement, _m_above(0))
    for suffix, replacement in (
        ("icate", "ic"),
        ("ative", ""),
        ("alize", "al"),
        ("iciti", "ic"),
        ("ical", "ic"),
        ("ful", ""),
        ("ness", ""),
    )
)

_STEP4: tuple[_Rule, ...] = tuple(
    (suffix, "", _m_above(1))
    for suffix in ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent")
) + (
    ("ion", "", lambda stem: _measure(stem) > 1 and stem[-1] in "st"),
    *((suffix, "", _m_above(1)) for suffix in ("ou", "ism", "ate", "iti", "ous", "ive", "ize")),
)


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word[:-1]) > 1:
        return word[:-1]
    return word


@lru_cache(maxsize=131072)
def porter_stem(word: str) -> str:
    """Stem one token as NLTK's ``PorterStemmer().stem(word)`` does (lower-cased result).

    >>> [porter_stem(w) for w in ("caresses", "ponies", "relational", "generously", "dying")]
    ['caress', 'poni', 'relat', 'gener', 'die']
    """
    lowered = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2:
        return lowered
    stem = _step1c(_step1b(_step1a(lowered)))
    stem = _first_rule(_first_rule(_step2(stem), _STEP3), _STEP4)
    return _step5(stem)
