"""Output saturation: does the row's output stop growing with document length?

Per document, extractions and gold facts are each regressed on length, log on log (ordinary least
squares; the slope is the elasticity: output grows as length^slope). When extractions grow at under
half the gold's rate, output is flat against length, and the misses of long documents (longer than
the median document) with nothing near them are put down to saturation.

Only documents with at least one extraction and one gold fact enter the fits (log 0 is undefined);
at least 3 such documents of 2 or more distinct lengths are needed, else the bucket is unmeasured.
Length is counted in words (whitespace-separated tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: the diagnosis package names this module's function
    import numpy as np

__all__ = ["MIN_DOCUMENTS", "Saturation", "loglog_slope", "saturation"]

MIN_DOCUMENTS = 3
"""Documents with extractions and gold needed before the regression is trusted at all."""


def loglog_slope(length: np.ndarray, count: np.ndarray) -> float:
    """The OLS slope of log(count) on log(length): ``cov(x, y) / var(x)``."""
    import numpy as np

    x, y = np.log(length), np.log(count)
    dx = x - x.mean()
    return float(dx @ (y - y.mean()) / (dx @ dx))


@dataclass(frozen=True)
class Saturation:
    """The two fits and what follows: whether output is flat, and which documents are long."""

    measured: bool
    documents: int
    extraction_slope: float | None
    gold_slope: float | None
    saturated: bool
    median_length: float | None
    note: str

    def is_long(self, length: int) -> bool:
        """True when a document of ``length`` words is longer than the median."""
        return self.median_length is not None and length > self.median_length


def saturation(
    lengths: Sequence[int] | np.ndarray,
    extractions: Sequence[int] | np.ndarray,
    gold: Sequence[int] | np.ndarray,
) -> Saturation:
    """Fit both slopes over the documents given (one entry per document, same order)."""
    import numpy as np

    length = np.asarray(lengths, dtype=float)
    ext = np.asarray(extractions, dtype=float)
    gol = np.asarray(gold, dtype=float)
    median = float(np.median(length)) if len(length) else None
    used = (length > 0) & (ext > 0) & (gol > 0)
    n = int(used.sum())
    if n < MIN_DOCUMENTS or len(np.unique(length[used])) < 2:
        return Saturation(
            False,
            n,
            None,
            None,
            False,
            median,
            f"needs the texts and {MIN_DOCUMENTS} documents of different lengths with "
            f"extractions and gold; {n} have both",
        )
    e_slope = loglog_slope(length[used], ext[used])
    g_slope = loglog_slope(length[used], gol[used])
    flat = g_slope > 0 and e_slope < g_slope / 2
    words = f"{median:,.0f}" if median is not None else "—"
    how = (
        f"extractions grow as length^{e_slope:.2f}, gold as length^{g_slope:.2f} "
        f"({n} documents, log on log)"
    )
    note = (
        f"{how}: output is flat; documents over {words} words (the median) are long"
        if flat
        else f"{how}: output keeps up with length, so no miss is put down to saturation"
    )
    return Saturation(True, n, e_slope, g_slope, flat, median, note)
