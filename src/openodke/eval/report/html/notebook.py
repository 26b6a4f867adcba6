"""The notebook view of a report (``_repr_html_``): the headline table and the top findings."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from openodke.eval.report.html.sections import num, ranged, table
from openodke.eval.report.tables import rows_table

if TYPE_CHECKING:
    from openodke.eval.report.models import EvalReport
    from openodke.eval.stages.stage_report import StageReport

__all__ = ["notebook_html"]

_STYLE = (
    "<style>.odke-report table{border-collapse:collapse}.odke-report th,.odke-report td"
    "{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}.odke-report .num"
    "{text-align:right}.odke-report .range{color:#64748b}</style>"
)


def notebook_html(report: EvalReport | StageReport, *, findings: int = 3) -> str:
    """A compact HTML block: title, first notes, the headline table, the largest diagnosis
    buckets and the top fix (an EvalReport); metrics and breakdown (a StageReport)."""
    from openodke.eval.stages.stage_report import StageReport

    if isinstance(report, StageReport):
        return _stage(report, findings)
    parts = [f"<strong>{escape(report.title)}</strong>"]
    parts += _notes(report.notes, findings)
    rows = rows_table(report)
    if rows:
        cells = [
            [
                escape(r["row"]),
                ranged(r["precision"], r["precision_low"], r["precision_high"]),
                ranged(r["recall"], r["recall_low"], r["recall_high"]),
                ranged(r["f1"], r["f1_low"], r["f1_high"]),
                num(r["hits"]),
                num(r["over_extraction"]),
                num(r["under_extraction"]),
            ]
            for r in rows
        ]
        parts.append(table(["row", "precision", "recall", "f1", "hits", "over", "under"], cells))
    if report.comparison is not None:
        c, p = report.comparison, report.comparison.primary
        diff = "—" if p.difference is None else f"{p.difference * 100:+.1f} points"
        limit = "" if p.detection_limit is None else f"; limit {p.detection_limit * 100:.1f}"
        cells = [[escape(c.metric), num(p.a), num(p.b), diff, escape(p.verdict) + limit]]
        parts.append(table(["metric", "A", "B", "B − A", "verdict"], cells))
    lost = sorted(
        (d for d in report.diagnosis if d.side == "recall" and d.count),
        key=lambda d: -(d.count or 0),
    )[:findings]
    if lost:
        items = "".join(
            f"<li>{escape(d.label)}: {d.count:,} ({(d.share or 0) * 100:.1f}%)</li>" for d in lost
        )
        parts.append(f"<div>where facts are lost ({escape(lost[0].row)}):<ul>{items}</ul></div>")
    top = next((f for f in report.fixes if f.misses or f.recall.expected), None)
    if top is not None:
        gain = top.recall.expected
        expected = "" if gain is None else f" +{gain * 100:.1f} points expected"
        parts.append(
            f"<div>top fix: <strong>{escape(top.id)}</strong>{expected}: {escape(top.action)}</div>"
        )
    return f'<div class="odke-report">{_STYLE}{"".join(parts)}</div>'


def _notes(notes: tuple[str, ...] | list[str], count: int) -> list[str]:
    if not notes:
        return []
    items = "".join(f"<li>{escape(n)}</li>" for n in list(notes)[:count])
    more = f"<li>… {len(notes) - count} more</li>" if len(notes) > count else ""
    return [f"<ul>{items}{more}</ul>"]


def _stage(stage: StageReport, count: int) -> str:
    parts = [f"<strong>{escape(stage.stage)}</strong> ({stage.n:,} labelled)"]
    parts += _notes(stage.notes, count)
    parts.append(
        table(["metric", "value"], [[escape(k), num(v)] for k, v in stage.metrics.items()])
    )
    if stage.breakdown:
        columns = list(dict.fromkeys(c for row in stage.breakdown.values() for c in row))
        cells = [
            [escape(name), *(num(row.get(c)) for c in columns)]
            for name, row in stage.breakdown.items()
        ]
        parts.append(table(["", *columns], cells))
    return f'<div class="odke-report">{_STYLE}{"".join(parts)}</div>'
