"""Scoring a pipeline's facts: against labels and documents, or a bench set with its official row.

``odke eval pipeline`` collects the facts (``openodke.eval.pipeline``), then calls
:func:`score_pipeline`, which builds the EvalReport: our micro row with bootstrap ranges over
documents, conformance to the ontology, names the text does not contain, and, on a bench set, the
benchmark's own scorer replayed as a row named ``official``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from openodke import __version__
from openodke.doc_ids import join_ids
from openodke.documents import load_documents
from openodke.eval.diagnosis import gold_view
from openodke.eval.engine.identity import Identity
from openodke.eval.pipeline.fact_checks import FactChecks
from openodke.eval.pipeline.findings import Findings, diagnose_pipeline
from openodke.eval.report.build import Usage, row_from_score
from openodke.eval.report.models import (
    Bootstrap,
    Conformance,
    Dataset,
    EvalReport,
    Hallucination,
    Performance,
    Row,
    RunInfo,
    Value,
)
from openodke.eval.stages.extract import ExtractionScore, score_keys
from openodke.eval.stages.gold_rows import read_gold
from openodke.eval.stages.labels import GoldFact
from openodke.ontology import Ontology
from openodke.safeio import open_regular, read_json, walk_files
from openodke.types import Document, Fact

if TYPE_CHECKING:
    from openodke.eval.diagnosis.texts import TextAnswers
    from openodke.eval.engine.columns import FactColumns

__all__ = [
    "DiagnosisOptions",
    "PipelineInputs",
    "PipelineResult",
    "bench_inputs",
    "label_inputs",
    "missing_documents",
    "official_from_submission",
    "official_row",
    "score_fact_file",
    "score_pipeline",
    "score_streamed",
]


@dataclass
class PipelineInputs:
    """What a pipeline is scored against."""

    gold: list[GoldFact]
    documents: list[Document]
    ontology: Ontology | None = None
    bench: object | None = None  # an openodke.bench.BenchSet
    dataset: Dataset = field(default_factory=Dataset)
    notes: list[str] = field(default_factory=list)
    type_map: dict[str, str] = field(default_factory=dict)
    match: str = "identity"

    @property
    def identity(self) -> Identity:
        """How entities compare: the ontology's type names, ``type_map``, ``match``."""
        return Identity(match=self.match, type_map=self.type_map, ontology=self.ontology)  # type: ignore[arg-type]


@dataclass
class DiagnosisOptions:
    """What the diagnosis reads besides the scored row (``odke eval pipeline`` flags)."""

    trace: Path | None = None
    reference: Path | None = None
    examples: int = 3
    track_record: Path | None = None


@dataclass
class PipelineResult:
    """The report, the matching behind its pipeline row, the facts as scored, and the
    diagnosis and fixes when asked for."""

    report: EvalReport
    score: ExtractionScore
    facts: list[Fact]
    findings: Findings | None = None


def _sha256(path: Path) -> str:
    """SHA-256 of a file, or of a folder's files in order, read in blocks (regular files only)."""
    digest = hashlib.sha256()
    for file in walk_files(path) if path.is_dir() else [path]:
        with open_regular(file) as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


def missing_documents(gold_docs: Iterable[str], documents: Sequence[Document]) -> list[str]:
    """A note when labelled documents are not among the documents given, by id or by file stem
    (:func:`openodke.doc_ids.join_ids`, as matching joins them)."""
    gold = list(dict.fromkeys(gold_docs))
    doc_ids = join_ids(gold, [d.id for d in documents])
    found = {d.id for d in documents} | {name for name, _ in doc_ids.joined}
    missing = sorted(g for g in gold if g not in found)
    if not missing:
        return []
    return [
        f"{len(missing)} labelled document(s) are not in --documents, by id or file stem "
        f"(first: {missing[0]!r}); their gold facts are scored all the same, but no text "
        "checks or diagnoses them"
    ]


def label_inputs(
    labels: Path, documents: Path, ontology: Path | None = None, *, load_gold: bool = True
) -> PipelineInputs:
    """Gold rows (unless ``load_gold`` is False: the fast path reads them itself), the
    documents they label, and an optional ontology. Gold written as triples rows is read by
    the rules predictions are (:mod:`~openodke.eval.stages.gold_rows`)."""
    docs = load_documents(documents)
    onto = Ontology.load(ontology) if ontology is not None else None
    gold = read_gold(labels, docs, onto) if load_gold else []
    notes = missing_documents((row.doc_id for row in gold), docs)
    return PipelineInputs(
        gold=gold,
        documents=docs,
        ontology=onto,
        dataset=Dataset(
            name=labels.name,
            path=str(labels),
            documents=len(docs),
            labels=len(gold) if load_gold else None,
            details={"labels_sha256": _sha256(labels), "documents_sha256": _sha256(documents)},
        ),
        notes=notes,
    )


def bench_inputs(path: Path) -> PipelineInputs:
    """A prepared bench set (``odke bench prepare``)."""
    from openodke.bench.load import load_bench

    bench = load_bench(path)
    return PipelineInputs(
        gold=list(bench.gold),
        documents=list(bench.documents),
        ontology=Ontology.from_dict(bench.ontology, strict=False),
        bench=bench,
        dataset=Dataset(
            name=bench.dataset,
            path=str(path),
            documents=len(bench.documents),
            labels=len(bench.gold),
            details={"title": bench.title, "source": bench.info.get("source")},
        ),
    )


def official_row(official: object) -> tuple[Row, list[str]]:
    """The benchmark's own score as a report row (points: no ranges) and its notes."""
    from openodke.bench.official_redocred import RedocredOfficial
    from openodke.bench.official_text2kg import Text2KGOfficial

    if isinstance(official, Text2KGOfficial):
        notes = list(official.notes)
        if official.verified is not None:
            v = official.verified.rounded()
            notes.append(
                f"official, verified subset ({official.verified.sentences} sentences): "
                f"P {v['precision']} R {v['recall']} F1 {v['f1']} OC {v['onto_conf']} "
                f"SH {v['sub_halluc']} RH {v['rel_halluc']} OH {v['obj_halluc']}"
            )
        row = Row(
            name="official",
            performance=Performance(
                precision=Value(value=official.precision),
                recall=Value(value=official.recall),
                f1=Value(value=official.f1),
                average="macro",
            ),
            counts=None,
            conformance=Conformance(
                rate=official.onto_conf,
                # OC per sentence is conformant / all of that sentence's triples.
                conformant=round(
                    sum(s.onto_conf * len(s.llm_triples) for s in official.per_sentence)
                ),
                facts=sum(len(s.llm_triples) for s in official.per_sentence),
                checks=["predicate"],
                average="macro",
            ),
            hallucination=Hallucination(
                definition="Text2KGBench: subject or object not in the stemmed sentence and "
                "concept labels; relation not in the ontology (macro over sentences)",
                facts=sum(len(s.llm_triples) for s in official.per_sentence),
                rate=None,
                subject=official.sub_halluc,
                relation=official.rel_halluc,
                object=official.obj_halluc,
            ),
        )
        return row, notes
    if isinstance(official, RedocredOfficial):
        row = Row(
            name="official",
            performance=Performance(
                precision=Value(value=official.precision),
                recall=Value(value=official.recall),
                f1=Value(value=official.f1),
                # Ign F1 only with the training facts (else a note says how to get it).
                ign_f1=None if official.ign_f1 is None else Value(value=official.ign_f1),
                evidence_f1=Value(value=official.evidence_f1),
            ),
            counts=None,
        )
        return row, list(official.notes)
    raise TypeError(f"not an official score: {type(official).__name__}")


def official_from_submission(
    bench: object, path: Path, *, train_facts: Iterable[tuple[str, str, str]] | None = None
) -> object:
    """The official score of a file in the benchmark's own format, replayed as written."""
    from openodke.bench import text2kgbench
    from openodke.bench.official_redocred import score_redocred_official
    from openodke.bench.official_text2kg import score_text2kg_official

    if bench.dataset == "text2kgbench":  # type: ignore[attr-defined]
        return score_text2kg_official(
            text2kgbench.read_responses(path),
            bench.gold_rows,  # type: ignore[attr-defined]
            bench.info["ontology"],  # type: ignore[attr-defined]
            verified_ids=bench.verified_ids,  # type: ignore[attr-defined]
        )
    items = read_json(path, what="a DocRED submission")
    return score_redocred_official(items, bench.gold_rows, train_facts=train_facts)  # type: ignore[attr-defined]


def score_pipeline(
    facts: Sequence[Fact],
    inputs: PipelineInputs,
    *,
    name: str = "pipeline",
    usage: Usage | None = None,
    notes: Sequence[str] = (),
    run_inputs: dict[str, str] | None = None,
    title: str | None = None,
    submission: Path | None = None,
    diagnosis: DiagnosisOptions | None = None,
    train_facts: Iterable[tuple[str, str, str]] | None = None,
) -> PipelineResult:
    """Score ``facts`` against ``inputs``: the EvalReport and the matching of its pipeline row.

    ``submission`` is the predictions file when it is in the benchmark's own format; the official
    row then replays the benchmark's scorer on that file as written, not on our reading of it.
    With ``diagnosis``, the report's ``diagnosis[]`` and ``fixes[]`` say where the pipeline row
    loses facts and what should change. ``train_facts`` (Re-DocRED's, ``load_train_facts``) gives
    the official row its Ign F1.
    """
    all_notes = [*inputs.notes, *notes]
    scored = list(facts)
    bench = inputs.bench
    if bench is not None:
        from openodke.bench.official import score_official

        scored, failed = bench.align(scored)  # type: ignore[attr-defined]
        if failed:
            all_notes.append(
                f"{failed} prediction(s) name an entity the gold does not hold under any mention "
                "name; they are scored as written"
            )
    doc_ids = [d.id for d in inputs.documents]
    view = gold_view(inputs.gold, scored, documents=doc_ids, identity=inputs.identity)
    score = view.score
    checks = FactChecks(inputs.ontology, inputs.documents, inputs.identity.renamed)
    flags = checks.of_facts(scored)
    rows = [_row(name, score, checks, flags, usage)]
    if bench is not None:
        if submission is not None:
            result = official_from_submission(bench, submission, train_facts=train_facts)
        else:
            result = score_official(bench, list(facts), train_facts=train_facts)  # type: ignore[arg-type]
        official, official_notes = official_row(result)
        rows.append(official)
        all_notes += official_notes
    report = _traced(_report(name, score, inputs, rows, all_notes, run_inputs, title), diagnosis)
    findings = None
    if diagnosis is not None:
        findings = diagnose_pipeline(
            view,
            inputs,
            trace=diagnosis.trace,
            reference=diagnosis.reference,
            examples=diagnosis.examples,
            row=name,
            track_record=diagnosis.track_record,
        )
        report = report.model_copy(
            update={"diagnosis": findings.diagnosis.rows(), "fixes": findings.fixes}
        )
    return PipelineResult(report=report, score=score, facts=scored, findings=findings)


def _row(
    name: str, score: ExtractionScore, checks: FactChecks, flags: np.ndarray, usage: Usage | None
) -> Row:
    conformance, hallucination = checks.summarise(flags)
    row = row_from_score(name, score, usage=usage)
    return row.model_copy(update={"conformance": conformance, "hallucination": hallucination})


def _traced(report: EvalReport, diagnosis: DiagnosisOptions | None) -> EvalReport:
    """``report`` with the models and prompts of the run ``--trace`` names (its manifest's, or
    its config's models), so the report says how the scored facts were made."""
    if diagnosis is None or diagnosis.trace is None:
        return report
    from openodke.eval.diagnosis.trace import models_from_trace

    models, prompts = models_from_trace(diagnosis.trace)
    run = report.run.model_copy(
        update={
            "models": {**models, **report.run.models},
            "prompts": list(dict.fromkeys([*report.run.prompts, *prompts])),
        }
    )
    return report.model_copy(update={"run": run})


def first_notes(
    notes: Sequence[str], stage_notes: Sequence[str], first: Sequence[str]
) -> list[str]:
    """The report's notes: the first warnings (nothing in common, near misses) before the
    inputs' and the stage's other notes."""
    return [*first, *notes, *(n for n in stage_notes if n not in first)]


def _report(
    name: str,
    score: ExtractionScore,
    inputs: PipelineInputs,
    rows: list[Row],
    notes: list[str],
    run_inputs: dict[str, str] | None,
    title: str | None,
) -> EvalReport:
    stage = score.report(stage="extract")
    return EvalReport(
        title=title or f"{name} against {inputs.dataset.name or 'gold'}",
        n=stage.n,
        run=RunInfo(openodke=__version__, dataset=inputs.dataset, inputs=run_inputs or {}),
        bootstrap=Bootstrap(units=len(score.matching.documents)),
        rows=rows,
        stages=[stage],
        notes=first_notes(notes, stage.notes, score.warnings),
        diagnosis=[],
        fixes=[],
        comparison=None,
        calibration=[],
    )


def score_fact_file(
    predictions: Path,
    labels: Path,
    inputs: PipelineInputs,
    *,
    name: str = "pipeline",
    notes: Sequence[str] = (),
    run_inputs: dict[str, str] | None = None,
    diagnosis: DiagnosisOptions | None = None,
    usage: Usage | None = None,
) -> PipelineResult:
    """:func:`score_pipeline` for a file of Fact rows against a label file: both read straight
    to the engine's columns (keys, checks and what the diagnosis joins on, never a Fact per row),
    so ``facts`` is empty. The same rows, diagnosis and fixes as the Facts would give."""
    from openodke.eval.engine.fastload import load_both, paused_gc

    checks = FactChecks(inputs.ontology, inputs.documents, inputs.identity.renamed)
    texts = _texts(inputs, diagnosis)
    with paused_gc():
        gold, said = load_both(labels, predictions, checks=checks, texts=texts)
    return _score_columns(gold, said, checks, inputs, name, notes, run_inputs, diagnosis, usage)


def score_streamed(
    predictions: Callable[[FactChecks], tuple[FactColumns, Sequence[str]]],
    labels: Path,
    inputs: PipelineInputs,
    *,
    name: str = "pipeline",
    notes: Sequence[str] = (),
    run_inputs: dict[str, str] | None = None,
    diagnosis: DiagnosisOptions | None = None,
    usage: Usage | None = None,
) -> PipelineResult:
    """:func:`score_fact_file` for predictions read into columns by ``predictions`` (given the
    fact checks, it returns the columns and its notes: :func:`~openodke.eval.pipeline.stream.
    stream_columns` on triples rows or an adapter's output), so ``facts`` is empty."""
    from openodke.eval.engine.fastload import load_gold_answered, paused_gc

    checks = FactChecks(inputs.ontology, inputs.documents, inputs.identity.renamed)
    with paused_gc():
        gold = load_gold_answered(labels, _texts(inputs, diagnosis))
    said, read_notes = predictions(checks)
    notes = [*read_notes, *notes]
    return _score_columns(gold, said, checks, inputs, name, notes, run_inputs, diagnosis, usage)


def _texts(inputs: PipelineInputs, diagnosis: DiagnosisOptions | None) -> TextAnswers | None:
    from openodke.eval.diagnosis.inputs import text_map
    from openodke.eval.diagnosis.texts import TextAnswers

    return TextAnswers(text_map(inputs.documents)) if diagnosis and inputs.documents else None


def _score_columns(
    gold: FactColumns,
    said: FactColumns,
    checks: FactChecks,
    inputs: PipelineInputs,
    name: str,
    notes: Sequence[str],
    run_inputs: dict[str, str] | None,
    diagnosis: DiagnosisOptions | None,
    usage: Usage | None,
) -> PipelineResult:
    from openodke.eval.diagnosis.view import view_of
    from openodke.eval.engine.fastload import paused_gc

    with paused_gc():
        score = score_keys(gold, said, [d.id for d in inputs.documents], inputs.identity)
    flags = said.flags if said.flags is not None else np.zeros(len(said), np.int8)
    rows = [_row(name, score, checks, flags, usage)]
    inputs.dataset = inputs.dataset.model_copy(update={"labels": len(gold)})
    notes = [*missing_documents(gold.docs.names.values(), inputs.documents), *notes]
    report = _report(name, score, inputs, rows, [*inputs.notes, *notes], run_inputs, None)
    report = _traced(report, diagnosis)
    findings = None
    if diagnosis is not None:
        findings = diagnose_pipeline(
            view_of(score),
            inputs,
            trace=diagnosis.trace,
            reference=diagnosis.reference,
            examples=diagnosis.examples,
            row=name,
            track_record=diagnosis.track_record,
        )
        report = report.model_copy(
            update={"diagnosis": findings.diagnosis.rows(), "fixes": findings.fixes}
        )
    return PipelineResult(report=report, score=score, facts=[], findings=findings)
