"""``odke validate`` as library calls: read the inputs, build the Validator, stage the outputs.

The command is a thin layer over three functions: :func:`prepare` (the ontology, the documents,
the rows, and a Validator whose client is checked before any call), :func:`run` (validate, or
plan on a dry run) and :func:`output_files` (``-o DIR``: the JSONL sink's four files with the run's
manifest keys, and ``refused.jsonl``, written together or not at all).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openodke import __version__
from openodke.calibration import load_cards
from openodke.documents import load_documents
from openodke.errors import InputError
from openodke.gate import REFUSED_FILE, VerdictGate, refused_lines
from openodke.interop.adapters import read_predictions
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow, is_fact_rows
from openodke.llm import (
    Budget,
    LLMClient,
    ModelRoles,
    cache_location,
    client_for,
    load_replay,
    strip_secrets,
)
from openodke.ontology import Ontology
from openodke.ontology.checks import did_you_mean
from openodke.safeio import decode, iter_lines, parse_json, read_bytes
from openodke.sinks import JsonlSink
from openodke.stages import (
    STAGE_KINDS,
    StageContext,
    TriplesExtractor,
    build_stage,
    load_inputs,
    stage_class,
    stage_spec,
)
from openodke.stages.grounding import ModelGrounder
from openodke.types import Document, Fact, KnowledgeGraph
from openodke.validate.config import ValidateConfig, read_config
from openodke.validate.report import ValidationReport
from openodke.validate.validator import Validator

__all__ = ["ValidateJob", "output_files", "prepare", "run"]

_VALIDATOR_STAGES = ("grounder", "normalizer", "resolver", "corroborator", "scorer", "gate")


@dataclass
class ValidateJob:
    """Everything a validation needs, read and checked before any model call."""

    ontology: Ontology
    documents: list[Document]
    rows: list[Fact | TripleRow]
    validator: Validator
    roles: ModelRoles
    client: Any = None
    config: ValidateConfig | None = None
    sinks: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def close(self) -> None:
        """Close the model client (its HTTP connections and cache)."""
        close = getattr(self.client, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> ValidateJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ontology(path: Path | None, config: ValidateConfig | None) -> Ontology:
    chosen = path if path is not None else (config.ontology if config is not None else None)
    if chosen is None:
        raise InputError("give --ontology FILE (or --config naming one)")
    if path is None and config is not None and not chosen.exists():
        # named by the config: the refusal points at its line, not only at the missing name
        raise config.error(f"ontology: no such file {chosen}", "ontology")
    return Ontology.load(chosen)


def _client(
    config: ValidateConfig | None,
    roles: ModelRoles,
    *,
    cache: Path | None,
    no_cache: bool,
    budget: Budget | None,
) -> LLMClient:
    if config is not None and "ground" in config.replay:
        client: LLMClient = load_replay(config.replay["ground"])  # bypasses the cache
        return client
    setting: Path | bool | None = False if no_cache else cache
    if setting is None and config is not None:
        setting = config.cache
    folder = cache_location(setting, config=config.path if config is not None else None)
    return client_for(roles.ground, cache=folder if folder is not None else False, budget=budget)


def _rows(facts: Path, documents: list[Document], adapter: str) -> list[Fact | TripleRow]:
    if adapter == "triples" and is_fact_rows(facts):
        return list(_fact_rows(facts))
    return list(read_predictions(facts, adapter, DocumentIndex(documents)))


def _fact_rows(path: Path) -> list[Fact]:
    """Fact rows (a sink's ``facts.jsonl``); InputError at ``path:line`` on a bad one."""
    rows: list[Fact] = []
    for number, line in iter_lines(path, what="Fact rows (JSONL)"):
        try:
            rows.append(Fact.model_validate(parse_json(line, path=str(path), line=number)))
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "row"
            raise InputError(f"{where}: {problem['msg']}", path=str(path), line=number) from None
    return rows


def prepare(
    *,
    facts: Path | None,
    texts: Path | None,
    ontology: Path | None = None,
    config: Path | None = None,
    adapter: str = "triples",
    locate: bool = False,
    max_workers: int | None = None,
    cache: Path | None = None,
    no_cache: bool = False,
    budget_usd: float | None = None,
    budget_calls: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    progress: bool | None = None,
) -> ValidateJob:
    """Read and check everything; build the Validator. Raises InputError (exit 2) on any problem,
    ModelConfigError (exit 2) for a model that cannot be called, before any call."""
    settings = read_config(config) if config is not None else None
    onto = _ontology(ontology, settings)
    roles = (settings.roles if settings is not None else ModelRoles()).with_limits(rpm, tpm)
    budget = settings.budget if settings is not None else None
    if budget_usd is not None or budget_calls is not None:
        budget = Budget(usd=budget_usd, calls=budget_calls)
    warnings: list[str] = []
    if texts is not None:
        documents = load_documents(texts)
    elif settings is not None and facts is None and settings.data.get("inputs"):
        inputs = settings.data["inputs"]
        inputs = inputs if isinstance(inputs, list) else [inputs]
        documents, warnings = load_inputs(
            inputs, settings.base_dir, path=str(settings.path), lines=[settings.line("inputs")]
        )
    else:
        raise InputError("give --texts DIR (a folder of texts, or Document JSONL)")
    if settings is not None:
        _check_names(settings)  # a name not built is found before a missing key is
    # --facts is read before the client opens the response cache: bad rows write nothing.
    given = _rows(facts, documents, adapter) if facts is not None else None
    client = _client(settings, roles, cache=cache, no_cache=no_cache, budget=budget)
    context = StageContext(
        ontology=onto,
        client=client,
        roles=roles,
        base_dir=settings.base_dir if settings is not None else None,
        progress=progress,
    )
    stages: dict[str, Any] = {}
    sinks: list[Any] = []
    if given is not None:
        rows = given
    elif settings is not None:
        rows = _config_rows(settings, context)
        stages, sinks = _config_stages(settings, context)
    else:
        raise InputError("give --facts FILE, or --config whose extractor is triples")
    grounder_options: dict[str, Any] = {"locate": locate, "progress": progress}
    if max_workers is not None:
        grounder_options["max_workers"] = max_workers
    if "grounder" not in stages:
        stages["grounder"] = ModelGrounder(onto, client=client, roles=roles, **grounder_options)
    extra_cards = settings.calibration if settings is not None else []
    validator = Validator(
        onto,
        client=client,
        roles=roles,
        inverses=settings.data.get("inverses") if settings is not None else None,
        coverage=bool(settings.data.get("coverage", True)) if settings is not None else True,
        cards=load_cards(extra_cards),
        **stages,
    )
    gate = validator.gate
    if isinstance(gate, VerdictGate) and gate.card is None:
        # The config's verdict gate looks its judge up as odke run's does: in the shipped cards
        # and the config's calibration: files.
        gate.card = validator.judge_card(load_cards(extra_cards))
    return ValidateJob(
        ontology=onto,
        documents=documents,
        rows=rows,
        validator=validator,
        roles=roles,
        client=client,
        config=settings,
        sinks=sinks,
        warnings=warnings,
    )


def _check_names(settings: ValidateConfig) -> None:
    for kind, value in settings.stages.items():
        values = value if kind == "sink" and isinstance(value, list) else [value]
        for item in values:
            try:
                if kind not in STAGE_KINDS:
                    raise InputError(
                        f"stages.{kind}: unknown stage{did_you_mean(kind, STAGE_KINDS)}"
                    )
                stage_class(kind, stage_spec(item, key=f"stages.{kind}")[0])
            except InputError as error:
                line = settings.line("stages", kind)
                raise InputError(error.message, path=str(settings.path), line=line) from None


def _config_rows(settings: ValidateConfig, context: StageContext) -> list[Fact | TripleRow]:
    spec = settings.stages.get("extractor")
    line = settings.line("stages", "extractor")
    extractor = build_stage("extractor", spec, context, path=str(settings.path), line=line)
    if not isinstance(extractor, TriplesExtractor):
        name = spec.get("use") if isinstance(spec, dict) else spec
        raise settings.error(
            f"stages.extractor is {name!r}: without --facts, validate runs a triples extractor",
            "stages",
            "extractor",
        )
    # The rows themselves, with the extractor's options filled in: the Validator pairs them with
    # the documents and counts the ones naming none as unmatched.
    return [
        row.model_copy(
            update={
                "extractor": row.extractor or extractor.extractor,
                "confidence": extractor.confidence if row.confidence is None else row.confidence,
            }
        )
        for row in extractor.rows
    ]


def _config_stages(
    settings: ValidateConfig, context: StageContext
) -> tuple[dict[str, Any], list[Any]]:
    stages: dict[str, Any] = {}
    for kind in _VALIDATOR_STAGES:
        if kind in settings.stages:
            stages[kind] = build_stage(
                kind,
                settings.stages[kind],
                context,
                path=str(settings.path),
                line=settings.line("stages", kind),
            )
    sinks = settings.stages.get("sink") or []
    sinks = sinks if isinstance(sinks, list) else [sinks]
    built = [
        build_stage(
            "sink", s, context, path=str(settings.path), line=settings.line("stages", "sink")
        )
        for s in sinks
    ]
    return stages, built


def run(job: ValidateJob, *, dry_run: bool = False) -> tuple[KnowledgeGraph, ValidationReport]:
    """Validate the job's rows (or plan the calls, on a dry run)."""
    return job.validator.validate(job.rows, job.documents, dry_run=dry_run)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest_keys(job: ValidateJob, graph: KnowledgeGraph) -> dict[str, Any]:
    """What the run adds to the sink's manifest: versions, hashes, models, prompts, times."""
    keys: dict[str, Any] = {"manifest_version": 1}
    if job.config is not None:
        raw = decode(read_bytes(job.config.path, what="a run config"), path=str(job.config.path))
        keys["config_sha256"] = _sha256(raw)
        keys["config"] = strip_secrets(job.config.data)
    keys["models"] = {"ground": {"asked": job.roles.ground.model, "served": None}}
    keys["prompts"] = list(graph.stats.get("prompts", []))
    keys["ontology_fingerprint"] = job.ontology.fingerprint()
    keys["documents_sha256"] = {doc.id: _sha256(doc.text) for doc in job.documents}
    keys["openodke"] = __version__
    keys["started_at"] = job.started_at.isoformat()
    keys["finished_at"] = datetime.now(UTC).isoformat()
    return keys


def output_files(job: ValidateJob, graph: KnowledgeGraph, out: Path) -> list[tuple[Path, str]]:
    """``-o DIR``: facts, entities, links, manifest (with the run's keys) and ``refused.jsonl``."""
    files = JsonlSink(out).files(graph, manifest_keys(job, graph))
    files.insert(-1, (out / REFUSED_FILE, refused_lines(job.validator.refused)))
    return files


def report_json(report: ValidationReport, written: list[str]) -> str:
    """The ``--json`` output: the report and the files written."""
    return json.dumps(
        {"report": report.model_dump(mode="json"), "written": written}, indent=2, ensure_ascii=False
    )
