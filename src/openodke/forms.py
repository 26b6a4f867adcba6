"""How names and values compare: the forms lookups and matching read (no pydantic).

The scoring engine's worker processes import this, not the models that re-export it
(:mod:`openodke.types`, :mod:`openodke.ontology.model`), so they start without pydantic.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["lookup_form", "normalise_value"]


def lookup_form(name: str) -> str:
    """How names compare in lookups: case-folded, underscores as spaces, whitespace collapsed."""
    return " ".join(name.replace("_", " ").split()).casefold()


def normalise_value(value: Any) -> str:
    """A literal's matching form: whitespace collapsed, casefolded, numbers canonical.

    An integral number becomes its int (``1815``, ``"1815"`` and ``1815.0`` all give ``"1815"``),
    another finite number ``repr(float)``; a bool is ``"true"``/``"false"``. A string with a
    leading zero (``"02139"``, ``"-007"``) stays a string. (Where an ontology ranges the
    predicate as a string, matching compares the text itself: DECISIONS 125.)
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number_form(value)
    text = " ".join(str(value).split()).casefold()
    digits = text.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return text  # a leading zero: a code ("02139"), not a number
    try:
        number = float(text) if text[:1].isdigit() or text[:1] in "+-." else None
    except ValueError:
        number = None
    return text if number is None else _number_form(number, text)


def _number_form(number: float, fallback: str | None = None) -> str:
    if not math.isfinite(number):
        return fallback if fallback is not None else repr(number)
    if number.is_integer():
        return str(int(number))
    return repr(number)
