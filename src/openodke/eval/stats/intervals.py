"""Bootstrap ranges that hold their level on small and skewed sets: expanded BCa.

A range is read off the bootstrap draws of a statistic. The percentile interval (Efron &
Tibshirani 1993, ch. 13) takes the 2.5% and 97.5% points; it runs short on small sets
(92.8% at 20 documents in our simulation, DECISIONS #40) for two reasons: the bootstrap
distribution is narrower than the sampling one by about √((n−1)/n) and uses z where t belongs
("narrowness bias", Hesterberg 2015, §6), and a ratio of sums is skewed. The expanded BCa
interval corrects both:

- BCa (Efron 1987; Efron & Tibshirani 1993, §14.3) moves the two points by the bias
  correction z0 = Φ⁻¹(share of draws below the estimate, ties counted half) and the acceleration
  a = Σd³ / (6 (Σd²)^1.5), d = mean − each leave-one-out value (the jackknife);
- at the expanded level (Hesterberg 2015; his `resample::CI.bca(expand = TRUE)`): the normal
  point z of each tail is replaced by √(n/(n−1)) · t_ν, the t point for the same tail, with
  ν = n − 1, or fewer degrees of freedom when the jackknife values are heavy-tailed:
  Satterthwaite's (1946) ν = 2n·m2² / (m4 − m2²) from their second and fourth central moments,
  the degrees of freedom of a standard error summed from such values (n − 1 for normal ones).
  A few huge documents make a set of 200 behave like a much smaller one; this says so.

Where BCa is undefined (every draw on one side of the estimate, so z0 is infinite; or an
acceleration so large that the adjusted point folds over) the range falls back to the percentile
interval at the expanded level, and says so in `Bounds.method`. No estimate, or fewer than two
units: the percentile interval (one unit: every draw is equal).

numpy and the standard library only (DECISIONS #26 of the spec: no scipy in `openodke.eval`).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist
from typing import Literal, NamedTuple

import numpy as np

__all__ = [
    "CONCENTRATED",
    "EFFECTIVE_SET",
    "SMALL_SET",
    "Bounds",
    "IntervalMethod",
    "acceleration",
    "bias_correction",
    "degrees_of_freedom",
    "effective_documents",
    "expanded_z",
    "interval_bounds",
    "small_set_note",
    "student_t_quantile",
]

IntervalMethod = Literal["expanded-bca", "percentile"]
"""How a range is read off the draws: expanded BCa (the default) or the plain percentile."""

# Below this many informative units (documents holding a gold or predicted fact; every item) no
# range is trusted (DECISIONS #41). In our simulation expanded BCa ranges cover 88% with 4–5 such
# documents (61% with 2–3), 94–97% from 6 on; 10 leaves a margin.
SMALL_SET = 10
# A set whose facts sit in a few documents behaves like a set of that few (DECISIONS 161): below
# this many effective documents (Kish's (Σw)²/Σw², w a document's gold + predicted facts), when
# they are at most 1/CONCENTRATED of the informative documents (design effect ≥ 1.5), no reading
# of the draws held 93.5% in our simulation (bench/range_simulations.py): 89–93% at 10–20
# effective documents of heavy-tailed sizes, against 94–96% for sets of similar sizes (design
# effect about 1.2) with as few effective documents.
EFFECTIVE_SET = 30
CONCENTRATED = 1.5
# Student's t CDF by its finite series up to this many degrees of freedom; beyond, the
# Cornish–Fisher expansion, whose next term is under 1e-10 there.
_SERIES_DF = 400
_NORMAL = NormalDist()


class Bounds(NamedTuple):
    """The two ends of a range and how they were read off the draws."""

    low: float
    high: float
    method: Literal["expanded-bca", "expanded-percentile", "percentile"]


def interval_bounds(
    draws: np.ndarray,
    *,
    estimate: float | None,
    jackknife: np.ndarray,
    units: int,
    level: float,
    method: IntervalMethod = "expanded-bca",
) -> Bounds | None:
    """The range of `draws` at `level`; None when no draw is defined.

    `estimate` is the statistic over all units, `jackknife` its value with each unit left out
    (NaN where undefined), `units` the number of units resampled. Undefined (NaN) draws are left
    out: they say nothing about the statistic.
    """
    ordered = np.sort(draws[np.isfinite(draws)])
    if ordered.size == 0:
        return None
    if method == "percentile" or estimate is None or units < 2:
        tail = (1.0 - level) / 2.0
        return Bounds(_lower(ordered, tail), _upper(ordered, tail), "percentile")
    z_low = expanded_z(level, units, degrees_of_freedom(jackknife, units))
    z0 = bias_correction(ordered, estimate)
    accel = acceleration(jackknife)
    if z0 is not None:
        ends = []
        for z in (z_low, -z_low):
            bend = 1.0 - accel * (z0 + z)
            ends.append(z0 + (z0 + z) / bend if bend > 0 else math.nan)
        if not math.isnan(ends[0] + ends[1]):
            # Upper tail as Φ(−w), not 1 − Φ(w): exact mirror images when A and B swap.
            return Bounds(
                _lower(ordered, _cdf(ends[0])), _upper(ordered, _cdf(-ends[1])), "expanded-bca"
            )
    tail = _cdf(z_low)
    return Bounds(_lower(ordered, tail), _upper(ordered, tail), "expanded-percentile")


def bias_correction(ordered: np.ndarray, estimate: float) -> float | None:
    """BCa's z0 = Φ⁻¹(share of draws below the estimate), ties counted half (as
    `scipy.stats.bootstrap` does); None when every draw is on one side (z0 infinite)."""
    below = int(np.searchsorted(ordered, estimate, side="left"))
    ties = int(np.searchsorted(ordered, estimate, side="right")) - below
    size = ordered.size
    low, high = below + ties / 2, size - below - ties / 2
    if low == 0 or high == 0:
        return None
    # From the smaller side, so swapping A and B gives exactly −z0.
    return _NORMAL.inv_cdf(low / size) if low <= high else -_NORMAL.inv_cdf(high / size)


def acceleration(jackknife: np.ndarray) -> float:
    """BCa's a = Σd³ / (6 (Σd²)^1.5), d = mean − each leave-one-out value (Efron & Tibshirani
    1993, eq. 14.15); undefined values are left out, and 0 when the values do not vary."""
    values = jackknife[np.isfinite(jackknife)]
    if values.size < 2:
        return 0.0
    spread = values.mean() - values
    # Sums, not np.dot: BLAS threads cost more than they save on one vector (10× on 2 cores).
    powers = spread * spread
    squares = float(powers.sum())
    if squares == 0.0:
        return 0.0
    return float((powers * spread).sum()) / (6.0 * squares**1.5)


def degrees_of_freedom(jackknife: np.ndarray, units: int) -> int:
    """ν for the expanded level: n − 1, or Satterthwaite's 2k·m2² / (m4 − m2²) over the k defined
    jackknife values when that is smaller (heavy tails), rounded down, at least 1."""
    values = jackknife[np.isfinite(jackknife)]
    ceiling = max(units - 1, 1)
    if values.size < 2:
        return ceiling
    spread = values - values.mean()
    squares = spread * spread
    m2, m4 = float(squares.mean()), float((squares * squares).mean())
    excess = m4 - m2 * m2
    if excess <= 0.0:  # two-point or constant values: no evidence of heavy tails
        return ceiling
    satterthwaite = 2.0 * values.size * m2 * m2 / excess
    return max(1, min(ceiling, math.floor(satterthwaite)))


@lru_cache(maxsize=1024)
def expanded_z(level: float, units: int, df: int | None = None) -> float:
    """The lower tail's normal point at Hesterberg's expanded level: −√(n/(n−1)) · t_ν, where
    t_ν is Student's t point leaving (1 − level)/2 above it, ν = `df` (default n − 1); −inf
    for fewer than two units."""
    if units < 2:
        return -math.inf
    tail = (1.0 - level) / 2.0
    freedom = units - 1 if df is None else df
    return -math.sqrt(units / (units - 1)) * student_t_quantile(tail, freedom)


def student_t_quantile(tail: float, df: int) -> float:
    """The t with P(T > t) = `tail` for Student's t with `df` degrees of freedom (0 < tail ≤ 1/2).

    Up to 400 degrees of freedom the two-sided CDF's finite series (Abramowitz & Stegun 26.7.3
    and 26.7.4) is inverted by bisection on θ = atan(t/√df); beyond, the Cornish–Fisher
    expansion (A&S 26.7.5).
    """
    if not 0.0 < tail <= 0.5 or df < 1:
        raise ValueError(f"student_t_quantile needs 0 < tail <= 0.5 and df >= 1: {tail}, {df}")
    target = 1.0 - 2.0 * tail  # P(|T| <= t)
    if df > _SERIES_DF:
        return _cornish_fisher(-_NORMAL.inv_cdf(tail), df)
    low, high = 0.0, math.pi / 2
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if _t_within(middle, df) < target:
            low = middle
        else:
            high = middle
    return math.sqrt(df) * math.tan((low + high) / 2)


def effective_documents(weights: np.ndarray) -> float:
    """Kish's effective number of documents, (Σw)² / Σw², for each document's weight w (its gold
    plus predicted facts: the denominator of its F1); 0 when no document has any."""
    w = np.asarray(weights, dtype=np.float64)
    squares = float((w * w).sum())
    return float(w.sum()) ** 2 / squares if squares > 0 else 0.0


def small_set_note(
    units: int,
    unit: str = "document",
    *,
    total: int | None = None,
    effective: float | None = None,
) -> str | None:
    """The note for a set too small or too concentrated for any bootstrap range to be trusted,
    else None.

    `units` counts the informative units: documents holding a gold or predicted fact (an empty
    document adds nothing to any sum, so a set of 200 mostly empty documents is a small set),
    every item. `total` is how many units the set has, when more. Below `SMALL_SET` (10) a 95%
    range can cover the truth far less often than 95% (DECISIONS #41), whatever the method.
    `effective` is `effective_documents` of the set: under `EFFECTIVE_SET` (30) when the facts
    are concentrated (the informative documents are `CONCENTRATED` (1.5) times as many or more), a
    few documents decide every draw and the note gives the effective size (DECISIONS 161).
    """
    if units >= SMALL_SET:
        if effective is None or effective >= EFFECTIVE_SET or units < CONCENTRATED * effective:
            return None
        return (
            f"the facts sit in few {unit}s: {effective:.1f} effective {unit}s of {units} "
            f"(Kish's (Σw)²/Σw², w = a {unit}'s gold + predicted facts), under "
            f"{EFFECTIVE_SET}: a 95% range can cover the truth less than 95% of the time when "
            f"a few {unit}s hold most facts; read the ranges as rough"
        )
    if total is not None and total != units:
        holds = "holds" if units == 1 else "hold"
        counted = f"{units} of {total} {unit}s {holds} a gold or predicted fact"
    else:
        counted = f"{units} {unit}" + ("" if units == 1 else "s")
    return (
        f"only {counted}: too few for any range to be trusted (below {SMALL_SET} a 95% range "
        "can cover the truth far less than 95% of the time); read the ranges as rough"
    )


# ---------------------------------------------------------------------------------------------


def _cdf(z: float) -> float:
    # Φ(z) through erfc, accurate far into the lower tail.
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _lower(ordered: np.ndarray, tail: float) -> float:
    """The `tail` quantile of sorted values, linear between order statistics (numpy's default,
    Hyndman & Fan type 7)."""
    return _from_end(ordered, tail)


def _upper(ordered: np.ndarray, tail: float) -> float:
    """The 1 − `tail` quantile, counted from the top: −_upper(x) is exactly _lower(−x)."""
    return _from_end(ordered[::-1], tail)


def _from_end(values: np.ndarray, tail: float) -> float:
    position = (values.size - 1) * min(max(tail, 0.0), 1.0)
    index = min(int(position), values.size - 1)
    following = min(index + 1, values.size - 1)
    start = float(values[index])
    return start + (position - index) * (float(values[following]) - start)


def _t_within(theta: float, df: int) -> float:
    """P(|T| <= √df·tan θ) for Student's t with df degrees of freedom (A&S 26.7.3, 26.7.4)."""
    cos, sin = math.cos(theta), math.sin(theta)
    if df % 2 == 0:
        # sin θ (1 + ½cos²θ + (1·3)/(2·4)cos⁴θ + … up to cos^(df−2)θ)
        steps = np.arange(df // 2 - 1, dtype=np.float64)
        terms = np.cumprod((2 * steps + 1) / (2 * steps + 2) * cos * cos)
        return sin * (1.0 + float(terms.sum()))
    if df == 1:
        return 2.0 * theta / math.pi
    # (2/π)(θ + sin θ (cos θ + (2/3)cos³θ + (2·4)/(3·5)cos⁵θ + … up to cos^(df−2)θ))
    steps = np.arange(1, (df - 1) // 2, dtype=np.float64)
    terms = cos * np.cumprod(np.concatenate([[1.0], (2 * steps) / (2 * steps + 1) * cos * cos]))
    return 2.0 / math.pi * (theta + sin * float(terms.sum()))


def _cornish_fisher(x: float, df: int) -> float:
    # A&S 26.7.5: t ≈ x + g1/ν + g2/ν² + g3/ν³ + g4/ν⁴, x the normal point.
    g1 = (x**3 + x) / 4
    g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96
    g3 = (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384
    g4 = (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160
    return x + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4
