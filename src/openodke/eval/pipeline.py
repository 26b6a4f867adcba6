"""Scoring a pipeline's facts: against labels and documents, or a bench set with its official row.

``odke eval pipeline`` collects the facts (``openodke.eval.harness``), then calls
:func:`score_pipeline`, which builds the EvalReport: our micro row with bootstrap ranges over
documents, conformance to the ontology, names the text does not contain, and, on a bench set, the
benchmark's own scorer replayed as a row named ``official``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from openodke import __version__
from openodke.documents import load_documents
from openodke.eval.eval_report import Usage, row_from_score
from openodke.eval.extract import ExtractionScore, score_facts
from openodke.eval.jsonl import load_jsonl
from openodke.eval.labels import GoldFact
from openodke.eval.report_models import (
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
from openodke.ontology import Ontology
from openodke.types import Document, Fact

__all__ = [
    "PipelineInputs",
    "PipelineResult",
    "bench_inputs",
    "conformance",
    "label_inputs",
    "official_from_submission",
    "official_row",
    "score_pipeline",
    "unnamed",
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


@dataclass
class PipelineResult:
    """The report, the matching behind its last row, and the facts as scored."""

    report: EvalReport
    score: ExtractionScore
    facts: list[Fact]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(file.read_bytes())
    return digest.hexdigest()


def label_inputs(labels: Path, documents: Path, ontology: Path | None = None) -> PipelineInputs:
    """Gold rows, the documents they label, and an optional ontology."""
    gold = load_jsonl(labels, GoldFact)
    docs = load_documents(documents)
    known = {d.id for d in docs}
    missing = sorted({row.doc_id for row in gold} - known)
    notes = []
    if missing:
        notes.append(
            f"{len(missing)} labelled document(s) are not in --documents (first: {missing[0]!r}); "
            "their gold facts still count as missed"
        )
    return PipelineInputs(
        gold=gold,
        documents=docs,
        ontology=Ontology.load(ontology) if ontology is not None else None,
        dataset=Dataset(
            name=labels.name,
            path=str(labels),
            documents=len(docs),
            labels=len(gold),
            details={"labels_sha256": _sha256(labels), "documents_sha256": _sha256(documents)},
        ),
        notes=notes,
    )


def bench_inputs(path: Path) -> PipelineInputs:
    """A prepared bench set (``odke bench prepare``)."""
    from openodke.bench import load_bench

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


def conformance(facts: Sequence[Fact], ontology: Ontology) -> Conformance:
    """The share of facts whose predicate is in the ontology and whose ends fit its types."""
    fitting = 0
    for fact in facts:
        predicate = ontology.predicate(fact.predicate)
        if predicate is None or not ontology.covers(predicate, fact.subject.type):
            continue
        object_type = fact.object_entity.type if fact.object_entity is not None else None
        if ontology.fits_range(predicate, object_type):
            fitting += 1
    return Conformance(
        rate=fitting / len(facts) if facts else None,
        conformant=fitting,
        facts=len(facts),
        checks=["predicate", "domain", "range"],
    )


def _name_of(key: str, label: str | None) -> str:
    return (label or key.split(":", 1)[-1]).casefold()


def unnamed(facts: Sequence[Fact], documents: Sequence[Document]) -> Hallucination:
    """Facts naming an end their cited document's text never mentions (case-folded substring)."""
    texts = {d.id: d.text.casefold() for d in documents}
    subjects = objects = either = 0
    checked = 0
    for fact in facts:
        text = next((texts[d] for d in fact.doc_ids if d in texts), None)
        if text is None:
            continue
        checked += 1
        s = _name_of(fact.subject.key, fact.subject.label) not in text
        if fact.object_entity is not None:
            o = _name_of(fact.object_entity.key, fact.object_entity.label) not in text
        else:
            o = str(fact.object_value).casefold() not in text
        subjects, objects, either = subjects + s, objects + o, either + (s or o)
    share = (lambda k: k / checked) if checked else (lambda k: None)
    return Hallucination(
        definition="an end whose name the cited document's text does not contain (case-folded)",
        hallucinated=either,
        facts=checked,
        rate=share(either),
        subject=share(subjects),
        object=share(objects),
    )


def official_row(official: object) -> tuple[Row, list[str]]:
    """The benchmark's own score as a report row (points: no ranges) and its notes."""
    from openodke.bench import RedocredOfficial, Text2KGOfficial

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
            ),
            counts=None,
        )
        notes = list(official.notes)
        if official.ign_f1 is not None:
            notes.append(f"official Ign F1 {official.ign_f1:.4f}")
        return row, notes
    raise TypeError(f"not an official score: {type(official).__name__}")


def official_from_submission(bench: object, path: Path) -> object:
    """The official score of a file in the benchmark's own format, replayed as written."""
    from openodke.bench import score_redocred_official, score_text2kg_official, text2kgbench

    if bench.dataset == "text2kgbench":  # type: ignore[attr-defined]
        return score_text2kg_official(
            text2kgbench.read_responses(path),
            bench.gold_rows,  # type: ignore[attr-defined]
            bench.info["ontology"],  # type: ignore[attr-defined]
            verified_ids=bench.verified_ids,  # type: ignore[attr-defined]
        )
    items = json.loads(path.read_text(encoding="utf-8-sig"))
    return score_redocred_official(items, bench.gold_rows)  # type: ignore[attr-defined]


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
) -> PipelineResult:
    """Score ``facts`` against ``inputs``: the EvalReport and the matching of its pipeline row.

    ``submission`` is the predictions file when it is in the benchmark's own format; the official
    row then replays the benchmark's scorer on that file as written, not on our reading of it.
    """
    all_notes = [*inputs.notes, *notes]
    scored = list(facts)
    bench = inputs.bench
    if bench is not None:
        from openodke.bench import score_official

        scored, failed = bench.align(scored)  # type: ignore[attr-defined]
        if failed:
            all_notes.append(
                f"{failed} prediction(s) name an entity the gold does not hold under any mention "
                "name; they are scored as written"
            )
    doc_ids = [d.id for d in inputs.documents]
    score = score_facts(inputs.gold, scored, doc_ids)
    row = row_from_score(name, score, usage=usage)
    update: dict[str, object] = {"hallucination": unnamed(scored, inputs.documents)}
    if inputs.ontology is not None:
        update["conformance"] = conformance(scored, inputs.ontology)
    rows = [row.model_copy(update=update)]
    if bench is not None:
        if submission is not None:
            result = official_from_submission(bench, submission)
        else:
            result = score_official(bench, list(facts))  # type: ignore[arg-type]
        official, official_notes = official_row(result)
        rows.append(official)
        all_notes += official_notes
    stage = score.report(stage="extract")
    report = EvalReport(
        title=title or f"{name} against {inputs.dataset.name or 'gold'}",
        n=stage.n,
        run=RunInfo(openodke=__version__, dataset=inputs.dataset, inputs=run_inputs or {}),
        bootstrap=Bootstrap(units=len(score.matching.documents)),
        rows=rows,
        stages=[stage],
        notes=all_notes + list(stage.notes),
        diagnosis=[],
        fixes=[],
        comparison=None,
        calibration=[],
    )
    return PipelineResult(report=report, score=score, facts=scored)
