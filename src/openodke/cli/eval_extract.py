"""``odke eval extract``: score extracted facts against GoldFact labels.

Predictions come from a file of Fact rows (a sink's ``facts.jsonl``, or the folder holding it) or
from running an extractor over ``--documents`` (``--run package.module:Name``). Files are read
straight to the engine's columns (:mod:`openodke.eval.engine.fastload`) at every size, scored and
diagnosed as the Python API scores and diagnoses Facts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from openodke.cli.options import (
    AsJson,
    Config,
    Describe,
    Documents,
    FailUnder,
    Html,
    Labels,
    Match,
    Ontology,
    Predictions,
    Report,
    Run,
    TypeMap,
    identity_options,
    one_source,
    write_page,
)
from openodke.errors import InputError
from openodke.eval.engine.pause import paused_gc, without_gc

# The engine, the evaluators and the report models are imported where they are used, so that
# `odke eval extract --help` loads none of them (tests/cli/test_startup.py).
if TYPE_CHECKING:
    from openodke.eval.diagnosis.buckets import Started
    from openodke.eval.engine.identity import Identity
    from openodke.eval.pipeline.findings import Findings
    from openodke.eval.report.models import EvalReport
    from openodke.eval.stages.extract import ExtractionScore
    from openodke.eval.stages.stage_report import StageReport
    from openodke.ontology import Ontology as OntologyModel
    from openodke.types import Document

__all__ = ["document_items", "echo_first", "register", "score_extract_files", "without"]

ExtractItems = Annotated[
    Path | None,
    typer.Option(
        "--items", help='Write {"id", "tp", "fp", "fn"} per labelled document, for compare.'
    ),
]


def facts_file(path: Path) -> Path:
    """A predictions path: a file, or a sink's folder holding ``facts.jsonl``."""
    if not path.exists():
        raise InputError("no such file or folder (--predictions)", path=str(path))
    if path.is_dir():
        inner = path / "facts.jsonl"
        if not inner.is_file():
            raise InputError("folder has no facts.jsonl", path=str(path))
        return inner
    return path


def score_extract_files(
    labels: Path,
    predictions: Path,
    documents: list[Document] | None = None,
    identity: Identity | None = None,
) -> ExtractionScore:
    """Score a GoldFact file against a Fact file, each read straight to columns (with the
    documents, what their texts say of each gold fact is worked out as it is read); ``identity``
    says how entities compare."""
    from openodke.eval.engine.fastload import load_both
    from openodke.eval.stages.triples_file import is_triples_file

    if is_triples_file(labels):  # gold as triples rows: read as predictions are
        from openodke.eval.engine.columns import FactColumns
        from openodke.eval.engine.fastload import load_facts
        from openodke.eval.stages.extract import score_keys
        from openodke.eval.stages.gold_rows import read_gold

        ontology = identity.ontology if identity is not None else None
        gold_rows = read_gold(labels, documents or (), ontology)
        ids = [d.id for d in documents] if documents is not None else None
        said_columns = load_facts(facts_file(predictions))
        return score_keys(FactColumns.of_gold(gold_rows), said_columns, ids, identity)
    texts = None
    if documents:
        from openodke.eval.diagnosis.texts import TextAnswers

        texts = TextAnswers({d.id: d.text for d in documents})
    with paused_gc():
        gold, said = load_both(labels, facts_file(predictions), texts=texts, meanwhile=_imports)
        from openodke.eval.stages.extract import score_keys

        ids = [d.id for d in documents] if documents is not None else None
        return score_keys(gold, said, ids, identity)


def _imports() -> None:
    """What scoring, the report and the diagnosis need next (the pydantic models among them):
    imported while the workers read, which start without them."""
    import openodke.eval.diagnosis.view  # noqa: F401
    import openodke.eval.pipeline.findings  # noqa: F401
    import openodke.eval.stages.extract  # noqa: F401


def document_items(score: ExtractionScore) -> str:
    """``{"id", "tp", "fp", "fn"}`` per labelled document, as JSONL text."""
    tp, fp, fn = score.document_counts()
    quote = json.JSONEncoder(ensure_ascii=False).encode
    rows = zip(score.matching.documents, tp.tolist(), fp.tolist(), fn.tolist(), strict=True)
    # What json.dumps writes for the row's dict, a tenth of the time for 100,000 documents.
    return "".join(
        f'{{"id": {quote(d)}, "tp": {a}, "fp": {b}, "fn": {c}}}\n' for d, a, b, c in rows
    )


@without_gc
def extract(
    labels: Labels = None,
    predictions: Predictions = None,
    run: Run = None,
    ontology: Ontology = None,
    documents: Documents = None,
    config: Config = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    items: ExtractItems = None,
    report: Report = None,
    type_map: TypeMap = None,
    match: Match = "identity",
    html: Html = None,
    fail_under: FailUnder = None,
) -> None:
    """Score extracted facts against gold: per-predicate P/R/F1 and the kind of each miss.

    Example: odke eval extract --labels gold.jsonl --predictions out/facts.jsonl --items b.items.jsonl

    --fail-under X: exit 1 when the low end of the F1 range (95%, over documents) is under X.
    """
    from openodke.eval.engine.identity import Identity
    from openodke.eval.engine.jsonl import write_outputs

    if describe_:
        from openodke.eval.stages.labels import describe

        typer.echo(describe("extract"))
        return
    from openodke.eval.report.floors import parse_floors

    floors = parse_floors(fail_under or [])
    if labels is None:
        raise InputError("--labels is required (odke eval extract --describe shows the format)")
    one_source(predictions, run, required="Fact rows, or --run pkg.mod:Extractor")
    for name, path in (("ontology", ontology), ("config", config)):
        if path is not None and not path.exists():
            raise InputError(f"--{name}: no such file", path=str(path))
    mapped, how = identity_options(type_map, match)
    onto = _ontology(ontology)
    identity = Identity(match=how, type_map=mapped, ontology=onto)  # type: ignore[arg-type]
    docs = None
    if documents is not None:
        from openodke.documents import load_documents

        docs = load_documents(documents)
    if run is not None:
        score = _score_run(labels, run, docs, identity)
    else:
        assert predictions is not None
        score = score_extract_files(labels, predictions, docs, identity)
    with _started(score) as started:  # the diagnosis begins while the report is made
        stage = score.report()
        too_small = _small_set(score)
        if too_small is not None:
            stage = stage.model_copy(update={"notes": (*stage.notes, too_small)})
        findings = _findings(started, docs, onto, config)
    wanted = report is not None or html is not None or floors
    made = _report(score, stage, findings, floors) if wanted else None
    if as_json:
        out = stage.model_dump(mode="json")
        out["diagnosis"] = [row.model_dump(mode="json") for row in findings.diagnosis.rows()]
        out["fixes"] = [fix.model_dump(mode="json") for fix in findings.fixes]
        if made is not None and made.gates:
            out["gates"] = [gate.model_dump(mode="json") for gate in made.gates]
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        from openodke.eval.pipeline.findings import render_findings

        first = echo_first(score)
        from openodke.cli import style

        shown = stage.model_copy(update={"notes": without(stage.notes, first)})
        typer.echo(style.stage_table(shown.render()))
        for table in render_findings(findings, row="extract"):
            typer.echo("")
            typer.echo(style.findings(table))
    outputs = []
    if items is not None:
        outputs.append((items, document_items(score)))
    if report is not None and made is not None:
        from openodke.eval.report.build import report_json

        outputs.append((report, report_json(made)))
    write_outputs(outputs)
    write_page(html, made, docs)
    if made is not None:
        from openodke.eval.report.floors import enforce_floors

        enforce_floors(made)  # after the outputs: the report records the gate


# The diagnosis and the report models are imported where they are needed, after the files
# are read, so reading does not wait for them to load.


def _ontology(path: Path | None) -> OntologyModel | None:
    if path is None:
        return None
    from openodke.ontology import Ontology as OntologyModel

    return OntologyModel.load(path)  # type: ignore[no-any-return]


def _score_run(
    labels: Path, run: str, docs: list[Document] | None, identity: Identity
) -> ExtractionScore:
    """Run an extractor over the documents and score what it gives."""
    from openodke.eval.engine.columns import FactColumns
    from openodke.eval.engine.fastload import load_gold
    from openodke.eval.pipeline import collect
    from openodke.eval.pipeline.callable import run_each
    from openodke.eval.stages.extract import score_keys
    from openodke.eval.stages.gold_rows import is_triples_file
    from openodke.protocols import load_stage

    if docs is None:
        raise InputError("--run needs --documents: the texts to run the extractor on")
    if is_triples_file(labels):
        from openodke.eval.stages.gold_rows import read_gold

        gold = FactColumns.of_gold(read_gold(labels, docs, identity.ontology))
    else:
        gold = load_gold(labels)
    facts = collect(run_each(load_stage(run), docs), docs, ontology=identity.ontology).facts
    return score_keys(gold, FactColumns.of_facts(facts), [d.id for d in docs], identity)


def _started(score: ExtractionScore) -> Started:
    """The score's diagnosis, begun (:class:`~openodke.eval.diagnosis.buckets.Started`)."""
    from openodke.eval.diagnosis.buckets import Started
    from openodke.eval.diagnosis.view import view_of

    return Started(view_of(score))


def _findings(
    started: Started,
    docs: list[Document] | None,
    ontology: OntologyModel | None,
    config: Path | None,
) -> Findings:
    """Where the row loses facts and what should change: ``--config`` as the trace,
    ``--documents`` as the texts."""
    from openodke.eval.pipeline.findings import DiagnosisInputs, diagnose_pipeline

    inputs = DiagnosisInputs(documents=docs or [], ontology=ontology)
    return diagnose_pipeline(started.view, inputs, trace=config, row="extract", started=started)


def _report(
    score: ExtractionScore,
    stage: StageReport,
    findings: Findings,
    floors: Sequence[tuple[str, float]],
) -> EvalReport:
    """The eval report of the row ``extract`` (with its ranges), its floors checked."""
    from openodke.eval.report.build import from_stage, row_from_score
    from openodke.eval.report.floors import check_floors
    from openodke.eval.report.models import Bootstrap

    row = row_from_score("extract", score)
    made = from_stage(
        stage,
        rows=[row],
        bootstrap=Bootstrap(units=len(score.matching.documents)),
        notes=[*score.warnings, *(note for note in (_small_set(score),) if note is not None)],
    )
    made = made.model_copy(update={"diagnosis": findings.diagnosis.rows(), "fixes": findings.fixes})
    return check_floors(made, floors, row="extract")


def echo_first(score: ExtractionScore) -> tuple[str, ...]:
    """Print what must be said before any table (nothing in common, near misses), then a blank
    line; return those lines, which the notes below then leave out."""
    from openodke.cli import style
    from openodke.eval.stages.first_warnings import first_warnings

    first = tuple(first_warnings(score))
    for line in style.first_warnings(first):
        typer.echo(line)
    if first:
        typer.echo("")
    return first


def without(notes: Sequence[str], first: Sequence[str]) -> list[str]:
    """``notes`` less the lines already printed first."""
    return [note for note in notes if note not in first]


def _small_set(score: ExtractionScore) -> str | None:
    """DECISIONS #41's note when too few documents hold a fact for any range to be trusted."""
    from openodke.eval.stages.extract import small_set

    return small_set(score)


def register(eval_app: typer.Typer) -> None:
    """Add ``odke eval extract``."""
    eval_app.command("extract")(extract)
