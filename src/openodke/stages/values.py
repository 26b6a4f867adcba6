"""Reading literals and person names into one form: the parsers behind the ``value`` normalizer.

Each parser returns the normal form, or None when the text is not one it reads (the value is
then left as written). Dates become ISO 8601 at the precision written (``1815-12-10``,
``1815-12``, ``1815``); numbers become int or float; person names a name key.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime

from openodke.ground.values import MONTHS

__all__ = ["parse_bool", "parse_date", "parse_datetime", "parse_number", "person_key"]

_MONTH = r"(?P<month>[a-z]+)\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_TEXT_DATES = [
    re.compile(rf"^{_DAY} (?:of )?{_MONTH},? {_YEAR}$"),  # 10 December 1815
    re.compile(rf"^{_MONTH} {_DAY},? {_YEAR}$"),  # December 10, 1815
    re.compile(rf"^{_MONTH},? {_YEAR}$"),  # December 1815
]
_ISO = re.compile(r"^(?P<year>\d{4})(?:[-/.](?P<month>\d{1,2})(?:[-/.](?P<day>\d{1,2}))?)?$")
_NUMERIC = re.compile(r"^(?P<a>\d{1,2})[-/.](?P<b>\d{1,2})[-/.](?P<year>\d{4})$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:[,'\u2009\u202f ]\d{3})+(?:\.\d+)?$")
_PLAIN = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}

_HONORIFICS = frozenset(
    ["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lord", "lady"]
    + ["rev", "reverend", "hon"]
)
_SUFFIXES = frozenset(["jr", "sr", "ii", "iii", "iv", "phd", "md", "esq"])
_NON_WORD = re.compile(r"[\W_]+")


def _iso(year: int, month: int | None, day: int | None) -> str | None:
    try:
        if day is not None and month is not None:
            return date(year, month, day).isoformat()
        if month is not None:
            return f"{date(year, month, 1).isoformat()[:7]}"
    except ValueError:
        return None
    return f"{year:04d}"


def parse_date(text: str, *, day_first: bool = False) -> str | None:
    """ISO form of a date as written: ``1815-12-10`` (day), ``1815-12`` (month), ``1815`` (year).

    Reads ISO dates (``-``, ``/`` or ``.`` between parts), ``10 December 1815``, ``December 10,
    1815``, ``Dec. 1815`` and numeric ``10/12/1815``: month first unless ``day_first``, and day first
    whenever the first part cannot be a month (``25/12/1815``).
    """
    value = " ".join(text.strip().casefold().split())
    if (found := _ISO.match(value)) is not None:
        month, day = found.group("month"), found.group("day")
        return _iso(
            int(found.group("year")), int(month) if month else None, int(day) if day else None
        )
    if (found := _NUMERIC.match(value)) is not None:
        a, b = int(found.group("a")), int(found.group("b"))
        day_part, month_part = (a, b) if day_first or a > 12 else (b, a)
        return _iso(int(found.group("year")), month_part, day_part)
    for pattern in _TEXT_DATES:
        if (found := pattern.match(value)) is None:
            continue
        month = MONTHS.get(found.group("month"))
        if month is None:
            return None
        day = found.groupdict().get("day")
        return _iso(int(found.group("year")), month, int(day) if day else None)
    return None


def parse_datetime(text: str, *, day_first: bool = False) -> str | None:
    """ISO form of a date and time (``2025-01-01T09:30:00``), else of the date alone."""
    value = text.strip()
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
    except ValueError:
        return parse_date(value, day_first=day_first)


def parse_number(text: str, *, integer: bool = False) -> int | float | None:
    """A number as written: ``1,200`` and ``1 200`` are 1200, ``3.5`` is 3.5, ``2.4 million`` is
    2400000. With ``integer`` a value with a fraction is not read (None)."""
    value = " ".join(text.strip().casefold().split())
    scale = 1
    head, _, last = value.rpartition(" ")
    if head and last in _SCALES:
        value, scale = head, _SCALES[last]
    if _THOUSANDS.match(value):
        value = re.sub(r"[,'\u2009\u202f ]", "", value)
    if not _PLAIN.match(value):
        return None
    if "." not in value and "e" not in value:  # written whole: exact, however large
        return int(value) * scale
    number = float(value) * scale
    if integer:
        return int(number) if number.is_integer() else None
    return int(number) if scale > 1 and number.is_integer() else number


def parse_bool(text: str) -> bool | None:
    """``true``/``yes``/``y``/``1`` and ``false``/``no``/``n``/``0``, case ignored; else None."""
    value = text.strip().casefold()
    if value in {"true", "yes", "y", "1"}:
        return True
    if value in {"false", "no", "n", "0"}:
        return False
    return None


def person_key(name: str) -> str:
    """A person's name key: ``Lovelace, Ada`` and ``Dr. Ada Lovelace`` are both ``ada lovelace``.

    Accents stripped, case folded, punctuation as spaces; ``Last, First`` turned round; leading
    honorifics and trailing suffixes (``Jr``, ``PhD``, ...) dropped while a name remains.
    """
    folded = unicodedata.normalize("NFKD", name)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    last, comma, first = folded.partition(",")
    if comma and "," not in first:
        tail = _NON_WORD.sub(" ", first).split()
        if tail and not all(word in _SUFFIXES for word in tail):
            folded = f"{first} {last}"
    words = _NON_WORD.sub(" ", folded).split()
    while len(words) > 1 and words[0] in _HONORIFICS:
        words.pop(0)
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    return " ".join(words)
