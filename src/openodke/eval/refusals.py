"""Refusal precision: how often a grounder's refusals were right, from labels a person ticked.

The sample behind the labels shares its size equally across strata (dataset, extractor, verdict),
so a small stratum is drawn far more often than its size says. A figure over rows from several
strata therefore weights each stratum by its size (stratified estimator) and puts a Wilson interval
on the effective sample size; labels that carry no sizes are reported per stratum only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.eval.stages.stage_report import StageReport, fmt

__all__ = ["Z95", "RefusalLabel", "refusal_precision", "report_refusals", "wilson_interval"]

# Two-sided 95% normal quantile, Φ⁻¹(0.975).
Z95 = 1.959964

Judgement = Literal["refusal_correct", "refusal_wrong", "gold_wrong", "unsure"]
# A refusal was right when the claim is not true: the box says so, or the gold that had it was wrong.
RIGHT: frozenset[str] = frozenset({"refusal_correct", "gold_wrong"})


class RefusalLabel(BaseModel):
    """One refused claim a person judged: was the refusal right?"""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="The drawn row's id.")
    claim: str = Field(description="The claim as a sentence, e.g. 'Loud — performer — Rihanna.'.")
    text: str = Field(description="The passage the claim was checked against.")
    verdict: str = Field(description="Why it was refused: contradicted, not_found, a gate reason.")
    reason: str = Field(description="The grounder's (or gate's) stated reason.")
    predicate: str = Field(description="The claim's predicate.")
    gold: bool | None = Field(description="Whether gold holds the claim; null when there is none.")
    judgement: Judgement = Field(description="The ticked box.")
    dataset: str | None = Field(default=None, description="The run's dataset, if any.")
    extractor: str | None = Field(default=None, description="The run's extractor, if any.")
    stratum: str | None = Field(
        default=None, description="The stratum drawn from; defaults to dataset/extractor/verdict."
    )
    stratum_size: int | None = Field(
        default=None, ge=1, description="Refusals in the stratum the row was drawn from."
    )

    @property
    def stratum_key(self) -> str:
        """``stratum``, else the (dataset, extractor, verdict) the sample was shared across."""
        if self.stratum is not None:
            return self.stratum
        return "/".join(part or "-" for part in (self.dataset, self.extractor, self.verdict))


class Precision(BaseModel):
    """Refusal precision over some rows, with its Wilson 95% interval; None where undefined."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    refusal_precision: float | None
    low: float | None
    high: float | None
    judged: int
    unsure: int
    effective_n: float | None
    strata: int
    weighted: bool
    unjudged_strata: int = Field(default=0, description="Strata left out: every label unsure.")
    why: str | None = Field(default=None, description="Why the precision is None, if it is.")


def wilson_interval(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` over ``n`` (may be an effective, non-integer n)."""
    # Wilson (1927), JASA 22:209; as in Agresti & Coull (1998) eq. 2 / statsmodels method="wilson".
    if n <= 0:
        raise ValueError("wilson_interval needs n > 0")
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    # The Wilson interval always contains p (exactly 0 at p = 0, 1 at p = 1); clip rounding.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def refusal_precision(
    labels: Iterable[RefusalLabel], sizes: Mapping[str, int] | None = None
) -> Precision:
    """Right refusals over every judgement but unsure, stratum-weighted when rows span strata.

    ``sizes`` (stratum key → refusals in it) overrides the labels' own ``stratum_size``.
    """
    rows = list(labels)
    unsure = sum(r.judgement == "unsure" for r in rows)
    judged = len(rows) - unsure
    by_stratum = _tally(rows, sizes or {})
    unjudged = len({r.stratum_key for r in rows}) - len(by_stratum)
    base = {
        "judged": judged,
        "unsure": unsure,
        "strata": len(by_stratum),
        "unjudged_strata": unjudged,
    }
    if judged == 0:
        why = "no labels" if not rows else f"all {unsure} labels unsure"
        return _undefined(base, why, weighted=False)
    if len(by_stratum) == 1:
        ((right, n, _size),) = by_stratum.values()
        return _with_interval(base, right / n, float(n), weighted=False)
    if any(size is None for _right, _n, size in by_stratum.values()):
        return _undefined(
            base, "rows span strata without sizes: see the per-stratum rows", weighted=False
        )
    return _stratified(base, by_stratum)


def report_refusals(
    labels: Iterable[RefusalLabel], *, sizes: Mapping[str, int] | None = None
) -> StageReport:
    """Refusal precision overall, per dataset, extractor, verdict and stratum (stage "refusals")."""
    rows = list(labels)
    overall = refusal_precision(rows, sizes)
    notes = [_sentence(overall)]
    breakdown: dict[str, dict[str, object]] = {}
    for field in ("dataset", "extractor", "verdict"):
        values = [getattr(r, field) for r in rows]
        if field != "verdict" and all(v is None for v in values):
            continue
        for value in sorted({v for v in values if v is not None}):
            part = [r for r, v in zip(rows, values, strict=True) if v == value]
            breakdown[f"{field}={value}"] = _row(refusal_precision(part, sizes))
    strata = sorted({r.stratum_key for r in rows})
    if len(strata) > 1 or any(r.stratum is not None for r in rows):
        for key in strata:
            part = [r for r in rows if r.stratum_key == key]
            breakdown[f"stratum={key}"] = _row(refusal_precision(part, sizes))
    if overall.weighted:
        notes.append(
            "Strata weighted by size: equal shares draw a small stratum more often than its "
            "size says; the interval is Wilson's on the effective sample size."
        )
    if overall.unjudged_strata and overall.refusal_precision is not None:
        notes.append(
            f"{overall.unjudged_strata} stratum(s) had only unsure labels and are left out of "
            "the overall figure."
        )
    if any(not row["judged"] for row in breakdown.values()):
        notes.append("A row with no judged labels has no precision (—).")
    metrics: dict[str, float | int | None] = {
        "refusal_precision": overall.refusal_precision,
        "low": overall.low,
        "high": overall.high,
        "judged": overall.judged,
        "unsure": overall.unsure,
        "effective_n": overall.effective_n,
    }
    return StageReport(
        stage="refusals", n=len(rows), metrics=metrics, breakdown=breakdown, notes=tuple(notes)
    )


def _tally(
    rows: list[RefusalLabel], sizes: Mapping[str, int]
) -> dict[str, tuple[int, int, int | None]]:
    """Stratum key → (right, judged, size) over the judged rows; sizes must agree within a stratum."""
    out: dict[str, tuple[int, int, int | None]] = {}
    declared: dict[str, set[int]] = {}
    drawn: dict[str, int] = {}
    for r in rows:
        key = r.stratum_key
        drawn[key] = drawn.get(key, 0) + 1
        if r.stratum_size is not None:
            declared.setdefault(key, set()).add(r.stratum_size)
        if r.judgement == "unsure":
            continue
        right, n, _ = out.get(key, (0, 0, None))
        out[key] = (right + (r.judgement in RIGHT), n + 1, None)
    for key, (right, n, _) in out.items():
        size = sizes.get(key)
        if size is None and key in declared:
            if len(declared[key]) > 1:
                raise InputError(f"stratum {key!r} has rows of sizes {sorted(declared[key])}")
            (size,) = declared[key]
        if size is not None and size < drawn[key]:
            raise InputError(f"stratum {key!r} has {drawn[key]} labels but size {size}")
        out[key] = (right, n, size)
    return out


def _stratified(
    base: dict[str, int], by_stratum: Mapping[str, tuple[int, int, int | None]]
) -> Precision:
    total = sum(size or 0 for _right, _n, size in by_stratum.values())
    p = 0.0
    variance = 0.0
    for right, n, size in by_stratum.values():
        w = (size or 0) / total
        p_h = right / n
        # Stratified mean and its variance, no finite-population correction: Cochran (1977),
        # Sampling Techniques, eq. 5.1 and Thm 5.3 — p = Σ W_h p_h, Var = Σ W_h² p_h(1−p_h)/n_h.
        p += w * p_h
        variance += w * w * p_h * (1 - p_h) / n
    p = min(1.0, max(0.0, p))
    judged = sum(n for _right, n, _size in by_stratum.values())
    # Effective sample size n_eff = p(1−p)/Var (Kish 1965, §8.2); a Wilson interval on it as in
    # Korn & Graubard (1998). With Var = 0 (every stratum all right or all wrong) n_eff is the count.
    n_eff = p * (1 - p) / variance if variance > 0 else float(judged)
    return _with_interval(base, p, n_eff, weighted=True)


def _with_interval(base: dict[str, int], p: float, n: float, *, weighted: bool) -> Precision:
    low, high = wilson_interval(p, n)
    return Precision(
        refusal_precision=p, low=low, high=high, effective_n=n, weighted=weighted, **base
    )


def _undefined(base: dict[str, int], why: str, *, weighted: bool) -> Precision:
    return Precision(
        refusal_precision=None,
        low=None,
        high=None,
        effective_n=None,
        weighted=weighted,
        why=why,
        **base,
    )


def _row(result: Precision) -> dict[str, object]:
    return result.model_dump(exclude={"why", "strata", "unjudged_strata"})


def _sentence(result: Precision) -> str:
    """The headline: ``refusal precision 0.800 [0.490, 0.943] (Wilson 95%), 10 judged, 1 unsure``."""
    tail = f"{result.judged} judged, {result.unsure} unsure"
    if result.refusal_precision is None:
        return f"refusal precision — ({result.why}), {tail}"
    interval = f"[{fmt(result.low)}, {fmt(result.high)}]"
    how = "Wilson 95%"
    if result.weighted:
        how += f" on effective n {result.effective_n:.1f}, {result.strata} strata weighted by size"
    return f"refusal precision {fmt(result.refusal_precision)} {interval} ({how}), {tail}"
