"""The spans check: how wide are a run's citations, per grounding verdict? No labels needed.

A citation too narrow for its claim comes back not_found, so when narrow citations cluster there,
the not_found rate measures citation quality rather than the extractor's truthfulness.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from openodke.errors import InputError
from openodke.eval.stages.stage_report import StageReport, safe_div
from openodke.safeio import load_jsonl
from openodke.types import Fact, GroundingVerdict, SpanOrigin

__all__ = ["evaluate_spans", "load_facts", "span_width"]

_CITED, _LOCATED, _NONE = "cited", "located", "none"


def span_width(fact: Fact) -> tuple[str, int | None]:
    """How the fact's span was chosen, and its width in characters.

    ``("cited", width)`` for the first evidence with a span its extractor cited; else
    ``("located", width)`` when only the span locator chose one (counted apart); else
    ``("none", None)``: no evidence, no span, or only a ``context`` span (the whole text, which
    nobody chose).
    """
    located: int | None = None
    for evidence in fact.evidence:
        if evidence.span is None:
            continue
        width = evidence.span.end - evidence.span.start
        if evidence.span_origin is SpanOrigin.cited:
            return _CITED, width
        if evidence.span_origin is SpanOrigin.located and located is None:
            located = width
    return (_LOCATED, located) if located is not None else (_NONE, None)


def _quantiles(widths: list[int]) -> dict[str, Any]:
    if not widths:
        return {"min": None, "p25": None, "median": None, "p75": None, "max": None}
    # numpy's default linear interpolation (Hyndman & Fan type 7), as pandas and R default to.
    p25, median, p75 = (float(q) for q in np.percentile(widths, [25, 50, 75]))
    return {"min": min(widths), "p25": p25, "median": median, "p75": p75, "max": max(widths)}


def evaluate_spans(facts: Iterable[Fact]) -> StageReport:
    """Citation widths per verdict, and the share of facts citing no span.

    Metrics over every fact given: ``with_span`` (a cited span), ``no_span`` and
    ``no_span_rate``, ``median_width`` (of cited spans), ``not_found_rate`` (verdict not_found),
    ``supported_median`` and ``not_found_median`` (cited widths per verdict), ``median_gap``
    (supported − not_found) and ``located`` (spans the locator chose, counted apart and left out of
    the widths). Breakdown per verdict present: ``n``, ``no_span``, ``min``, ``p25``, ``median``,
    ``p75``, ``max``. The first note names the gap only when the not_found upper quartile is below
    the supported lower quartile.
    """
    rows = [(fact.verdict.value, *span_width(fact)) for fact in facts]
    n = len(rows)
    widths: dict[str, list[int]] = {}
    for verdict, kind, width in rows:
        if kind == _CITED and width is not None:
            widths.setdefault(verdict, []).append(width)
    every = [w for ws in widths.values() for w in ws]
    breakdown: dict[str, dict[str, Any]] = {}
    for verdict in (v.value for v in GroundingVerdict):
        members = [r for r in rows if r[0] == verdict]
        if members:
            no_span = sum(1 for _, kind, _ in members if kind == _NONE)
            breakdown[verdict] = {"n": len(members), "no_span": no_span}
            breakdown[verdict].update(_quantiles(widths.get(verdict, [])))
    supported = breakdown.get("supported", {}).get("median")
    not_found = breakdown.get("not_found", {}).get("median")
    no_span = sum(1 for _, kind, _ in rows if kind == _NONE)
    located = sum(1 for _, kind, _ in rows if kind == _LOCATED)
    notes = [_headline(n, breakdown)]
    if located:
        notes.append(
            f"spans chosen by the span locator, counted apart and not in the widths: {located}"
        )
    return StageReport(
        stage="spans",
        n=n,
        metrics={
            "with_span": len(every),
            "no_span": no_span,
            "no_span_rate": safe_div(no_span, n),
            "median_width": float(np.median(every)) if every else None,
            "not_found_rate": safe_div(sum(1 for r in rows if r[0] == "not_found"), n),
            "supported_median": supported,
            "not_found_median": not_found,
            "median_gap": supported - not_found
            if supported is not None and not_found is not None
            else None,
            "located": located,
        },
        breakdown=breakdown,
        notes=tuple(notes),
    )


def _headline(n: int, breakdown: dict[str, dict[str, Any]]) -> str:
    if not n:
        return "no facts: every width is undefined"
    supported, not_found = breakdown.get("supported", {}), breakdown.get("not_found", {})
    if supported.get("median") is None or not_found.get("median") is None:
        return "no comparison: it needs cited spans on both supported and not_found facts"
    if not_found["p75"] < supported["p25"]:
        return (
            f"not_found median {not_found['median']:g} chars vs supported "
            f"{supported['median']:g} — citations are too narrow"
        )
    if supported["p75"] < not_found["p25"]:
        return (
            f"not_found median {not_found['median']:g} chars vs supported "
            f"{supported['median']:g}: the not_found citations are the wider ones, so narrow "
            "citations do not explain the not_found verdicts"
        )
    return (
        f"not_found median {not_found['median']:g} chars vs supported {supported['median']:g}: "
        "the widths overlap, so width does not explain the not_found verdicts"
    )


def load_facts(path: str | Path) -> list[Fact]:
    """Read Fact rows from a ``facts.jsonl``, or from the folder a sink wrote."""
    target = Path(path)
    if target.is_dir():
        target = target / "facts.jsonl"
        if not os.path.lexists(target):
            raise InputError("no facts.jsonl in this folder", path=str(path))
    return load_jsonl(target, Fact)
