"""Dates and quantities read by value, so the span locator finds ``1815-12-10`` as "10 December 1815".

A date is ``(year, month, day)`` with month and day None when the text does not give them; a
quantity is a float. A text date names an end when it agrees with every part the end gives (the
end ``1815`` is named by "10 December 1815"; the end ``10 December 1815`` is not named by "1815").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MONTHS",
    "DateValue",
    "Found",
    "date_names",
    "find_dates",
    "find_numbers",
    "parse_date",
    "parse_number",
]

DateValue = tuple[int, int | None, int | None]

# Month names and abbreviations, as the locator and the value normalizer read them.
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>[12]\d{3})"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_DATE_FORMS = [
    re.compile(r"\b(?P<year>[12]\d{3})-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\s*,?\s*{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\s*,?\s*{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s*,?\s*{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_YEAR}\b"),
]
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])")


@dataclass(frozen=True, slots=True)
class Found:
    """A value found in a text, with its offsets."""

    start: int
    end: int
    value: DateValue | float


def _date_of(match: re.Match[str]) -> DateValue | None:
    groups = match.groupdict()
    year = int(groups["year"])
    month: int | None
    day: int | None
    if groups.get("m"):
        month, day = int(groups["m"]), int(groups["d"])
    else:
        month = MONTHS[groups["month"].casefold()] if groups.get("month") else None
        day = int(groups["day"]) if groups.get("day") else None
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None and not 1 <= day <= 31:
        return None
    return year, month, day


def find_dates(text: str) -> list[Found]:
    """Every date in ``text``, the most specific reading of each stretch first, no overlaps."""
    found: list[Found] = []
    taken: list[tuple[int, int]] = []
    for form in _DATE_FORMS:
        for match in form.finditer(text):
            start, end = match.span()
            if any(s < end and start < e for s, e in taken):
                continue
            value = _date_of(match)
            if value is not None:
                found.append(Found(start, end, value))
                taken.append((start, end))
    return sorted(found, key=lambda f: f.start)


def parse_date(value: str) -> DateValue | None:
    """The date a whole string writes (``1815``, ``December 1815``, ``1815-12-10``), else None."""
    text = value.strip()
    for form in _DATE_FORMS:
        match = form.fullmatch(text)
        if match is not None:
            return _date_of(match)
    return None


def find_numbers(text: str) -> list[Found]:
    """Every number in ``text`` (``1,200``, ``99.9``) as a float."""
    return [
        Found(m.start(), m.end(), float(m.group().replace(",", ""))) for m in _NUMBER.finditer(text)
    ]


def parse_number(value: object) -> float | None:
    """The number a literal is (``99.9``, ``"99.9%"``, ``"1,200 staff"`` → 1200.0), else None.

    A string counts only when it starts with its number and holds one number.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    numbers = find_numbers(text)
    if len(numbers) != 1 or numbers[0].start != 0:
        return None
    return float(numbers[0].value)  # type: ignore[arg-type]


def date_names(text_date: DateValue, wanted: DateValue) -> bool:
    """True when a text date agrees with every part ``wanted`` gives."""
    return all(w is None or t == w for t, w in zip(text_date, wanted, strict=True))
