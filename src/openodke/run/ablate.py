"""A run config three ways, each stage run once, nothing written: what the ablation and
``odke bench run`` score.

1. **extraction alone**: loaders, chunker, router, extractor (and ``reextract``); every candidate;
2. **+ grounding**: the candidates grounded once, then the config's gate;
3. **+ corroboration**: the grounded facts replayed (no new call) through normalize, resolve,
   corroborate, score, a fresh gate of the same kind, and inverse partners.

A document that failed (its extraction, or a grounding call that left its facts unchecked) makes
it raise PipelineError (exit 1) naming each, since scoring would count the failure as misses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openodke.errors import PipelineError
from openodke.ground.graph import ground_facts
from openodke.llm import StageCost
from openodke.run.build import Pipeline
from openodke.run.execute import failed_documents, make_validator
from openodke.run.reextract import reextract
from openodke.run.steps import extract, fewer_collections, load, route
from openodke.stages import PassthroughGrounder, Rejection
from openodke.types import Document, Fact, GroundingVerdict

__all__ = ["ROWS", "Ablated", "ablate"]

ROWS = ("extraction alone", "+ grounding", "+ corroboration")
"""The rows, in order."""


@dataclass
class Ablated:
    """The facts of each row, what grounding said of each candidate, and the calls and cost
    each row took (cumulative: later rows replay earlier calls)."""

    documents: list[Document]
    candidates: list[Fact]
    grounded: list[Fact]
    kept: list[bool]
    rows: dict[str, list[Fact]]
    calls: dict[str, int]
    cost: dict[str, StageCost]
    gate: Any
    judged: bool
    rejections: list[Rejection] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    claim_formats: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Failed documents that ``--allow-failures`` let through (scored: their facts as misses)."""

    def verdicts(self) -> dict[str, int]:
        """How many candidates got each verdict."""
        counts = {v.value: 0 for v in GroundingVerdict}
        for fact in self.grounded:
            counts[fact.verdict.value] += 1
        return counts


def _grounding_failures(grounded: list[Fact], judged: bool) -> dict[str, str]:
    if not judged:
        return {}
    failed: dict[str, str] = {}
    for fact in grounded:
        if fact.verdict is GroundingVerdict.unchecked:
            for doc in fact.doc_ids or ("(uncited)",):
                failed.setdefault(doc, "a grounding call failed and left its facts unchecked")
    return failed


def _cost(pipeline: Pipeline, roles: tuple[str, ...]) -> StageCost:
    total = StageCost()
    meter = pipeline.clients.meter
    if meter is None:
        return total
    stages = meter.report().stages
    for role in roles:
        if role in stages:
            total = total.merge(stages[role])
    return total


def _check_failed(
    failed: dict[str, str], total: int, share: float | None, notes: list[str]
) -> None:
    """PipelineError unless ``--allow-failures`` allows this many failed documents; a note if so."""
    if not failed:
        return
    if not share or len(failed) > share * max(total, 1):
        allowed = f" (--allow-failures {share:g} allows {int(share * total)})" if share else ""
        raise PipelineError(failed_documents(failed) + f"{allowed}; not scored")
    notes.append(
        failed_documents(failed)
        + f"; scored anyway (--allow-failures {share:g}): what they lost counts as misses"
    )


def ablate(pipeline: Pipeline) -> Ablated:
    """Run ``pipeline`` three ways (see the module docstring)."""
    with fewer_collections():
        return _ablate(pipeline)


def _ablate(pipeline: Pipeline) -> Ablated:
    config = pipeline.config
    documents, _warnings = load(pipeline)
    routed = route(pipeline, documents)
    extraction = extract(pipeline, routed.items)
    if config.reextract is not None:
        found, _ = reextract(
            pipeline.extractor, [d for d, _ in routed.items], extraction, config.reextract.windows
        )
        extraction.facts.extend(found)
    share = pipeline.options.allow_failures
    notes: list[str] = []
    _check_failed(extraction.failed, len(routed.items), share, notes)
    candidates = list(extraction.facts)
    calls = {ROWS[0]: pipeline.clients.calls}
    cost = {ROWS[0]: _cost(pipeline, ("extract",))}

    judged = pipeline.judge() is not None
    grounded, _uncited = ground_facts(candidates, documents, pipeline.grounder)
    failed = _grounding_failures(grounded, judged)
    _check_failed(failed, len(documents), share, notes)
    gate = pipeline.make_gate()
    gated = make_validator(pipeline, grounder=PassthroughGrounder(), gate=gate, post=False)
    graph2, _ = gated.validate(grounded, documents)
    refused_ids = {fact.id for fact, _ in gated.refused}
    calls[ROWS[1]] = calls[ROWS[2]] = pipeline.clients.calls
    cost[ROWS[1]] = cost[ROWS[2]] = _cost(pipeline, ("extract", "ground"))

    whole = make_validator(pipeline, grounder=PassthroughGrounder(), gate=pipeline.make_gate())
    graph3, _ = whole.validate(grounded, documents)
    return Ablated(
        documents=documents,
        candidates=candidates,
        grounded=grounded,
        kept=[fact.id not in refused_ids for fact in grounded],
        rows={ROWS[0]: candidates, ROWS[1]: list(graph2.facts), ROWS[2]: list(graph3.facts)},
        calls=calls,
        cost=cost,
        gate=gate,
        judged=judged,
        rejections=list(extraction.rejections),
        prompts=pipeline.prompts(),
        claim_formats=dict(getattr(pipeline.grounder, "claim_formats", {}) or {}),
        notes=notes,
    )
