"""Precision without gold: a judge's verdicts, corrected by a sample a person labelled.

``judged_precision(facts, labels)`` reads each fact's grounding verdict as the judge's answer
(supported or not; ``unchecked`` facts have no answer and are left out, which ``coverage``
shows) and, with labels (fact id → true), gives three figures: the judge's own rate, the labels'
rate, and the prediction-powered estimate that corrects the first by the judge's errors on the
second (:mod:`openodke.eval.judges.ppi`, power-tuned PPI++: the judge weighs what its agreement
with the labels earns, and never widens the labels' own range). Under ``minimum`` (100) labels the result is marked
uncalibrated. The labelled facts must be a uniform random sample (``draw``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from openodke.errors import InputError
from openodke.eval.judges.ppi import PPI, ppi_tuned, wilson
from openodke.eval.report.models import JudgedPrecision, Value
from openodke.eval.stages.stage_report import fmt
from openodke.types import Fact, GroundingVerdict

__all__ = ["MINIMUM", "by_predicate", "draw", "judged_precision", "render_judged"]

MINIMUM = 100
"""Fewest labels for a judged precision to count as calibrated."""


def _value(estimate: PPI) -> Value:
    return Value(value=estimate.value, low=estimate.low, high=estimate.high)


def judged_precision(
    facts: Sequence[Fact],
    labels: Mapping[str, bool] | None = None,
    *,
    level: float = 0.95,
    minimum: int = MINIMUM,
) -> JudgedPrecision:
    """The judged precision of ``facts``; ``labels`` maps a fact id to whether it is true.

    InputError when a label names a fact that is not among ``facts``.
    """
    labels = dict(labels or {})
    by_id = {f.id: f for f in facts}
    unknown = [i for i in labels if i not in by_id]
    if unknown:
        raise InputError(
            f"{len(unknown)} label(s) name facts not in the --facts run, "
            f"e.g. id {unknown[0][:60]!r}"
        )
    checked = [f for f in facts if f.verdict is not GroundingVerdict.unchecked]
    said = {f.id: f.verdict is GroundingVerdict.supported for f in checked}
    f_u = [said[f.id] for f in checked if f.id not in labels]
    pairs = [(said[i], y) for i, y in labels.items() if i in said]
    f_l = [f for f, _ in pairs]
    y_l = [y for _, y in pairs]
    supported = sum(said.values())
    n = len(labels)
    alone = wilson(sum(labels.values()), n, level=level)
    corrected = ppi_tuned(
        np.array(f_u, float), np.array(f_l, float), np.array(y_l, float), level=level
    )
    if corrected.weight == 0 or _width(corrected) > _width(alone):
        # The labels decide: the range printed under it, over every label (unchecked too).
        corrected = PPI(alone.value, alone.low, alone.high, alone.se, 0.0)
    return JudgedPrecision(
        facts=len(facts),
        supported=supported,
        labels=n,
        labelled_supported=sum(labels.values()),
        false_support=sum(f and not y for f, y in pairs),
        lost_support=sum(y and not f for f, y in pairs),
        judge_only=_value(wilson(supported, len(checked), level=level)),
        corrected=_value(corrected),
        labels_only=_value(alone),
        level=level,
        weight=corrected.weight,
        minimum=minimum,
        calibrated=n >= minimum,
        coverage=len(checked) / len(facts) if facts else None,
    )


def _width(estimate: PPI) -> float:
    if estimate.low is None or estimate.high is None:
        return 0.0
    return estimate.high - estimate.low


def by_predicate(
    facts: Sequence[Fact], labels: Mapping[str, bool] | None = None, *, level: float = 0.95
) -> dict[str, JudgedPrecision]:
    """The judged precision of each predicate's facts, with the labels that fall in it."""
    labels = dict(labels or {})
    groups: dict[str, list[Fact]] = {}
    for fact in facts:
        groups.setdefault(fact.predicate, []).append(fact)
    return {
        predicate: judged_precision(
            mine, {f.id: labels[f.id] for f in mine if f.id in labels}, level=level
        )
        for predicate, mine in sorted(groups.items())
    }


def draw(facts: Sequence[Fact], n: int, *, seed: int | None = 0) -> list[Fact]:
    """A uniform random sample of ``n`` facts (all when fewer), in draw order."""
    if n < 1:
        raise InputError(f"--n must be at least 1, got {n}")
    rng = np.random.default_rng(seed)
    picked = rng.permutation(len(facts))[: min(n, len(facts))]
    return [facts[int(i)] for i in picked]


def _line(name: str, value: Value, how: str) -> str:
    shown = f"{fmt(value.value)} [{fmt(value.low)}, {fmt(value.high)}]"
    return f"  {name:<12}{shown}  {how}"


def _how_corrected(section: JudgedPrecision, pct: int) -> str:
    if section.method == "ppi-closed-form" or section.weight is None:
        return f"prediction-powered ({pct}%, closed form)"
    if section.weight == 0:
        return f"the labels alone ({pct}%): the judge would not narrow them (weight 0)"
    return f"prediction-powered ({pct}%, PPI++), judge weight {section.weight:.2f}"


def render_judged(section: JudgedPrecision, judge: str) -> str:
    """The text ``odke eval precision`` prints; ``judge`` is the judge's calibration note."""
    pct = int(round(section.level * 100))
    lines = [
        f"judged precision  ({section.facts} facts, {section.supported} judged supported; "
        f"{section.labels} labels)"
    ]
    lines.append(
        _line("judge only", section.judge_only, "the judge's own rate (its errors uncorrected)")
    )
    if section.labels:
        lines.append(_line("corrected", section.corrected, _how_corrected(section, pct)))
        lines.append(
            _line("labels only", section.labels_only, f"Wilson {pct}% on the labels alone")
        )
        lines.append(
            f"  on the labels the judge gave false support {section.false_support} and lost "
            f"support {section.lost_support} times"
        )
    if section.coverage is not None and section.coverage < 1:
        lines.append(
            f"  the judge answered for {section.coverage:.1%} of the facts; unchecked facts are "
            "left out of the judge's rate"
        )
    if not section.calibrated:
        lines.append(
            f"  uncalibrated: {section.labels} labels, under the {section.minimum} needed to "
            "trust the correction"
        )
    lines.append(f"  {judge}")
    return "\n".join(lines)
