"""Where the pipeline row loses facts and what should change, with what its inputs allow.

Gathers the diagnosis's inputs from a scored pipeline (``--trace`` for what was offered, the
ontology or bench set for inverses, the bench set's evidence sentences, the documents' texts),
runs :func:`~openodke.eval.diagnosis.diagnose` and :func:`~openodke.eval.diagnosis.fixes.fixes`, and, with
a track record, attaches what earlier runs measured for each fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openodke.eval.diagnosis import (
    Diagnosis,
    DiagnosisView,
    config_from_trace,
    diagnose,
    evidence_from_bench,
    offered_from_trace,
)
from openodke.eval.diagnosis.buckets import Started
from openodke.eval.diagnosis.fixes import Fix, fixes
from openodke.eval.diagnosis.track_record import attach_records

__all__ = ["DiagnosisInputs", "Findings", "diagnose_pipeline", "render_findings"]


@dataclass
class DiagnosisInputs:
    """What the diagnosis reads beside the row: the documents (their texts), the ontology (its
    inverses) and the bench set (evidence sentences, inverses). PipelineInputs has these too."""

    documents: Sequence[Any] = ()
    ontology: Any = None
    bench: Any = None


@dataclass
class Findings:
    """A row's diagnosis, its ranked fixes and the run config it came from (if known)."""

    diagnosis: Diagnosis
    fixes: list[Fix]
    config: dict[str, Any] | None


def diagnose_pipeline(
    view: DiagnosisView,
    inputs: Any,
    *,
    trace: Path | None = None,
    reference: Path | None = None,
    examples: int = 3,
    row: str = "pipeline",
    track_record: Path | None = None,
    validator: Sequence[Any] | None = None,
    lenient: Sequence[Any] | None = None,
    started: Started | None = None,
) -> Findings:
    """Diagnose ``view`` (the pipeline row's matching) against ``inputs`` (DiagnosisInputs, or
    PipelineInputs); ``started`` is the view's diagnosis begun early
    (:class:`~openodke.eval.diagnosis.buckets.Started`)."""
    bench = inputs.bench
    offered = offered_from_trace(trace, inputs.ontology) if trace is not None else None
    inverses: Any = inputs.ontology
    if bench is not None and bench.inverses:
        inverses = [*([inputs.ontology] if inputs.ontology is not None else []), *bench.inverses]
    found = diagnose(
        view,
        offered=offered,
        inverses=inverses,
        evidence=evidence_from_bench(bench) if bench is not None else None,
        texts=inputs.documents,
        examples=examples,
        row=row,
        validator=validator,
        lenient=lenient,
        started=started,
    )
    ranked = fixes(found, reference=reference)
    if track_record is not None:
        ranked = attach_records(ranked, track_record)
    config = config_from_trace(trace) if trace is not None else None
    return Findings(found, ranked, config)


def render_findings(findings: Findings, row: str = "pipeline") -> Sequence[str]:
    """The two tables: where it loses facts, and what should change."""
    from openodke.eval.diagnosis.fixes import render_fixes

    return [findings.diagnosis.render(), render_fixes(findings.fixes, row=row)]
