"""The page's sections, each an HTML string built from the report's tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from openodke.eval.report.html.context import snippet
from openodke.eval.report.html.svg import (
    Bar,
    Interval,
    bar_chart,
    difference_chart,
    range_chart,
    reliability,
)
from openodke.eval.report.tables import (
    PREDICATE_RANGE,
    comparison_table,
    fixes_table,
    predicates_table,
    rows_table,
)

if TYPE_CHECKING:
    from openodke.eval.diagnosis.models import DiagnosisRow
    from openodke.eval.report.models import EvalReport
    from openodke.eval.stages.stage_report import StageReport

__all__ = [
    "calibration_section",
    "comparison_section",
    "cost_section",
    "diagnosis_section",
    "fixes_section",
    "headline_section",
    "notes_section",
    "predicates_section",
    "stage_section",
    "table",
]

MAX_CHART_ROWS = 40  # predicates drawn; the table below lists every one


def num(value: Any, digits: int = 3) -> str:
    """A cell: — for None, a float to ``digits`` places, an int with thousands separators."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return escape(str(value))


def ranged(value: float | None, low: float | None, high: float | None) -> str:
    """``0.800 [0.714, 0.909]``; a bare point without a range; — when undefined."""
    if value is None:
        return "—"
    if low is None or high is None:
        return f"{value:.3f}"
    return f'{value:.3f} <span class="range">[{low:.3f}, {high:.3f}]</span>'


def table(
    head: Sequence[str], rows: Sequence[Sequence[str]], *, cls: str = "", numeric_from: int = 1
) -> str:
    """An HTML table; cells are HTML already (escape text before). Columns from
    ``numeric_from`` on are right-aligned."""
    th = "".join(
        f"<th{' class=num' if i >= numeric_from else ''}>{escape(h)}</th>"
        for i, h in enumerate(head)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=num' if i >= numeric_from else ''}>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def section(key: str, title: str, body: str, lead: str = "") -> str:
    """A ``<section id=key>`` with its heading and an optional one-line lead."""
    intro = f'<p class="lead">{lead}</p>' if lead else ""
    return f'<section id="{key}"><h2>{escape(title)}</h2>{intro}{body}</section>'


def notes_section(notes: Sequence[str]) -> str:
    """Notes and first warnings: what a number cannot say, at the top."""
    if not notes:
        return ""
    items = "".join(f"<li>{escape(note)}</li>" for note in notes)
    return f'<section id="notes" class="warnings"><h2>Read first</h2><ul>{items}</ul></section>'


def headline_section(report: EvalReport) -> str:
    """Each row's precision, recall and F1 with its range: a chart, then a table."""
    rows = rows_table(report)
    if not rows:
        return ""
    marks = [
        Interval(
            f"{row['row']} {metric}",
            row[metric],
            row[f"{metric}_low"],
            row[f"{metric}_high"],
            series=metric,
        )
        for row in rows
        for metric in ("precision", "recall", "f1")
    ]
    chart = range_chart("headline", marks, label="precision, recall and F1 of each row")
    cells = [
        [
            escape(row["row"]),
            ranged(row["precision"], row["precision_low"], row["precision_high"]),
            ranged(row["recall"], row["recall_low"], row["recall_high"]),
            f"<strong>{ranged(row['f1'], row['f1_low'], row['f1_high'])}</strong>",
            num(row["hits"]),
            num(row["over_extraction"]),
            num(row["under_extraction"]),
            escape(row["average"]),
        ]
        for row in rows
    ]
    head = ["row", "precision", "recall", "f1", "hits", "over", "under", "average"]
    b = report.bootstrap
    lead = (
        f"{b.level:.0%} ranges over {b.units:,} {b.unit}s: {b.resamples:,} draws, seed "
        f"{b.seed}, {b.method}. An official row is the benchmark's own scorer: a point."
    )
    extras = []
    for row in report.rows:
        if row.conformance is not None and row.conformance.rate is not None:
            extras.append(
                f"<li>{escape(row.name)}: conformance {row.conformance.rate:.3f} "
                f"({escape('/'.join(row.conformance.checks))})</li>"
            )
        h = row.hallucination
        if h is not None and h.facts and h.rate is not None:
            extras.append(
                f"<li>{escape(row.name)}: hallucination {h.rate:.3f} ({escape(h.definition)})</li>"
            )
    more = f'<ul class="facts">{"".join(extras)}</ul>' if extras else ""
    return section(
        "headline",
        "Scores",
        chart + table(head, cells, cls="headline") + more,
        lead=escape(lead),
    )


def predicates_section(report: EvalReport | StageReport) -> str:
    """Per predicate P/R/F1 with ranges over facts, the worst first."""
    rows = predicates_table(report)
    if not rows:
        return ""
    stages = list(dict.fromkeys(r["stage"] for r in rows))
    parts = []
    for stage in stages:
        mine = [r for r in rows if r["stage"] == stage]
        gold = [r for r in mine if r["support"]]
        drawn = gold[:MAX_CHART_ROWS]
        marks = [
            Interval(r["predicate"], r["f1"], r["f1_low"], r["f1_high"], series="f1") for r in drawn
        ]
        label = f"F1 per predicate ({stage}), the worst first"
        if len(stages) > 1:
            parts.append(f"<h3>{escape(stage)}</h3>")
        parts.append(range_chart("predicates", marks, label=label))
        only = len(mine) - len(gold)
        if len(gold) > len(drawn) or only:
            parts.append(
                f'<p class="muted">drawn: the {len(drawn)} worst of the {len(gold)} predicates '
                f"the gold holds; {only} more are only predicted (none in the gold, listed "
                "last); the table lists every one</p>"
            )
        cells = [
            [
                escape(r["predicate"]),
                ranged(r["precision"], r["precision_low"], r["precision_high"]),
                ranged(r["recall"], r["recall_low"], r["recall_high"]),
                ranged(r["f1"], r["f1_low"], r["f1_high"]),
                num(r["tp"]),
                num(r["fp"]),
                num(r["fn"]),
                num(r["support"]),
            ]
            for r in mine
        ]
        head = ["predicate", "precision", "recall", "f1", "tp", "fp", "fn", "gold"]
        parts.append(table(head, cells, cls="predicates"))
    return section(
        "predicates",
        "Per predicate, the worst first",
        "".join(parts),
        lead=escape(PREDICATE_RANGE) + ".",
    )


def diagnosis_section(report: EvalReport, texts: Mapping[str, str]) -> str:
    """Where facts are lost: each side's buckets as bars, then the examples in their text."""
    if not report.diagnosis:
        return ""
    parts = []
    groups: dict[tuple[str, str], list[DiagnosisRow]] = {}
    for d in report.diagnosis:
        groups.setdefault((d.row, d.side), []).append(d)
    for (row, side), buckets in groups.items():
        total = sum(b.count or 0 for b in buckets)
        what = "misses" if side == "recall" else "false positives"
        parts.append(f"<h3>{escape(row)}: {total:,} {what}</h3>")
        bars = [
            Bar(
                b.label,
                None if b.count is None else float(b.count),
                "— not measured"
                if b.count is None
                else f"{b.count:,}  ({(b.share or 0) * 100:.1f}%)",
            )
            for b in buckets
        ]
        kind = "diagnosis" if side == "recall" else "false-positives"
        parts.append(bar_chart(kind, bars, label=f"{row}: where {what} go"))
        unmeasured = [b for b in buckets if b.count is None and b.note]
        if unmeasured:
            parts.append(
                '<ul class="muted">'
                + "".join(f"<li>{escape(b.label)}: {escape(b.note or '')}</li>" for b in unmeasured)
                + "</ul>"
            )
        for b in buckets:
            if b.examples:
                parts.append(_examples(b, texts))
    lead = (
        "Each gold fact the last row missed is in the first bucket its evidence fits; "
        "false positives split the same way. A dashed bar is a bucket this run cannot measure "
        "(not zero)."
    )
    return section("diagnosis", "Where facts are lost", "".join(parts), lead=escape(lead))


def _examples(bucket: DiagnosisRow, texts: Mapping[str, str]) -> str:
    items = []
    for e in bucket.examples:
        text = texts.get(e.doc_id)
        context = snippet(text, e.gold) if text is not None else None
        if context is None:
            context_html = (
                '<span class="muted">no text given for this document</span>'
                if text is None
                else '<span class="muted">neither end is written as such in the text</span>'
            )
        else:
            context_html = context
        nearest = f' <span class="muted">nearest: {escape(e.nearest)}</span>' if e.nearest else ""
        items.append(
            f'<li class="example"><div><code>{escape(e.doc_id)}</code> '
            f"<strong>{escape(e.gold)}</strong> "
            f'<span class="why">{escape(e.why or "")}</span>{nearest}</div>'
            f'<blockquote class="context">{context_html}</blockquote></li>'
        )
    return (
        f'<details class="examples" open><summary>{escape(bucket.label)}: '
        f"{len(bucket.examples)} example{'' if len(bucket.examples) == 1 else 's'}</summary>"
        f"<ul>{''.join(items)}</ul></details>"
    )


def fixes_section(report: EvalReport) -> str:
    """What should change, ranked by expected recall gain (the ceiling lighter beyond it)."""
    rows = [r for r in fixes_table(report) if r["misses"] or r["expected"]]
    if not rows:
        return ""
    bars = [
        Bar(
            f"{r['rank']}. {r['fix']}",
            None if r["expected"] is None else r["expected"] * 100,
            f"{_gain(r['expected'])} (ceiling {_gain(r['ceiling'])})",
            extra=max((r["ceiling"] or 0.0) - (r["expected"] or 0.0), 0.0) * 100,
        )
        for r in rows
    ]
    chart = bar_chart("fixes", bars, label="expected recall gain of each fix, in points")
    fixes = {f.id: f for f in report.fixes}
    items = []
    for r in rows:
        detail = fixes[r["fix"]].detail
        more = (
            "<ul>" + "".join(f"<li>{escape(d)}</li>" for d in detail[:10]) + "</ul>"
            if detail
            else ""
        )
        items.append(
            f"<li><strong>{escape(r['fix'])}</strong> ({escape(r['knob'])}): "
            f"{escape(r['action'])} <span class=muted>{escape(r['basis'])}</span>{more}</li>"
        )
    lead = "Gains overlap, so they never add; expected is exact where the fix replays."
    return section(
        "fixes",
        "What should change",
        chart + f'<ol class="fixes">{"".join(items)}</ol>',
        lead=escape(lead),
    )


def comparison_section(report: EvalReport) -> str:
    """A compare: the verdict, B − A per metric with its interval and the detection limit."""
    c = report.comparison
    if c is None:
        return ""
    rows = comparison_table(report)
    marks = [
        Interval(
            f"{r['metric']} ({r['role']})",
            r["difference"],
            r["difference_low"],
            r["difference_high"],
            series=r["metric"],
            text=_points(r["difference"])
            + (
                f" [{_points(r['difference_low'])}, {_points(r['difference_high'])}]"
                if r["difference_low"] is not None
                else ""
            ),
        )
        for r in rows
    ]
    p = c.primary
    limit = p.detection_limit
    chart = difference_chart(marks, limit, label=f"B − A on {c.metric}, with the detection limit")
    verdict = (
        f'<p class="verdict {escape(p.verdict)}">verdict: <strong>{escape(p.verdict)}</strong>'
        f" on {escape(c.metric)} over {p.items:,} {c.unit}s"
        + (
            f"; the smallest change this set detects is {limit * 100:.1f} points "
            "(95% confidence, 80% power)"
            if limit is not None
            else ""
        )
        + "</p>"
    )
    cells = [
        [
            escape(r["metric"]),
            escape(r["role"]),
            num(r["a"]),
            num(r["b"]),
            _points(r["difference"]),
            f"{_points(r['difference_low'])} to {_points(r['difference_high'])}",
            "—" if r["detection_limit"] is None else f"{r['detection_limit'] * 100:.1f}",
            f"{r['flips']:,}",
            escape(r["verdict"]),
        ]
        for r in rows
    ]
    head = ["metric", "role", "A", "B", "B − A", "95% interval", "limit", "flips", "verdict"]
    extra = ""
    if c.mcnemar is not None:
        extra = f'<p class="muted">McNemar exact p = {c.mcnemar.p_value:.3f}</p>'
    names = f'<p class="muted">A: <code>{escape(c.a)}</code> · B: <code>{escape(c.b)}</code></p>'
    lead = "The shaded band is the detection limit: a change inside it is one this set cannot see."
    return section(
        "comparison",
        "Was the change real?",
        verdict + names + chart + table(head, cells, cls="comparison", numeric_from=2) + extra,
        lead=escape(lead),
    )


def _gain(value: float | None) -> str:
    return "—" if value is None else f"+{value * 100:.1f}"


def _points(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f}"


def stage_section(stage: StageReport, *, headline: bool = False) -> str:
    """A StageReport: its metrics, a reliability diagram for a score stage, the ablation's
    rows as a chart, and its breakdown (predicates have their own section)."""
    parts = []
    metrics = [[escape(k), num(v)] for k, v in stage.metrics.items()]
    if metrics:
        parts.append(table(["metric", "value"], metrics, cls="metrics"))
    if stage.stage == "score" and stage.breakdown:
        bins = [
            (name, row.get("mean_confidence"), row.get("true_rate"), int(row.get("n") or 0))
            for name, row in stage.breakdown.items()
        ]
        parts.append(reliability(bins, label="reliability diagram: confidence against true rate"))
    if stage.stage == "ablation" and stage.breakdown:
        parts.append(_ablation_chart(stage))
    has_predicates = stage.stage != "ablation" and any("tp" in r for r in stage.breakdown.values())
    if stage.breakdown and not has_predicates:
        columns = list(dict.fromkeys(c for row in stage.breakdown.values() for c in row))
        cells = [
            [escape(name), *(num(row.get(c)) for c in columns)]
            for name, row in stage.breakdown.items()
        ]
        parts.append(table(["", *columns], cells, cls="breakdown"))
    if stage.notes and not headline:
        parts.append(
            '<ul class="muted">' + "".join(f"<li>{escape(n)}</li>" for n in stage.notes) + "</ul>"
        )
    if not parts:
        return ""
    return section(
        f"stage-{stage.stage}", f"Stage: {stage.stage} ({stage.n:,} labelled)", "".join(parts)
    )


def _ablation_chart(stage: StageReport) -> str:
    """The ablation's rows: precision, recall and F1 with ranges over facts (from tp, fp, fn)."""
    import numpy as np

    from openodke.eval.report.tables import predicate_ranges

    names = list(stage.breakdown)
    counts = np.array(
        [[stage.breakdown[n].get(k) or 0 for k in ("tp", "fp", "fn")] for n in names], dtype=float
    )
    ranges = predicate_ranges(counts[:, 0], counts[:, 1], counts[:, 2])

    def end(metric: str, which: str, i: int) -> float | None:
        value = float(ranges[f"{metric}_{which}"][i])
        return None if np.isnan(value) else value

    marks = [
        Interval(
            f"{name} {m}",
            stage.breakdown[name].get(m),
            end(m, "low", i),
            end(m, "high", i),
            series=m,
        )
        for i, name in enumerate(names)
        for m in ("precision", "recall", "f1")
    ]
    chart = range_chart("ablation", marks, label="precision, recall and F1 three ways")
    return chart + f'<p class="muted">{escape(PREDICATE_RANGE)} (here per row).</p>'


def calibration_section(report: EvalReport) -> str:
    """Each model judge the run called, with its calibration card's line."""
    if not report.calibration:
        return ""
    cells = [
        [
            escape(c.role),
            escape(c.model),
            escape(c.prompt),
            escape(c.line),
            '<span class="ok">meets the bar</span>'
            if c.meets_bar
            else '<span class="bad">below the bar</span>',
        ]
        for c in report.calibration
    ]
    body = table(["role", "model", "prompt", "card", "bar"], cells, numeric_from=9)
    return section("calibration", "Calibration cards", body)


def cost_section(report: EvalReport) -> str:
    """Model calls, tokens, price and time per row, when any row spent any."""
    rows = [r for r in report.rows if r.cost.calls or r.latency.seconds is not None]
    if not rows:
        return ""
    cells = [
        [
            escape(r.name),
            num(r.cost.calls),
            num(r.cost.cached),
            num(r.cost.prompt_tokens),
            num(r.cost.completion_tokens),
            "—" if r.cost.usd is None else f"${r.cost.usd:,.4f}",
            f"${r.cost.priced_usd:,.4f}" if r.cost.unpriced_calls else "",
            "—" if r.latency.seconds is None else f"{r.latency.seconds:,.2f} s",
        ]
        for r in rows
    ]
    head = ["row", "calls", "cached", "prompt tokens", "completion tokens", "USD", "priced", "time"]
    lead = "USD is — when any call is unpriced; priced is then the partial sum."
    return section("cost", "Cost", table(head, cells, cls="cost"), lead=escape(lead))
