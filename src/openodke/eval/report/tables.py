"""A report as flat tables: one list of dicts per table, the same for the HTML page, DataFrames
(``EvalReport.to_pandas``) and ``odke report csv|parquet``.

Tables: ``rows`` (each configuration's P/R/F1 with ranges, counts, cost), ``predicates`` (per
predicate P/R/F1 with 95% ranges over facts, the worst first), ``diagnosis`` (where facts are
lost), ``fixes`` (what should change) and ``comparison`` (a compare's paired differences). A
StageReport gives ``metrics`` and ``breakdown``. Nothing here renders or prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from openodke.eval.report.models import EvalReport, Value
    from openodke.eval.stages.stage_report import StageReport

__all__ = [
    "PREDICATE_RANGE",
    "Table",
    "comparison_table",
    "diagnosis_table",
    "fixes_table",
    "predicate_ranges",
    "predicates_table",
    "report_tables",
    "rows_table",
    "stage_tables",
]

Table = list[dict[str, Any]]

PREDICATE_RANGE = (
    "per-predicate ranges are 95% intervals over facts (Jeffreys prior, Goutte & Gaussier 2005), "
    "not over documents: facts of one document go together, so a document range is wider"
)
"""What a per-predicate range is, said wherever one is shown."""

_DRAWS = 10_000  # Dirichlet draws: a 2.5% quantile to about ±0.01


def _value(prefix: str, value: Value) -> dict[str, float | None]:
    return {prefix: value.value, f"{prefix}_low": value.low, f"{prefix}_high": value.high}


def rows_table(report: EvalReport) -> Table:
    """One row per configuration: P/R/F1 with their ranges, counts, conformance, cost."""
    table: Table = []
    for row in report.rows:
        p = row.performance
        out: dict[str, Any] = {"row": row.name, "average": p.average}
        for name in ("precision", "recall", "f1"):
            out |= _value(name, getattr(p, name))
        c = row.counts
        out |= {
            "hits": c.hits if c else None,
            "over_extraction": c.over_extraction if c else None,
            "under_extraction": c.under_extraction if c else None,
            "predicted": c.predicted if c else None,
            "gold": c.gold if c else None,
            "documents": c.documents if c else None,
            "conformance": row.conformance.rate if row.conformance else None,
            "hallucination": row.hallucination.rate if row.hallucination else None,
            "calls": row.cost.calls,
            "cached_calls": row.cost.cached,
            "prompt_tokens": row.cost.prompt_tokens,
            "completion_tokens": row.cost.completion_tokens,
            "usd": row.cost.usd,
            "seconds": row.latency.seconds,
        }
        table.append(out)
    return table


def predicate_ranges(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, *, level: float = 0.95, seed: int | None = 0
) -> dict[str, np.ndarray]:
    """95% intervals of precision, recall and F1 from each predicate's tp, fp and fn.

    Goutte & Gaussier (2005): with a Jeffreys prior the (tp, fp, fn) shares are Dirichlet(tp+½,
    fp+½, fn+½), so precision is Beta(tp+½, fp+½) and recall Beta(tp+½, fn+½) (the Jeffreys
    interval) and F1 = 2tp/(2tp+fp+fn). All three are read off the same seeded Dirichlet draws
    (equal-tailed), every predicate at once, ending at 0 when tp is 0 and at 1 when nothing was
    missed or wrong. A zero count still gets a range, unlike a bootstrap over facts. A range
    whose denominator is 0 (no prediction, no gold) is NaN: undefined.
    """
    counts = np.stack([np.asarray(x, dtype=float).reshape(-1) for x in (tp, fp, fn)], axis=1)
    if not len(counts):
        return {
            f"{m}_{end}": np.zeros(0)
            for m in ("precision", "recall", "f1")
            for end in ("low", "high")
        }
    # draws per distinct (tp, fp, fn), in sorted order: equal counts get equal ranges, and a
    # predicate's range does not depend on which others are in the report
    unique, back = np.unique(counts, axis=0, return_inverse=True)
    ranges = _ranges(*unique.T, level=level, seed=seed)
    return {name: values[back.reshape(-1)] for name, values in ranges.items()}


def _ranges(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, *, level: float, seed: int | None
) -> dict[str, np.ndarray]:
    tail = (1 - level) / 2
    rng = np.random.default_rng(seed)
    alpha = np.stack([tp + 0.5, fp + 0.5, fn + 0.5], axis=-1)  # (k, 3)
    # Dirichlet draws as gammas (their normalisation cancels in every ratio): (draws, k, 3)
    g = rng.standard_gamma(alpha, size=(_DRAWS, *alpha.shape))
    hits = g[..., 0]
    draws = {
        "precision": (hits / (hits + g[..., 1]), fp),
        "recall": (hits / (hits + g[..., 2]), fn),
        "f1": (2 * hits / (2 * hits + g[..., 1] + g[..., 2]), fp + fn),
    }
    out: dict[str, np.ndarray] = {}
    for name, (values, misses) in draws.items():
        low, high = np.quantile(values, [tail, 1 - tail], axis=0)
        # Brown, Cai & DasGupta (2001): the Jeffreys interval ends at 0 when nothing is right
        # and at 1 when nothing is wrong, so a point at 0 or 1 is always inside its range
        low = np.where(tp == 0, 0.0, low)
        high = np.where(misses == 0, 1.0, high)
        undefined = tp + misses == 0
        out[f"{name}_low"] = np.where(undefined, np.nan, low)
        out[f"{name}_high"] = np.where(undefined, np.nan, high)
    return out


def predicates_table(report: EvalReport | StageReport, *, seed: int | None = 0) -> Table:
    """Per stage and predicate, P/R/F1 with 95% ranges over facts: the predicates the gold
    holds, the worst F1 first (an undefined F1 before any), then the most gold first; then the
    predicates only predicted, the most predictions first."""
    stages = [s for s in _stages(report) if s.stage != "ablation"]  # its rows are runs
    table: Table = []
    for stage in stages:
        rows = [
            (name, row)
            for name, row in stage.breakdown.items()
            if all(isinstance(row.get(k), int) for k in ("tp", "fp", "fn"))
        ]
        if not rows:
            continue
        counts = np.array([[row["tp"], row["fp"], row["fn"]] for _, row in rows], dtype=float)
        ranges = predicate_ranges(counts[:, 0], counts[:, 1], counts[:, 2], seed=seed)
        for i, (name, row) in enumerate(rows):
            out: dict[str, Any] = {"stage": stage.stage, "predicate": name}
            for metric in ("precision", "recall", "f1"):
                out[metric] = row.get(metric)
                for end in ("low", "high"):
                    number = float(ranges[f"{metric}_{end}"][i])
                    out[f"{metric}_{end}"] = None if np.isnan(number) else number
            out |= {
                "tp": row["tp"],
                "fp": row["fp"],
                "fn": row["fn"],
                "support": row.get("support", row["tp"] + row["fn"]),
            }
            table.append(out)
    table.sort(key=_worst_first)
    return table


def _worst_first(row: dict[str, Any]) -> tuple[Any, ...]:
    """Predicates the gold holds, the lowest F1 first (undefined before 0), then the most gold
    first; then those only predicted, the most predictions first."""
    if row["support"]:
        return (
            row["stage"],
            0,
            -1.0 if row["f1"] is None else row["f1"],
            -row["support"],
            row["predicate"],
        )
    return (row["stage"], 1, -row["fp"], 0, row["predicate"])


def _stages(report: EvalReport | StageReport) -> list[StageReport]:
    from openodke.eval.stages.stage_report import StageReport

    return [report] if isinstance(report, StageReport) else list(report.stages)


def diagnosis_table(report: EvalReport) -> Table:
    """One row per diagnosis bucket: side, count and share (null: the run cannot measure it)."""
    return [
        {
            "row": d.row,
            "side": d.side,
            "bucket": d.bucket,
            "label": d.label,
            "count": d.count,
            "share": d.share,
            "examples": len(d.examples),
            "note": d.note,
        }
        for d in report.diagnosis
    ]


def fixes_table(report: EvalReport) -> Table:
    """One row per fix, ranked by expected recall gain."""
    return [
        {
            "rank": f.rank,
            "fix": f.id,
            "misses": f.misses,
            "expected": f.recall.expected,
            "ceiling": f.recall.ceiling,
            "reference": f.recall.reference,
            "exact": f.recall.exact,
            "knob": f.knob,
            "action": f.action,
            "basis": f.recall.basis,
            "buckets": ", ".join(f.buckets),
        }
        for f in report.fixes
    ]


def comparison_table(report: EvalReport) -> Table:
    """The deciding metric, then each guardrail: A, B, B − A with its interval, the limit."""
    c = report.comparison
    if c is None:
        return []
    table: Table = []
    for role, name, paired in [
        ("decides", c.metric, c.primary),
        *(("guardrail", k, v) for k, v in c.guardrails.items()),
    ]:
        low, high = paired.interval if paired.interval is not None else (None, None)
        table.append(
            {
                "metric": name,
                "role": role,
                "a": paired.a,
                "b": paired.b,
                "difference": paired.difference,
                "difference_low": low,
                "difference_high": high,
                "detection_limit": paired.detection_limit,
                "verdict": paired.verdict,
                "units": paired.items,
                "flips": paired.flips,
                "b_low": paired.b_interval[0] if paired.b_interval else None,
                "b_high": paired.b_interval[1] if paired.b_interval else None,
            }
        )
    return table


def stage_tables(stage: StageReport) -> dict[str, Table]:
    """A StageReport's ``metrics`` (one row) and ``breakdown`` (one row per key)."""
    key = {"score": "bin", "ablation": "row"}.get(stage.stage, "key")
    tables: dict[str, Table] = {
        "metrics": [{"stage": stage.stage, "n": stage.n, **stage.metrics}],
        "breakdown": [{key: name, **row} for name, row in stage.breakdown.items()],
    }
    if stage.breakdown and any("tp" in row for row in stage.breakdown.values()):
        tables["predicates"] = predicates_table(stage)
    return tables


def report_tables(report: EvalReport | StageReport) -> dict[str, Table]:
    """Every table of a report, by name; empty tables are left out."""
    from openodke.eval.stages.stage_report import StageReport

    if isinstance(report, StageReport):
        tables = stage_tables(report)
    else:
        tables = {
            "rows": rows_table(report),
            "predicates": predicates_table(report),
            "diagnosis": diagnosis_table(report),
            "fixes": fixes_table(report),
            "comparison": comparison_table(report),
        }
    return {name: rows for name, rows in tables.items() if rows}
