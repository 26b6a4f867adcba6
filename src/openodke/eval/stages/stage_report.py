"""StageReport: what every stage evaluator returns, and how ``odke eval`` prints it."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["StageReport", "f1_of", "fmt", "safe_div"]


def safe_div(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, or None when the denominator is 0 (no hidden epsilon)."""
    return numerator / denominator if denominator else None


def f1_of(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean; None when either side is undefined, 0.0 when both are 0."""
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def fmt(value: Any, digits: int = 3) -> str:
    """One cell: None prints as —, a float with ``digits`` decimals, anything else as str."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


_COUNTS = frozenset({"tp", "fp", "fn", "support", "n"})
"""Breakdown fields that are counts wherever they appear (a saved report is read back)."""
_RATES = frozenset({"precision", "recall", "f1", "mean_confidence", "true_rate"})
"""Breakdown fields that are numbers (or null, undefined) wherever they appear."""


def _breakdown_problem(key: str, value: Any) -> str | None:
    if value is None or key not in _COUNTS | _RATES:
        return None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        return "must be a number or null"
    if key in _COUNTS and not isinstance(value, Integral):
        return "a count must be a whole number"
    if key in _COUNTS and value < 0:
        return "a count cannot be negative"
    return None


class StageReport(BaseModel):
    """One evaluator's result: headline metrics, a breakdown, a confusion table and notes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stage: str = Field(description="The stage scored: extract, ground, resolve, score, gate, ...")
    n: int = Field(description="How many labelled rows were scored.")
    metrics: dict[str, float | int | None] = Field(
        default_factory=dict, description="Headline metrics; an undefined value is null."
    )
    breakdown: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Per label, predicate, verdict or bin."
    )
    confusion: dict[str, dict[str, int]] | None = Field(
        default=None, description="label → predicted → count, where it applies."
    )
    notes: tuple[str, ...] = Field(default=(), description="What a number cannot say.")

    @field_validator("breakdown")
    @classmethod
    def _known_fields_have_their_types(
        cls, breakdown: dict[str, dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """Counts (tp, fp, fn, support, n) are whole and not negative; rates are numbers: the
        tables and pages compute with them (a saved report may have been edited)."""
        for name, row in breakdown.items():
            for key, value in row.items():
                problem = _breakdown_problem(key, value)
                if problem is not None:
                    raise ValueError(f"{name}.{key}: {problem} (got {value!r:.40})")
        return breakdown

    def _repr_html_(self) -> str:
        """The notebook view: the metrics, the breakdown and the first notes."""
        from openodke.eval.report.html.notebook import notebook_html

        return notebook_html(self)

    def to_pandas(self) -> dict[str, Any]:
        """Each table as a pandas DataFrame, by name: ``metrics`` (one row), ``breakdown``
        (one row per label, predicate, verdict or bin) and, for an extraction, ``predicates``
        (with ranges over facts, the worst first). Needs pandas (``openodke[pandas]``)."""
        from openodke.eval.report.export import to_pandas

        return to_pandas(self)

    def render(self) -> str:
        """The plain-text table ``odke eval <stage>`` prints; undefined values print as —."""
        lines = [f"{self.stage}  ({self.n} labelled)"]
        width = max((len(k) for k in self.metrics), default=0)
        lines += [f"  {k:<{width}}  {fmt(v)}" for k, v in self.metrics.items()]
        if self.breakdown:
            columns = list(dict.fromkeys(c for row in self.breakdown.values() for c in row))
            label_width = max(len(k) for k in self.breakdown)
            widths = {
                c: max(len(c), *(len(fmt(r.get(c))) for r in self.breakdown.values()))
                for c in columns
            }
            lines.append("")
            head = "  ".join(f"{c:>{widths[c]}}" for c in columns)
            lines.append(f"  {'':<{label_width}}  {head}")
            for label, row in self.breakdown.items():
                cells = "  ".join(f"{fmt(row.get(c)):>{widths[c]}}" for c in columns)
                lines.append(f"  {label:<{label_width}}  {cells}")
        if self.confusion:
            predicted = sorted({p for row in self.confusion.values() for p in row})
            lines.append("")
            lines.append("  confusion (label → predicted): " + ", ".join(predicted))
            for label, row in self.confusion.items():
                lines.append(f"  {label}: " + " ".join(str(row.get(p, 0)) for p in predicted))
        if self.notes:
            lines.append("")
            lines += [f"  • {note}" for note in self.notes]
        return "\n".join(lines)
