"""``execute(config)``: a run end to end, and ``validate_facts``: the Validator's stages from a config.

A run reads its inputs, chunks and routes them, extracts (re-asking narrower windows with
``reextract``), then sends the facts through the Validator built from the config's stages:
ground, normalize, resolve, corroborate, score, gate and, where the ontology declares them (or
``inverses: true``), inverse partners. A stage the config leaves out is pass-through (the scorer is
``evidence``). The outputs (each JSONL sink's four files with the run's manifest keys,
``refused.jsonl`` and ``rejections.jsonl`` beside them; ``manifest.json`` beside the config when
there is no JSONL sink) are written all at once, only when the run succeeds.

Failures: a document whose extraction failed makes the run fail (PipelineError, exit 1, naming
each document) and nothing is written; a grounding call that failed leaves its fact unchecked and
is counted and warned about, and the run fails only when every grounding call failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openodke.calibration import calibration_entry
from openodke.errors import PipelineError, ProviderError
from openodke.gate import REFUSED_FILE, refused_lines
from openodke.ground.files import write_files
from openodke.interop.match import DocumentIndex
from openodke.llm.base import ModelSpec
from openodke.llm.batch.use import batch_use
from openodke.llm.budget import estimate_tokens
from openodke.llm.estimate import (
    TOKENS_PER_FACT,
    VERDICT_TOKENS,
    expected_facts,
    expected_usd,
    extraction_output,
)
from openodke.run.build import Pipeline, RunOptions, build
from openodke.run.config import RunConfig
from openodke.run.manifest import check_manifest, manifest_keys
from openodke.run.plan import ExpectedGrounding, RunPlan
from openodke.run.reextract import model_extractor, reextract
from openodke.run.result import RunResult
from openodke.run.steps import Routed, extract, fewer_collections, load, route
from openodke.sinks import JsonlSink
from openodke.stages import ExtractionResult
from openodke.types import Document, Fact, KnowledgeGraph
from openodke.validate import ValidationReport, Validator, plan_grounding
from openodke.validate.inputs import match_facts

__all__ = [
    "REJECTIONS_FILE",
    "execute",
    "failed_documents",
    "make_validator",
    "validate_facts",
]

REJECTIONS_FILE = "rejections.jsonl"
"""The extractor's rejected candidates, beside a JSONL sink's files."""


def failed_documents(failed: dict[str, str]) -> str:
    """``2 documents failed: a.txt (why); b.txt (why)``, the first ten named."""
    shown = "; ".join(f"{doc} ({why})" for doc, why in list(failed.items())[:10])
    more = f"; and {len(failed) - 10} more" if len(failed) > 10 else ""
    word = "document" if len(failed) == 1 else "documents"
    return f"{len(failed)} {word} failed: {shown}{more}"


def _coverage(pipeline: Pipeline) -> dict[str, Any] | bool:
    if not pipeline.config.coverage:
        return False
    found = getattr(pipeline.extractor, "coverage", None)
    value = found() if callable(found) else None
    if isinstance(value, dict):
        return value
    from openodke.eval.diagnosis.trace import offered_from_config
    from openodke.run.manifest import resolved_config

    offered = offered_from_config(resolved_config(pipeline.config), pipeline.ontology)
    if offered is None:
        return False
    every = {
        t: [p.name for p in pipeline.ontology.predicates_for(t)] for t in pipeline.ontology.types
    }
    never = {
        t: [p for p in names if p not in offered.by_type.get(t, ())] for t, names in every.items()
    }
    return {
        "snippet_limit": offered.snippet_limit,
        "offered": {t: list(ps) for t, ps in offered.by_type.items()},
        "never_offered": {t: ps for t, ps in never.items() if ps},
    }


def make_validator(
    pipeline: Pipeline,
    *,
    grounder: Any = None,
    gate: Any = None,
    post: bool = True,
    defaults: bool = False,
    coverage: dict[str, Any] | bool = False,
) -> Validator:
    """A Validator with the pipeline's stages. ``post=False`` turns normalize, resolve,
    corroborate, score and inverses off (grounding and the gate alone); ``defaults=True`` gives
    stages the config left out the Validator's defaults instead of pass-through (``odke
    validate``'s rule); ``grounder``/``gate`` replace the pipeline's."""
    from openodke.stages import (
        PassthroughCorroborator,
        PassthroughNormalizer,
        PassthroughResolver,
        PassthroughScorer,
    )

    stages = pipeline.config.stages
    chosen: dict[str, Any] = {
        "grounder": grounder if grounder is not None else pipeline.grounder,
        "normalizer": pipeline.normalizer,
        "resolver": pipeline.resolver,
        "corroborator": pipeline.corroborator,
        "scorer": pipeline.scorer,
        "gate": gate if gate is not None else pipeline.gate,
    }
    if defaults:
        for kind in chosen:
            if getattr(stages, kind) is None and not (kind == "grounder" and grounder is not None):
                chosen[kind] = None
        if chosen["grounder"] is None:
            from openodke.stages.grounding import ModelGrounder

            chosen["grounder"] = ModelGrounder(
                pipeline.ontology, client=pipeline.clients.client("ground"), roles=pipeline.roles
            )
    if not post:
        chosen.update(
            normalizer=PassthroughNormalizer(),
            resolver=PassthroughResolver(),
            corroborator=PassthroughCorroborator(),
            scorer=PassthroughScorer(),
        )
    return Validator(
        pipeline.ontology,
        roles=pipeline.roles,
        inverses=pipeline.inverses if post else False,
        coverage=coverage,
        cards=pipeline.cards,
        **chosen,
    )


def validate_facts(
    config: RunConfig,
    facts: Sequence[Fact],
    documents: Sequence[Document],
    *,
    options: RunOptions | None = None,
) -> tuple[KnowledgeGraph, ValidationReport, list[tuple[Fact, str]]]:
    """The Validator's stages from ``config`` over ``facts`` (for ``odke eval pipeline
    --validator``): stages the config leaves out get the Validator's defaults. Returns the
    written graph, the report and the refused facts with the gate's reasons; nothing is written.

    The config's extractor is never run here, so it is built as a model-free ``pattern``: its
    model (and its key) is not needed to validate another system's facts."""
    from openodke.run.config import StageSpec

    unused = StageSpec(use="pattern", line=config.stages.extractor.line)
    config = config.model_copy(
        update={"stages": config.stages.model_copy(update={"extractor": unused})}
    )
    with build(config, options) as pipeline:
        validator = make_validator(pipeline, defaults=True, coverage=pipeline.config.coverage)
        graph, report = validator.validate(list(facts), list(documents))
        return graph, report, list(validator.refused)


# -- the run --------------------------------------------------------------------------------


def _dry_run(pipeline: Pipeline, documents: list[Document], routed: Routed) -> RunPlan:
    plan = RunPlan(
        documents=len(documents),
        chunks=routed.chunks,
        routed=sum(len(chunks) for _, chunks in routed.items),
    )
    model = model_extractor(pipeline.extractor)
    custom = pipeline.config.stages.extractor.custom
    if model is not None:
        plan.extract.model = model.spec.model
        plan.extract.prompt = ", ".join(getattr(model, "prompts", []) or [])
        schema = model.schema if getattr(model, "structured", True) else None
        grounding = _expected_grounding(pipeline.grounder)
        for document, chunks in routed.items:
            for chunk in chunks:
                out = extraction_output(chunk.text, model.spec)
                plan.extract.add(model.messages(chunk), model.spec, schema, out)
                if grounding is not None:
                    grounding.add(expected_facts(out), document.text)
        if grounding is not None:
            plan.ground_expected = grounding.plan
        if pipeline.config.reextract is not None:
            plan.notes.append("reextract asks again after extraction: not counted")
        return plan
    if custom:
        plan.notes.append("a custom extractor: its calls, if any, cannot be planned")
        return plan
    facts = extract(pipeline, routed.items).facts
    plan.facts = len(facts)
    pairs = match_facts(facts, DocumentIndex(documents), pipeline.ontology).pairs
    plan.ground = plan_grounding(pipeline.grounder, pairs)
    return plan


class _GroundingEstimate:
    """The grounding calls a model extractor's facts are expected to bring (DECISIONS #223):
    the grounder's prompt with about a fact's words (or, in the paper format, the document)."""

    def __init__(self, spec: ModelSpec, prompt: Any, document: bool) -> None:
        self.spec = spec
        self.messages = prompt.messages("", "")
        self.schema = prompt.schema
        self.document = document
        self.plan = ExpectedGrounding(model=spec.model)

    def add(self, facts: int, text: str) -> None:
        extra = TOKENS_PER_FACT + (estimate_tokens(text) if self.document else 0)
        usd = expected_usd(
            self.messages, self.spec, self.schema, VERDICT_TOKENS, extra_prompt_tokens=extra
        )
        self.plan.calls += facts
        if usd is None or self.plan.usd is None:
            self.plan.usd = None
        else:
            self.plan.usd += facts * usd


def _expected_grounding(grounder: Any) -> _GroundingEstimate | None:
    inner = getattr(grounder, "inner", grounder)
    spec, prompt = getattr(inner, "spec", None), getattr(inner, "prompt", None)
    if not isinstance(spec, ModelSpec) or prompt is None or not hasattr(prompt, "messages"):
        return None
    return _GroundingEstimate(spec, prompt, getattr(inner, "context", None) == "document")


def _outputs(
    pipeline: Pipeline,
    graph: KnowledgeGraph,
    keys: dict[str, Any],
    refused: list[tuple[Fact, str]],
    extraction: ExtractionResult,
) -> list[tuple[Path, str]]:
    files: list[tuple[Path, str]] = []
    jsonl = [sink for sink in pipeline.sinks if isinstance(sink, JsonlSink)]
    rejections = "".join(r.model_dump_json() + "\n" for r in extraction.rejections)
    for sink in jsonl:
        staged = sink.files(graph, keys)
        staged.insert(-1, (sink.directory / REFUSED_FILE, refused_lines(refused)))
        staged.insert(-1, (sink.directory / REJECTIONS_FILE, rejections))
        files += staged
    if not jsonl:
        import json

        manifest = JsonlSink.manifest(graph)
        for key, value in keys.items():
            manifest.setdefault(key, value)
        text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        files.append((pipeline.config.base_dir / "manifest.json", text))
    return files


def _stats(
    pipeline: Pipeline,
    graph: KnowledgeGraph,
    documents: list[Document],
    routed: Routed,
    extraction: ExtractionResult,
    reextracted: dict[str, Any] | None,
    extracted: int,
) -> dict[str, Any]:
    stats = dict(graph.stats)
    stages = dict(stats.get("stages", {}))
    stages = {
        "router": routed.stats(),
        "extractor": {
            **extraction.stats,
            "rejected": len(extraction.rejections),
            "model_calls": pipeline.clients.calls_of("extract"),
        },
        **stages,
    }
    for name, stage in (("chunker", pipeline.chunker), ("scorer", pipeline.scorer)):
        counts = getattr(stage, "stats", None)
        if isinstance(counts, dict):
            stages[name] = dict(counts)
    stats.update(
        documents=len(documents),
        chunks=routed.chunks,
        skipped=routed.skipped,
        deferred=routed.deferred,
        extracted=extracted,
        stages=stages,
        reextract=reextracted,
        prompts=pipeline.prompts(),
    )
    meter = pipeline.clients.meter
    stats["cost"] = (
        meter.report(documents=len(documents)).model_dump(mode="json") if meter else None
    )
    use = batch_use()
    stats["batch"] = None if use is None else use.model_dump(mode="json")
    judge = pipeline.judge()
    stats["calibration"] = (
        [calibration_entry("ground", judge[0], judge[1], pipeline.cards)]
        if judge is not None and (stats.get("validation", {}).get("calls") or 0)
        else []
    )
    return stats


def execute(
    config: RunConfig,
    dry_run: bool = False,
    *,
    options: RunOptions | None = None,
    from_manifest: str | Path | None = None,
) -> RunResult:
    """Run ``config`` end to end (see the module docstring); on a dry run, plan and price the
    model calls and make none. ``from_manifest`` refuses (exit 2) when the ontology or a document
    differs from the manifest's. Raises PipelineError (exit 1) when a document failed,
    BudgetStop (exit 3) before a call that would pass the budget."""
    started = datetime.now(UTC)
    with fewer_collections(), build(config, options) as pipeline:
        documents, warnings = load(pipeline)
        if from_manifest is not None:
            check_manifest(from_manifest, pipeline.ontology, documents)
        routed = route(pipeline, documents)
        if dry_run:
            plan = _dry_run(pipeline, documents, routed)
            graph = KnowledgeGraph(
                ontology_name=pipeline.ontology.name, stats={"dry_run": plan.as_dict()}
            )
            return RunResult(
                graph=graph, dry_run=True, warnings=warnings, stats=graph.stats, plan=plan
            )
        extraction = extract(pipeline, routed.items)
        reextracted: dict[str, Any] | None = None
        if config.reextract is not None:
            found, reextracted = reextract(
                pipeline.extractor,
                [d for d, _ in routed.items],
                extraction,
                config.reextract.windows,
            )
            if "skipped" in reextracted:
                warnings.append(f"reextract: {reextracted['skipped']}")
            extraction.facts.extend(found)
        if extraction.failed:
            share = options.allow_failures if options is not None else None
            if not share or len(extraction.failed) > share * len(routed.items):
                allowed = (
                    f" (--allow-failures {share:g} allows {int(share * len(routed.items))})"
                    if share
                    else ""
                )
                raise PipelineError(
                    failed_documents(extraction.failed) + f"{allowed}; nothing written"
                )
            warnings.append(
                failed_documents(extraction.failed) + f"; left out (--allow-failures {share:g})"
            )
        validator = make_validator(pipeline, coverage=_coverage(pipeline))
        graph, report = validator.validate(extraction.facts, documents)
        failures: dict[str, Any] | None = None
        if report.failed:
            if report.calls and report.failed == report.calls:
                raise ProviderError(
                    f"every grounding call failed ({report.calls}); nothing written"
                )
            warnings.append(
                f"{report.failed} of {report.calls} grounding calls failed: those facts are unchecked"
            )
            failures = {
                "failed": min(report.failed, report.facts_in),
                "facts": report.facts_in,
                "kinds": dict(report.failures),
            }
        stats = _stats(
            pipeline, graph, documents, routed, extraction, reextracted, len(extraction.facts)
        )
        graph = graph.model_copy(update={"stats": stats})
        keys = manifest_keys(
            config,
            roles=pipeline.roles,
            models=pipeline.clients.models(),
            prompts=pipeline.prompts(),
            ontology=pipeline.ontology,
            documents=documents,
            started_at=started,
            finished_at=datetime.now(UTC),
        )
        files = _outputs(pipeline, graph, keys, validator.refused, extraction)
        write_files(files)
        written = [str(path) for path, _ in files]
        for sink in pipeline.sinks:
            if not isinstance(sink, JsonlSink):
                sink.write(graph)
                written.append(repr(sink))
        return RunResult(
            graph=graph,
            written=written,
            warnings=warnings,
            stats=stats,
            refused=list(validator.refused),
            rejections=list(extraction.rejections),
            manifest=keys,
            failures=failures,
        )
