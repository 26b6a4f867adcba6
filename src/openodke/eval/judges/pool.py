"""Recall without gold: each run's share of the true facts any of several runs found.

The pool is the distinct facts (first cited document, identity) that some run's grounding
stamped supported. A run's relative recall is its supported facts over the pool; its range is a
95% percentile bootstrap over documents (2,000 draws, seed 0), each draw resampling documents
and recounting both the pool and the run. ``unique`` counts the pooled facts no other run found.
Facts left unchecked count neither way (``coverage`` is the share that were checked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from openodke.doc_ids import DocIds
from openodke.errors import InputError
from openodke.eval.engine.matching import fact_key
from openodke.eval.report.models import Bootstrap, PooledRecall, PooledRun, Value
from openodke.eval.stages.stage_report import fmt
from openodke.eval.stats import resampled_sums
from openodke.types import Fact, GroundingVerdict

__all__ = ["CAVEAT", "pool_keys", "pooled_recall", "render_pool"]

CAVEAT = (
    "recall relative to the pool of what these runs found and a model judged supported: a true "
    "fact no run found is invisible, so every run's recall is overstated, adding a run can lower "
    "the others', and it never compares with recall against gold"
)
_UNCITED = ""


def pool_keys(facts: Sequence[Fact]) -> set[tuple[str, str]]:
    """The run's supported facts as ``(first cited document, identity key)``."""
    return {
        (f.doc_ids[0] if f.doc_ids else _UNCITED, fact_key(f))
        for f in facts
        if f.verdict is GroundingVerdict.supported
    }


def _percentile_range(draws: np.ndarray, level: float) -> tuple[float | None, float | None]:
    # Percentile interval (Efron & Tibshirani 1993, ch. 13), as the report's other ranges; draws
    # with an empty pool say nothing and are left out.
    finite = draws[np.isfinite(draws)]
    if finite.size == 0:
        return None, None
    tail = (1 - level) / 2
    low, high = np.quantile(finite, [tail, 1 - tail])
    return float(low), float(high)


def pooled_recall(
    runs: Sequence[tuple[str, Sequence[Fact]]],
    *,
    documents: Sequence[str] | None = None,
    resamples: int = 2000,
    seed: int | None = 0,
    level: float = 0.95,
) -> PooledRecall:
    """Each run's recall relative to the pool of every run's supported facts.

    ``documents`` are the bootstrap's units (default: every document a fact cites). Facts citing
    no document count in every draw.
    """
    if len(runs) < 2:
        raise InputError(f"a pool needs at least 2 runs, got {len(runs)}")
    names = [name for name, _ in runs]
    if len(set(names)) != len(names):
        raise InputError(f"run names repeat: {sorted(n for n in names if names.count(n) > 1)[0]}")
    keys = [pool_keys(facts) for _, facts in runs]
    if documents is not None:
        rename = _renamer(documents)
        keys = [{(rename(d), k) for d, k in mine} for mine in keys]
    pool = set().union(*keys)
    units = list(
        dict.fromkeys(documents if documents is not None else sorted({d for d, _ in pool}))
    )
    index = {doc: u for u, doc in enumerate(units)}
    outside = sorted({d for d, _ in pool if d not in index and d != _UNCITED})
    if outside:
        run = next(
            name
            for (name, _), mine in zip(runs, keys, strict=True)
            if any(d == outside[0] for d, _ in mine)
        )
        raise InputError(
            f"{len(outside)} supported fact(s) cite documents outside --documents, e.g. "
            f"{outside[0][:60]!r} in run {run}"
        )
    # counts[u, 0] = pooled facts of document u; counts[u, 1 + r] = run r's.
    counts = np.zeros((len(units), 1 + len(runs)), dtype=np.int64)
    fixed = np.zeros(1 + len(runs), dtype=np.int64)
    for doc, _ in pool:
        _add(counts, fixed, index, doc, 0)
    for r, mine in enumerate(keys):
        for doc, _ in mine:
            _add(counts, fixed, index, doc, 1 + r)
    draws = resampled_sums(counts, resamples=resamples, seed=seed) + fixed
    with np.errstate(divide="ignore", invalid="ignore"):
        recall_draws = draws[:, 1:] / draws[:, :1]
    rows = []
    for r, (name, facts) in enumerate(runs):
        others = set().union(*(k for o, k in enumerate(keys) if o != r))
        low, high = _percentile_range(recall_draws[:, r], level)
        checked = sum(f.verdict is not GroundingVerdict.unchecked for f in facts)
        rows.append(
            PooledRun(
                name=name,
                facts=len(facts),
                supported=len(keys[r]),
                unique=len(keys[r] - others),
                relative_recall=Value(
                    value=len(keys[r]) / len(pool) if pool else None,
                    low=low if pool else None,
                    high=high if pool else None,
                ),
                coverage=checked / len(facts) if facts else None,
            )
        )
    return PooledRecall(
        pool=len(pool),
        documents=len(units),
        runs=rows,
        bootstrap=Bootstrap(
            units=len(units), resamples=resamples, seed=seed, level=level, method="percentile"
        ),
        caveat=CAVEAT,
    )


def _renamer(documents: Sequence[str]) -> Callable[[str], str]:
    """A cited id → the document it names: itself, or the one document with its file stem
    (:mod:`openodke.doc_ids`)."""
    ids = DocIds(documents)

    def rename(cited: str) -> str:
        if cited == _UNCITED:
            return cited
        found = ids.find(cited)
        return cited if found is None else ids.names[found]

    return rename


def _add(
    counts: np.ndarray, fixed: np.ndarray, index: dict[str, int], doc: str, column: int
) -> None:
    if doc == _UNCITED:
        fixed[column] += 1
    else:
        counts[index[doc], column] += 1


def render_pool(section: PooledRecall) -> str:
    """The text ``odke eval pool`` prints."""
    width = max(len(r.name) for r in section.runs)
    lines = [
        f"pooled recall  ({section.pool} supported facts pooled over {len(section.runs)} runs, "
        f"{section.documents} documents)",
        f"  {'run':<{width}}  relative recall        supported  unique  facts  checked",
    ]
    for r in section.runs:
        v = r.relative_recall
        shown = f"{fmt(v.value)} [{fmt(v.low)}, {fmt(v.high)}]"
        checked = "—" if r.coverage is None else f"{r.coverage:.0%}"
        lines.append(
            f"  {r.name:<{width}}  {shown:<21}  {r.supported:<9}  {r.unique:<6}  {r.facts:<5}  {checked}"
        )
    lines.append(f"  caveat: {section.caveat}")
    return "\n".join(lines)
