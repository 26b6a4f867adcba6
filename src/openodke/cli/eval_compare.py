"""`odke eval compare A B`: was the change real? A thin layer over `compare_items`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from openodke.cli import style
from openodke.cli.options import MAX_RESAMPLES, Html, write_page
from openodke.errors import CompareGateFailed, InputError

if TYPE_CHECKING:
    from openodke.eval.compare import Comparison

__all__ = ["DESCRIBE", "gate_failures", "register"]

DESCRIBE = """\
odke eval compare A B: was the change from run A to run B real?

inputs
  A, B      items files from the same labels, A (before) then B (after); both hold the same ids.
            --items on extract, ground, validate, route and pipeline writes them:
              {"id": "d1", "tp": 3, "fp": 1, "fn": 0}   per document: corpus micro P/R/F1
              {"id": "g7", "correct": true}             per item: accuracy
  --metric  the metric that decides: f1 (default), precision or recall for documents;
            accuracy for items. For documents the other two are guardrails: shown, never deciding.

method
  paired bootstrap (Koehn 2004): --resamples (2000) draws of the items or documents, seeded by
  --seed (0), the same draws for A and B; the 95% interval of B - A: expanded BCa for
  documents, the percentile interval for items (DECISIONS #40, #42).

verdicts
  better        the whole 95% interval is above zero
  worse         the whole 95% interval is below zero
  inconclusive  the interval contains zero, or, for right-or-wrong items, McNemar's exact p
                on the flips is 0.05 or more (both must agree to call a change)
  Every comparison states its detection limit, the smallest change the set detects (95%
  confidence, 80% power): Z*sqrt(d/n) for items, d the share that flipped; Z times the
  bootstrap standard error of B - A for documents; Z = 1.959964 + 0.841621.

exit codes
  0  better or inconclusive
  1  worse; inconclusive with --fail-on-inconclusive; the low end of B's range under
     --fail-under X. Each reason prints a `gate: fail: <reason>` line.
  2  files that cannot be compared: unreadable, a bad row (path:line), different ids or
     different kinds of rows, or a metric the rows do not have.

output
  a table (default), one comparison block as JSON (--json), or --report PATH: an eval report
  (schema 1.4) whose "comparison" holds the result, written atomically.
"""


def register(eval_app: typer.Typer) -> None:
    """Add the `compare` command to the `odke eval` group."""
    eval_app.command(
        "compare",
        help="Was the change real? Compare run B against run A on the same items.\n\n"
        "Example: odke eval compare base.items.jsonl head.items.jsonl --fail-under 0.80",
    )(compare)


def compare(
    a: Annotated[
        Path | None,
        typer.Argument(metavar="A", help="Run A's items file (before).", show_default=False),
    ] = None,
    b: Annotated[
        Path | None,
        typer.Argument(metavar="B", help="Run B's items file (after).", show_default=False),
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(help="Deciding metric: f1, precision, recall (documents); accuracy (items)."),
    ] = None,
    resamples: Annotated[
        int, typer.Option(min=1, max=MAX_RESAMPLES, help="Bootstrap draws.")
    ] = 2000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the draws.")] = 0,
    fail_under: Annotated[
        float | None,
        typer.Option(help="Fail (exit 1) when the low end of B's 95% range is under X."),
    ] = None,
    fail_on_inconclusive: Annotated[
        bool,
        typer.Option(
            "--fail-on-inconclusive", help="Fail (exit 1) on an inconclusive verdict too."
        ),
    ] = False,
    applied: Annotated[
        str | None, typer.Option(help="The fix B applied (a fix id), for the track record.")
    ] = None,
    track_record: Annotated[
        Path | None, typer.Option(help="The track-record.jsonl to append what B measured to.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one comparison block.")] = False,
    report: Annotated[
        Path | None, typer.Option(help="Write an eval report holding the comparison.")
    ] = None,
    describe: Annotated[
        bool, typer.Option("--describe", help="Print the contract and exit.")
    ] = False,
    html: Html = None,
) -> None:
    """Compare run B against run A: better, worse or inconclusive."""
    from openodke.eval.compare import compare_runs, render_comparison
    from openodke.eval.diagnosis.track_record import check_fix_id, read_track_record
    from openodke.eval.report.build import from_comparison, write_report

    if describe:
        typer.echo(DESCRIBE, nl=False)
        return
    if a is None or b is None:
        raise InputError("compare needs two items files, A then B (see --describe)")
    if applied is not None:
        check_fix_id(applied)  # an unknown fix is exit 2 before any work

    comparison = compare_runs(a, b, metric=metric, resamples=resamples, seed=seed)
    track_record = _track_path(a, b, track_record)
    if track_record is not None and os.path.lexists(track_record):
        read_track_record(track_record)  # a bad one is exit 2 before any output is written
    if report is not None:
        write_report(report, from_comparison(comparison))
    write_page(html, None if html is None else from_comparison(comparison))
    if as_json:
        typer.echo(json.dumps(comparison.model_dump(mode="json"), indent=2, allow_nan=False))
    else:
        typer.echo(style.verdict(render_comparison(comparison)))
    _track(a, b, comparison, applied, track_record, err=as_json)

    reasons = gate_failures(
        comparison, fail_under=fail_under, fail_on_inconclusive=fail_on_inconclusive
    )
    for reason in reasons:
        # Beside --json the gate lines go to stderr, so stdout stays one JSON document.
        line = f"gate: fail: {reason}"
        typer.echo(line if as_json else style.gate_line(line), err=as_json)
    if reasons:
        sys.stdout.flush()
        raise CompareGateFailed(f"compare gate failed: {'; '.join(reasons)}")


def _track_path(a: Path, b: Path, given: Path | None) -> Path | None:
    """The track record in play: the one given, else the one beside A's or B's items."""
    from openodke.eval.diagnosis.track_record import TRACK_RECORD

    if given is not None:
        return given
    found = [p / TRACK_RECORD for p in (a.parent, b.parent) if (p / TRACK_RECORD).is_file()]
    return found[0] if found else None


def _track(
    a: Path, b: Path, comparison: Comparison, applied: str | None, path: Path | None, *, err: bool
) -> None:
    """Append what B measured to the track record ``path`` (:func:`_track_path`); when one is
    in play, say why nothing was recorded, if nothing was."""
    from openodke.eval.diagnosis.track_record import record_comparison, render_measured

    if path is None:
        if applied is not None:
            typer.echo(f"track record: none beside {a} or {b}; pass --track-record", err=True)
        return
    result = record_comparison(path, a, b, comparison, applied=applied)
    for line in result.lines:
        typer.echo(render_measured(line), err=err)
    for note in result.notes:
        typer.echo(f"track record: {note}", err=True)


def gate_failures(
    comparison: Comparison, *, fail_under: float | None = None, fail_on_inconclusive: bool = False
) -> list[str]:
    """Each reason the compare gate fails: worse, inconclusive (when asked), B under a floor."""
    primary, name = comparison.primary, comparison.metric
    reasons: list[str] = []
    if primary.verdict == "worse" and primary.interval and primary.difference is not None:
        low, high = primary.interval
        reasons.append(
            f"B is worse than A on {name}: {primary.difference * 100:+.1f} points, "
            f"{primary.level * 100:g}% interval {low * 100:+.1f} to {high * 100:+.1f}"
        )
    if primary.verdict == "inconclusive" and fail_on_inconclusive:
        reasons.append(f"inconclusive on {name}, and --fail-on-inconclusive is set")
    if fail_under is not None:
        if primary.b_interval is None:
            reasons.append(
                f"B's {name} is undefined, so it is not above --fail-under {fail_under:g}"
            )
        elif primary.b_interval[0] < fail_under:
            reasons.append(
                f"the low end of B's {name} range, {primary.b_interval[0]:.3f}, is under "
                f"--fail-under {fail_under:g}"
            )
    return reasons
