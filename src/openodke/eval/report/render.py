"""The text ``odke eval pipeline`` prints for an EvalReport: rows with ranges, then the notes."""

from __future__ import annotations

from openodke.eval.report.models import EvalReport, Row, Value
from openodke.llm.cost import cost_text

__all__ = ["render_report", "render_value"]


def render_value(value: Value) -> str:
    """``0.412 [0.371, 0.455]``, a bare point when there is no range, ``—`` when undefined."""
    if value.value is None:
        return "—"
    if value.low is None or value.high is None:
        return f"{value.value:.3f}"
    return f"{value.value:.3f} [{value.low:.3f}, {value.high:.3f}]"


def _optional(value: Value | None) -> str:
    """A metric only some rows have: blank where a row has none."""
    return "" if value is None else render_value(value)


def _counts(row: Row) -> str:
    if row.counts is None:
        return f"({row.performance.average})"
    c = row.counts
    return f"{c.hits:,}  {c.over_extraction:,}  {c.under_extraction:,}"


def _extras(row: Row) -> list[str]:
    lines = []
    if row.conformance is not None and row.conformance.rate is not None:
        lines.append(
            f"  {row.name}: conformance {row.conformance.rate:.3f} "
            f"({'/'.join(row.conformance.checks)}, {row.conformance.average})"
        )
    h = row.hallucination
    if h is not None and h.facts:
        parts = [
            f"{name} {getattr(h, name):.3f}"
            for name in ("subject", "relation", "object")
            if getattr(h, name) is not None
        ]
        lines.append(f"  {row.name}: hallucination " + ", ".join(parts))
    c = row.cost
    if c.calls and (c.usd is not None or c.prompt_tokens + c.completion_tokens):  # not recorded
        tokens = c.prompt_tokens + c.completion_tokens
        lines.append(
            f"  {row.name}: model cost "
            + cost_text(
                c.calls,
                c.cached,
                tokens,
                c.usd,
                priced_usd=c.priced_usd,
                unpriced=c.unpriced_calls,
            )
        )
    return lines


def render_report(report: EvalReport) -> str:
    """The rows table (95% ranges over documents), conformance and hallucination, and notes."""
    b = report.bootstrap
    gold = report.rows[0].counts.gold if report.rows and report.rows[0].counts else report.n
    head = (
        f"{report.title}  ({b.units:,} documents, {gold:,} gold facts; "
        f"{b.level:.0%} ranges over documents, {b.resamples:,} draws, seed {b.seed})"
    )
    # Re-DocRED's own metrics get columns beside P/R/F1 when a row has them (its official row).
    extra = [
        (name, title)
        for name, title in (("ign_f1", "ign f1"), ("evidence_f1", "evidence f1"))
        if any(getattr(row.performance, name) is not None for row in report.rows)
    ]
    cells = [
        [
            row.name,
            render_value(row.performance.precision),
            render_value(row.performance.recall),
            render_value(row.performance.f1),
            *(_optional(getattr(row.performance, name)) for name, _ in extra),
            _counts(row),
        ]
        for row in report.rows
    ]
    header = ["", "precision", "recall", "f1", *(title for _, title in extra), "hits  over  under"]
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    lines = [head]
    for r in [header, *cells]:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    for row in report.rows:
        lines += _extras(row)
    if report.notes:
        lines.append("")
        lines += [f"  • {note}" for note in report.notes]
    return "\n".join(lines)
