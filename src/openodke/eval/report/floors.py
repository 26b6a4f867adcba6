"""``--fail-under``: a gate on one run, so a CI job can fail on a single score.

A floor is ``X`` (F1) or ``metric=X`` (``precision``, ``recall``, ``f1``), each X in [0, 1]. The
gate reads the low end of the row's 95% range, not its point value: a run passes only when the
range says the metric is at least X, the same rule as ``odke eval compare --fail-under``. A
metric the row leaves undefined (no predictions: precision; no gold: recall) fails, since it
cannot be shown to be at least X. Each floor checked is recorded in the report (``gates``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, cast

from openodke.errors import GateFailed, InputError

if TYPE_CHECKING:  # the models load when a gate is built: parsing --fail-under needs none
    from openodke.eval.report.models import EvalReport, Floor, Row

__all__ = ["METRICS", "check_floors", "enforce_floors", "failures", "parse_floors"]

METRICS = ("f1", "precision", "recall")
"""The metrics a floor may name; a bare number is an F1 floor."""
_Metric = Literal["precision", "recall", "f1"]


def parse_floors(specs: Sequence[str]) -> list[tuple[str, float]]:
    """``["0.7", "precision=0.8"]`` → ``[("f1", 0.7), ("precision", 0.8)]``.

    InputError (exit 2) for an unknown metric, a value that is not a number in [0, 1], or one
    metric given two floors.
    """
    floors: dict[str, float] = {}
    for spec in specs:
        metric, _, value = spec.rpartition("=")
        metric = metric.strip().lower() or "f1"
        if metric not in METRICS:
            raise InputError(
                f"--fail-under {spec!r}: the metric must be one of {', '.join(METRICS)} "
                "(--fail-under 0.7, or --fail-under precision=0.8)"
            )
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not 0 <= number <= 1:  # NaN fails this too
            raise InputError(f"--fail-under {spec!r}: the floor must be a number from 0 to 1")
        if metric in floors:
            raise InputError(f"--fail-under: {metric} is given two floors; give one")
        floors[metric] = number
    return list(floors.items())


def check_floors(report: EvalReport, floors: Sequence[tuple[str, float]], row: str) -> EvalReport:
    """``report`` with each floor checked on its row ``row`` (``gates``)."""
    if not floors:
        return report
    found = next((r for r in report.rows if r.name == row), None)
    if found is None:
        raise ValueError(f"the report has no row {row!r}")
    gates = [_gate(found, metric, floor) for metric, floor in floors]
    return report.model_copy(update={"gates": [*(report.gates or []), *gates]})


def _gate(row: Row, metric: str, floor: float) -> Floor:
    from openodke.eval.report.models import Floor

    value = getattr(row.performance, metric)
    low = value.low if value.low is not None else value.value
    return Floor(
        row=row.name,
        metric=cast(_Metric, metric),
        floor=floor,
        low=low,
        passed=low is not None and low >= floor,
    )


def failures(report: EvalReport) -> list[str]:
    """Each gate of ``report`` that failed, in words."""
    out = []
    for gate in report.gates or ():
        if gate.passed:
            continue
        if gate.low is None:
            out.append(f"{gate.row}'s {gate.metric} is undefined, so not at least {gate.floor:g}")
        else:
            out.append(
                f"the low end of {gate.row}'s {gate.metric} range, {gate.low:.3f}, is under "
                f"{gate.floor:g}"
            )
    return out


def enforce_floors(report: EvalReport) -> None:
    """GateFailed (exit 1) naming every failed gate in one line; nothing when all passed."""
    failed = failures(report)
    if failed:
        raise GateFailed(f"--fail-under: {'; '.join(failed)}")
