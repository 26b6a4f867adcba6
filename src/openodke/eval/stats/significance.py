"""Was the change real, for right-or-wrong items? McNemar's exact test and the detection limit.

numpy and the standard library only (DECISIONS #26).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.eval.stats.units import same_length, units_of

__all__ = ["Z_POWER", "McNemar", "binomial_two_sided", "detection_limit", "mcnemar"]

# z for a two-sided 95% test plus z for 80% power: the minimum detectable effect of a paired
# test of proportions, Z·sqrt(d/n) with d the discordant share (DECISIONS #29; Connor 1987).
Z_POWER = 1.959964 + 0.841621
# McNemar: up to this many flips the tail is summed in exact integers, beyond it in logs.
_EXACT_FLIPS = 5000


class McNemar(BaseModel):
    """McNemar's exact test on the items that flipped between two runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: int = Field(description="Items compared.")
    gained: int = Field(description="Wrong in A, right in B.")
    lost: int = Field(description="Right in A, wrong in B.")
    p_value: float = Field(description="Exact two-sided binomial p on gained vs lost.")


def detection_limit(n: int, flip_share: float) -> float:
    """The smallest change n paired items detect at 95% confidence and 80% power, Z·√(d/n).

    `flip_share` is d, the share of items whose right/wrong differs between the runs
    (DECISIONS #29). `[round(detection_limit(n, 0.10) * 100, 1) for n in (300, 1_500, 5_000)]`
    is `[5.1, 2.3, 1.3]`.
    """
    if n < 1:
        raise InputError(f"detection_limit needs at least one item, got n={n}")
    if not 0.0 <= flip_share <= 1.0:
        raise InputError(f"flip_share is a share between 0 and 1, got {flip_share}")
    return Z_POWER * math.sqrt(flip_share / n)


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """McNemar's exact test: two-sided binomial test of gained vs lost at p = 1/2.

    p = min(1, 2·P(X ≤ min(gained, lost))), X ~ Bin(gained + lost, 1/2), computed in exact
    integer arithmetic (McNemar 1947; the exact form as in Fagerland et al. 2013). No flips: p = 1.
    """
    right_a, right_b = _bools(a, "A"), _bools(b, "B")
    same_length(right_a.size, right_b.size, "items")
    gained = int(np.count_nonzero(~right_a & right_b))
    lost = int(np.count_nonzero(right_a & ~right_b))
    return McNemar(
        items=int(right_a.size), gained=gained, lost=lost, p_value=binomial_two_sided(gained, lost)
    )


def binomial_two_sided(gained: int, lost: int) -> float:
    """Two-sided exact binomial p of `gained` vs `lost` at p = 1/2 (1 with no flips)."""
    n, k = gained + lost, min(gained, lost)
    if n > _EXACT_FLIPS:
        return _binomial_two_sided_logs(n, k)
    term = total = 1  # C(n, 0); running sum of C(n, i) for i ≤ k, exact integers
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return min(1.0, (2 * total) / (1 << n))  # int / int is correctly rounded in Python


def _binomial_two_sided_logs(n: int, k: int) -> float:
    # Beyond a few thousand flips exact integers cost seconds. P(X <= k) = pmf(k) times
    # sum over j of prod_{m<j} (k - m) / (n - k + 1 + m): with k <= n/2 every ratio is below 1,
    # so the sum is good to ~1e-14; pmf(k) from lgamma carries ~1e-10 relative error at
    # 100,000 flips (Loader 2000's saddle point would do better; no p-value needs it).
    steps = np.arange(k, dtype=np.float64)
    tail = 1.0 + float(np.cumprod((k - steps) / (n - k + 1 + steps)).sum())
    log_pmf = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
    return min(1.0, 2 * math.exp(log_pmf) * tail)


def _bools(values: Sequence[bool], name: str) -> np.ndarray:
    unit, array = units_of(values, name)
    if unit != "item":
        raise InputError(f"{name}: McNemar's test needs right-or-wrong items")
    return array
