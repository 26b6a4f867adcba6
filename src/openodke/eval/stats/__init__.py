"""The statistics under every range: bootstrap draws, intervals, paired comparisons, tests.

- `bootstrap`: the public API (one run's ranges, a paired comparison's draws and ranges).
- `resample`: the draws (n units with replacement, as summed counts).
- `intervals`: reading a range from draws (expanded BCa, percentile) and the small-set note.
- `paired`: both runs of a comparison on the same draws.
- `significance`: exact McNemar, the sign test and the detection limit.
- `units`: the units a statistic is computed over (items, documents) and their metrics.
"""

from openodke.eval.stats.bootstrap import (
    DOCUMENT_METRICS,
    ITEM_METRICS,
    Z_POWER,
    Interval,
    IntervalMethod,
    McNemar,
    Paired,
    PairedDraws,
    bootstrap_interval,
    detection_limit,
    document_intervals,
    mcnemar,
    paired_bootstrap,
    paired_documents,
    paired_items,
    resampled_sums,
    small_set_note,
)

__all__ = [
    "DOCUMENT_METRICS",
    "ITEM_METRICS",
    "Z_POWER",
    "Interval",
    "IntervalMethod",
    "McNemar",
    "Paired",
    "PairedDraws",
    "bootstrap_interval",
    "detection_limit",
    "document_intervals",
    "mcnemar",
    "paired_bootstrap",
    "paired_documents",
    "paired_items",
    "resampled_sums",
    "small_set_note",
]
