"""One self-contained HTML page for a report: styles inline, no script, no font file, no link
out of the page, so it opens from a file and in a CI artifact viewer."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING

from openodke.eval.report.html.sections import (
    calibration_section,
    comparison_section,
    cost_section,
    diagnosis_section,
    fixes_section,
    headline_section,
    notes_section,
    num,
    predicates_section,
    ranged,
    section,
    stage_section,
    table,
)

if TYPE_CHECKING:
    from openodke.eval.report.models import EvalReport
    from openodke.eval.stages.stage_report import StageReport

__all__ = ["CSS", "render_page"]

CSS = """
:root{--fg:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#fff;--warn:#fff7ed;--warnline:#f59e0b}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--fg);background:var(--bg);margin:0 auto;max-width:1000px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid
var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.sub,.muted,.lead{color:var(--muted)}.lead{margin:0 0 10px}
section.warnings{background:var(--warn);border-left:4px solid var(--warnline);padding:4px 16px;
margin-top:16px}section.warnings h2{border:0;margin-top:8px}
table{border-collapse:collapse;margin:10px 0;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;background:#f8fafc}.num{text-align:right;white-space:nowrap}
.range{color:var(--muted)}
svg.chart{display:block;max-width:100%;height:auto;margin:8px 0;font:12px system-ui,sans-serif}
svg .grid{stroke:#e2e8f0}svg .zero{stroke:#0f172a;stroke-width:1.2}
svg .tick{fill:#64748b;text-anchor:middle;font-size:11px}svg .tick.left{text-anchor:end}
svg .label{fill:#0f172a;text-anchor:end}svg .value{fill:#334155}
svg .range{stroke-width:3;stroke-linecap:round;opacity:.55}svg .whisker{stroke-width:1.5}
svg .bar{fill:#6366f1}svg .bar.extra{fill:#c7d2fe}
svg .bar.unmeasured{fill:none;stroke:#94a3b8;stroke-dasharray:4 3}
svg .limit{fill:#fde68a;opacity:.55}svg .frame{fill:none;stroke:#cbd5e1}
svg .diagonal{stroke:#94a3b8;stroke-dasharray:5 4}
svg .curve{fill:none;stroke:#2563eb;stroke-width:1.5}svg circle.mark{stroke:#fff;stroke-width:1}
svg[data-chart="reliability"] circle.mark{fill:#2563eb;opacity:.85}
.verdict{font-size:16px}.verdict.better strong,.ok{color:#047857}
.verdict.worse strong,.bad{color:#b91c1c}.verdict.inconclusive strong{color:#92400e}
details.examples{margin:8px 0 14px}details.examples summary{cursor:pointer;font-weight:600}
li.example{margin:8px 0;list-style:none}details.examples ul{padding-left:8px}
blockquote.context{margin:4px 0 0;padding:6px 10px;border-left:3px solid var(--line);
background:#f8fafc;font-family:ui-serif,Georgia,serif}
mark{background:#fde047;padding:0 2px;border-radius:2px}.why{color:#7c3aed}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
ol.fixes li{margin:6px 0}footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{body{max-width:none}details{open:true}}
"""


def render_page(report: EvalReport | StageReport, *, texts: Mapping[str, str] | None = None) -> str:
    """The page: title, notes first, then scores, predicates, diagnosis, fixes, comparison,
    stages, calibration, cost, and how the report was made. ``texts`` (document id → text)
    gives each diagnosis example its context."""
    from openodke.eval.stages.stage_report import StageReport

    if isinstance(report, StageReport):
        title = f"odke eval {report.stage}"
        sub = f"{report.n:,} labelled"
        body = [
            notes_section(report.notes),
            stage_section(report, headline=True),
            predicates_section(report),
        ]
    else:
        title = report.title
        sub = _subtitle(report)
        body = [
            notes_section(report.notes),
            comparison_section(report),
            headline_section(report),
            predicates_section(report),
            diagnosis_section(report, texts or {}),
            fixes_section(report),
            *(stage_section(s) for s in report.stages if s.stage not in ("extract",)),
            calibration_section(report),
            _extras_section(report),
            cost_section(report),
            _footer(report),
        ]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        # nothing may load from outside the page, whatever a report's text holds
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'<header><h1>{escape(title)}</h1><p class="sub">{escape(sub)}</p></header>'
        + "".join(body)
        + "</body></html>\n"
    )


def _subtitle(report: EvalReport) -> str:
    d = report.run.dataset
    parts = [f"openodke {report.run.openodke}"]
    if d.name:
        parts.append(f"dataset {d.name}")
    if report.rows and report.rows[0].counts is not None:
        c = report.rows[0].counts
        parts.append(f"{c.documents:,} documents, {c.gold:,} gold facts")
    elif report.n:
        parts.append(f"{report.n:,} scored")
    return " · ".join(parts)


def _extras_section(report: EvalReport) -> str:
    parts = []
    if report.adjudication is not None:
        cells = [
            [
                escape(r.name),
                ranged(r.strict.value, r.strict.low, r.strict.high),
                ranged(r.adjudicated.value, r.adjudicated.low, r.adjudicated.high),
                num(r.not_in_gold),
                num(r.asked),
                num(r.possibly_missing),
            ]
            for r in report.adjudication.rows
        ]
        parts.append("<h3>Gold adjudication</h3>")
        head = ["row", "strict", "adjudicated", "not in gold", "asked", "possibly missing"]
        parts.append(table(head, cells))
    if report.lenient is not None:
        cells = [
            [
                escape(r.name),
                ranged(r.strict.f1.value, r.strict.f1.low, r.strict.f1.high),
                ranged(r.lenient.f1.value, r.lenient.f1.low, r.lenient.f1.high),
                num(r.candidates),
                num(r.same),
                num(r.counted),
            ]
            for r in report.lenient.rows
        ]
        parts.append("<h3>Lenient score (provisional)</h3>")
        head = ["row", "strict f1", "lenient f1", "candidates", "same", "counted"]
        parts.append(table(head, cells))
    j = report.judged_precision
    if j is not None:
        parts.append("<h3>Precision without gold</h3>")
        cells = [
            [escape(name), ranged(v.value, v.low, v.high)]
            for name, v in (
                ("judge only", j.judge_only),
                ("corrected (PPI)", j.corrected),
                ("labels only", j.labels_only),
            )
        ]
        parts.append(table(["estimate", "precision"], cells))
    pooled = report.pooled_recall
    if pooled is not None:
        parts.append("<h3>Recall relative to the pool</h3>")
        cells = [
            [
                escape(r.name),
                ranged(r.relative_recall.value, r.relative_recall.low, r.relative_recall.high),
                num(r.facts),
                num(r.unique),
            ]
            for r in pooled.runs
        ]
        parts.append(table(["run", "relative recall", "facts", "unique"], cells))
        parts.append(f'<p class="muted">{escape(pooled.caveat)}</p>')
    if not parts:
        return ""
    return section("judged", "Judged scores", "".join(parts))


def _footer(report: EvalReport) -> str:
    run = report.run
    items = [f"openodke {escape(run.openodke)}, schema {escape(report.schema_version)}"]
    for role, model in run.models.items():
        items.append(f"model {escape(role)}: {escape(model)}")
    if run.prompts:
        items.append("prompts: " + escape(", ".join(run.prompts)))
    for name, value in run.inputs.items():
        items.append(f"{escape(name)}: <code>{escape(value)}</code>")
    return "<footer>" + "<br>".join(items) + "</footer>"
