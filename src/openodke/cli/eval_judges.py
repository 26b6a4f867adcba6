"""``odke eval precision``, ``pool`` and ``refusals``: numbers without gold, from judges and labels.

Thin: each command reads its inputs, calls one library function of :mod:`openodke.eval.judges`
and prints its result (``--json`` for JSON, ``--report`` for an eval report, schema 1.4).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from openodke.cli import options as opt
from openodke.cli.options import PerSheet, naming
from openodke.errors import InputError

if TYPE_CHECKING:
    from openodke.eval.judges.inputs import TextLookup

__all__ = ["pool", "precision", "refusals", "register"]

Seed = Annotated[int, typer.Option("--seed", min=0, help="Seed of the draw.")]
MakeSheet = Annotated[
    Path | None, typer.Option("--make-sheet", help="Write label sheets of a seeded sample here.")
]


def register(eval_app: typer.Typer) -> None:
    """Add ``precision``, ``pool`` and ``refusals`` to the ``odke eval`` group."""
    eval_app.command(
        "precision",
        help="Precision without gold: the judge's verdicts, corrected by labels (PPI).\n\n"
        "Example: odke eval precision --facts out/facts.jsonl --labels labels.jsonl",
    )(precision)
    eval_app.command(
        "pool",
        help="Recall without gold: each run's share of the supported facts every run found.\n\n"
        "Example: odke eval pool runs/a runs/b --documents texts/",
    )(pool)
    eval_app.command(
        "refusals",
        help="What the grounder refused: a stratified sample to tick, and the refusal precision.\n\n"
        "Example: odke eval refusals runs/cmp --make-sheet sheets/ --n 100",
    )(refusals)


def _texts(documents: Path | None) -> TextLookup | None:
    from openodke.eval.judges.inputs import TextLookup

    if documents is None:
        return None
    from openodke.documents import load_documents

    return TextLookup(load_documents(documents))


def precision(
    facts: Annotated[
        Path, typer.Option("--facts", help="A run's facts.jsonl (or its folder), verdicts stamped.")
    ],
    labels: opt.Labels = None,
    documents: opt.Documents = None,
    make_sheet: MakeSheet = None,
    n: Annotated[int, typer.Option("--n", help="Facts to draw for the sheets.")] = 150,
    seed: Seed = 0,
    per_sheet: PerSheet = 50,
    predicate: Annotated[bool, typer.Option("--by-predicate", help="A row per predicate.")] = False,
    report: opt.Report = None,
    as_json: opt.AsJson = False,
) -> None:
    """Judged precision, and with --labels the prediction-powered estimate."""
    from openodke.eval.judges.cards import judge_line, trust_note
    from openodke.eval.judges.inputs import judge_of_run, labels_by_fact
    from openodke.eval.judges.label_kinds import grounding_item
    from openodke.eval.judges.precision import by_predicate, draw, judged_precision, render_judged
    from openodke.eval.judges.refusal_sources import passage_of
    from openodke.eval.judges.sheets import write_sheets
    from openodke.eval.report.build import from_stage, write_report
    from openodke.eval.stages.spans import load_facts
    from openodke.eval.stages.stage_report import StageReport

    rows = load_facts(facts)
    if make_sheet is not None:
        texts = _texts(documents)
        if texts is None:
            raise InputError("--make-sheet needs --documents: the sheets show each fact's text")
        sample = draw(rows, n, seed=seed)
        items = [grounding_item(f, passage_of(f, _text_of(f, texts)), _doc(f)) for f in sample]
        draw_file = make_sheet / "sample.jsonl"
        lines = "".join(json.dumps({"id": f.id, "n": n, "seed": seed}) + "\n" for f in sample)
        paths = write_sheets(
            items,
            make_sheet,
            kind="grounding",
            title="Is the claim supported?",
            per_sheet=per_sheet,
            extra=[(draw_file, lines)],
        )
        typer.echo(
            f"{len(items)} of {len(rows)} facts drawn (seed {seed}) into {len(paths)} sheet(s) in {make_sheet}; the draw: {draw_file}"
        )
        return
    truth = labels_by_fact(labels) if labels is not None else None
    if all(f.verdict.value == "unchecked" for f in rows):
        raise InputError(
            "no fact carries a verdict: ground the run first (odke ground)", path=str(facts)
        )
    with naming(labels=labels, facts=facts):
        section = judged_precision(rows, truth)
    found = judge_of_run(facts)
    line = judge_line("ground", *(found or ("unknown", "unknown")))
    judge = (
        trust_note(line)
        if found
        else f"judge: the verdicts in {facts} (model not recorded): UNCALIBRATED"
    )
    breakdown = {}
    if predicate:
        breakdown = {p: _flat(s) for p, s in by_predicate(rows, truth).items()}
    stage = StageReport(
        stage="precision", n=section.labels, metrics=_flat(section), breakdown=breakdown, notes=()
    )
    if report is not None:
        write_report(
            report,
            from_stage(
                stage,
                title=f"odke eval precision {facts}",
                judged_precision=section,
                calibration=[line],
            ),
        )
    if as_json:
        typer.echo(section.model_dump_json(indent=2))
        return
    typer.echo(render_judged(section, judge))
    if predicate:
        typer.echo("")
        typer.echo(stage.model_copy(update={"metrics": {}}).render())


def _flat(section: object) -> dict[str, float | int | None]:
    data = section.model_dump()  # type: ignore[attr-defined]
    out: dict[str, float | int | None] = {}
    for key in ("facts", "supported", "labels", "false_support", "lost_support"):
        out[key] = data[key]
    for key in ("judge_only", "corrected", "labels_only"):
        out[key] = data[key]["value"]
        out[f"{key}_low"], out[f"{key}_high"] = data[key]["low"], data[key]["high"]
    out["weight"] = data["weight"]
    return out


def _doc(fact: object) -> str | None:
    ids = fact.doc_ids  # type: ignore[attr-defined]
    return ids[0] if ids else None


def _text_of(fact: object, texts: TextLookup) -> str:
    for doc_id in fact.doc_ids:  # type: ignore[attr-defined]
        if doc_id in texts:
            return texts[doc_id]
    raise InputError(f"fact {fact.id} cites no document among --documents")  # type: ignore[attr-defined]


def pool(
    runs: Annotated[
        list[Path], typer.Argument(help="Two or more runs: facts.jsonl files or their folders.")
    ],
    documents: opt.Documents = None,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, max=opt.MAX_RESAMPLES, help="Bootstrap draws.")
    ] = 2000,
    seed: Seed = 0,
    report: opt.Report = None,
    as_json: opt.AsJson = False,
) -> None:
    """Pooled relative recall over several runs, with a bootstrap range over documents."""
    from openodke.eval.judges.pool import pooled_recall, render_pool
    from openodke.eval.report.build import from_stage, write_report
    from openodke.eval.stages.spans import load_facts
    from openodke.eval.stages.stage_report import StageReport

    named = [(_run_name(path), load_facts(path)) for path in runs]
    units = None
    if documents is not None:
        from openodke.documents import load_documents

        units = [d.id for d in load_documents(documents)]
    with naming(documents=documents, runs=runs[0] if runs else None):
        section = pooled_recall(named, documents=units, resamples=resamples, seed=seed)
    if report is not None:
        stage = StageReport(
            stage="pool",
            n=section.pool,
            metrics={"pool": section.pool, "documents": section.documents},
            notes=(section.caveat,),
        )
        write_report(
            report,
            from_stage(
                stage, title="odke eval pool", bootstrap=section.bootstrap, pooled_recall=section
            ),
        )
    typer.echo(section.model_dump_json(indent=2) if as_json else render_pool(section))


def _run_name(path: Path) -> str:
    """A run's name: its folder's (``runs/a/facts.jsonl`` and ``runs/a`` are both ``a``)."""
    folder = path if path.is_dir() else path.parent
    return folder.name or str(path)


def refusals(
    runs: Annotated[
        list[Path] | None,
        typer.Argument(help="odke ground output, odke validate -o folders, or bench sets."),
    ] = None,
    documents: opt.Documents = None,
    make_sheet: MakeSheet = None,
    n: Annotated[
        int, typer.Option("--n", help="Refusals to draw, shared equally across strata.")
    ] = 100,
    seed: Seed = 0,
    per_sheet: PerSheet = 50,
    labels: Annotated[
        Path | None, typer.Option("--labels", help="RefusalLabel rows (odke label read).")
    ] = None,
    report: opt.Report = None,
    as_json: opt.AsJson = False,
) -> None:
    """Sample what a grounder refused for a person to judge, or score the judged sample."""
    from openodke.eval.judges.label_kinds import refusal_item
    from openodke.eval.judges.refusal_sample import draw_refusals, strata_sizes
    from openodke.eval.judges.refusal_sources import read_refusals
    from openodke.eval.judges.sheets import write_sheets
    from openodke.eval.refusals import RefusalLabel, report_refusals
    from openodke.eval.report.build import from_stage, write_report
    from openodke.safeio import load_jsonl

    found = []
    texts = _texts(documents)
    for run in runs or []:
        with naming(documents=documents):
            found += read_refusals(run, texts)
    if labels is not None:
        rows = load_jsonl(labels, RefusalLabel)
        result = report_refusals(rows, sizes=strata_sizes(found) if runs else None)
        if report is not None:
            write_report(report, from_stage(result, title="odke eval refusals"))
        typer.echo(result.model_dump_json(indent=2) if as_json else result.render())
        return
    if not runs:
        raise InputError("give the runs to sample (RUN...), or --labels to score a judged sample")
    sizes = strata_sizes(found)
    with naming(runs=runs[0] if runs else None):
        drawn = draw_refusals(found, n=n, seed=seed)
    if make_sheet is not None:
        keep = "".join(row.model_dump_json() + "\n" for row in drawn)
        items = [refusal_item(row.label_fields()) for row in drawn]
        paths = write_sheets(
            items,
            make_sheet,
            kind="refusal",
            title="Was the refusal right?",
            per_sheet=per_sheet,
            extra=[(make_sheet / "refusals.jsonl", keep)],
        )
        typer.echo(
            f"{len(drawn)} of {len(found)} refusals drawn (seed {seed}) into {len(paths)} "
            f"sheet(s) in {make_sheet}; the draw: {make_sheet / 'refusals.jsonl'}"
        )
    summary = {
        key: {"refusals": size, "drawn": sum(r.stratum == key for r in drawn)}
        for key, size in sorted(sizes.items())
    }
    if as_json:
        typer.echo(json.dumps({"refusals": len(found), "strata": summary}, indent=2))
        return
    if make_sheet is None:
        typer.echo(
            f"refusals  ({len(found)} in {len(sizes)} strata; --make-sheet DIR writes a sample of {n} to tick)"
        )
        width = max((len(k) for k in summary), default=7)
        typer.echo(f"  {'stratum':<{width}}  refusals  drawn")
        for key, row in summary.items():
            typer.echo(f"  {key:<{width}}  {row['refusals']:<8}  {row['drawn']}")
