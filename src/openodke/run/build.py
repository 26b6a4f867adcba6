"""``build(config)``: every stage of a run config built, its model clients checked, nothing called.

Stages come from the stage registry (``openodke.stages.registry``: built-in names, or custom
classes ``package.module:Name`` found through ``pythonpath``), each with its options and what it
needs from the run (the ontology, its role's client, the roles, the config's folder). A stage the
config leaves out is pass-through, except the scorer, which a run fills with ``evidence``. The
``verdict`` gate is given the calibration card of the grounder's judge (decision 2).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke.calibration import CalibrationCard, find_card, load_cards
from openodke.errors import InputError
from openodke.gate import VerdictGate
from openodke.llm import Budget, ModelRoles
from openodke.ontology import Ontology
from openodke.run.clients import RoleClients, make_clients
from openodke.run.config import RunConfig, StageSpec
from openodke.stages import (
    EvidenceScorer,
    PassthroughChunker,
    PassthroughCorroborator,
    PassthroughGate,
    PassthroughGrounder,
    PassthroughNormalizer,
    PassthroughResolver,
    PassthroughRouter,
    StageContext,
    build_stage,
    declares_inverses,
    stage_class,
)

__all__ = ["Pipeline", "RunOptions", "build"]

_ROLE_OF = {"extractor": "extract"}  # every other kind that takes a client grounds


@dataclass(frozen=True)
class RunOptions:
    """What the command line changes about a config: ``--model``, ``--widen``, the cache, ..."""

    model: str | None = None
    model_provider: str | None = None
    widen: bool = False
    cache: Path | None = None
    no_cache: bool = False
    max_workers: int | None = None
    budget_usd: float | None = None
    budget_calls: int | None = None
    allow_failures: float | None = None
    """The share of facts or documents failed model calls may leave unchecked (``--allow-failures``)."""
    rpm: float | None = None
    tpm: float | None = None
    progress: bool | None = False
    meter: bool | None = None
    """Put a CostMeter on every client whatever ``models.meter`` says (None: as the config says)."""
    clients: Mapping[str, Any] | None = None
    """Role → an LLMClient answering that role in place of its replay file or the live client
    (Python only: tests, benchmarks, a client of your own)."""


@dataclass
class Pipeline:
    """A run config's stages, built; ``clients`` answers their model calls."""

    config: RunConfig
    ontology: Ontology
    roles: ModelRoles
    clients: RoleClients
    loaders: list[Any]
    chunker: Any
    router: Any
    extractor: Any
    grounder: Any
    normalizer: Any
    resolver: Any
    corroborator: Any
    scorer: Any
    gate: Any
    sinks: list[Any]
    inverses: bool
    cards: list[CalibrationCard] = field(default_factory=list)
    options: RunOptions = field(default_factory=RunOptions)

    def make_gate(self) -> Any:
        """A new gate as the config names it, with no decisions counted yet (the ablation asks
        the same gate afresh for each row)."""
        context = StageContext(
            ontology=self.ontology, roles=self.roles, base_dir=self.config.base_dir
        )
        return _gate(self.config.stages.gate, context, self.judge(), self.cards, self.config.where)

    def close(self) -> None:
        """Close the model clients."""
        self.clients.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def judge(self) -> tuple[str, str] | None:
        """``(model, prompt)`` of the grounder's model judge, None when it asks no model."""
        inner = getattr(self.grounder, "inner", self.grounder)
        spec, prompt = getattr(inner, "spec", None), getattr(inner, "prompt", None)
        model, key = getattr(spec, "model", None), getattr(prompt, "key", None)
        if isinstance(model, str) and isinstance(key, str):
            return model, key
        return None

    def prompts(self) -> list[str]:
        """The prompt ids the extractor and the grounder send (``id@version``)."""
        found: list[str] = []
        for stage in (self.extractor, self.grounder):
            for key in getattr(stage, "prompts", ()) or ():
                if key not in found:
                    found.append(key)
        return found


def _roles(config: RunConfig, options: RunOptions) -> ModelRoles:
    roles = config.models.roles
    if options.model is not None:
        roles = roles.with_model(options.model, options.model_provider)
    elif options.model_provider is not None:
        roles = roles.with_provider(options.model_provider)
    return roles.with_limits(options.rpm, options.tpm)


def _budget(config: RunConfig, options: RunOptions) -> Budget | None:
    if options.budget_usd is not None or options.budget_calls is not None:
        return Budget(usd=options.budget_usd, calls=options.budget_calls)
    if config.budget is not None:
        return Budget(usd=config.budget.usd, calls=config.budget.calls)
    return None


def _takes_client(kind: str, spec: StageSpec | None, where: str) -> bool:
    if spec is None:
        return False
    if not spec.custom:
        if kind == "extractor":
            return spec.use == "llm" or (
                spec.use == "hybrid" and spec.options.get("llm") is not False
            )
        return kind == "grounder" and spec.use == "llm"
    try:
        target = stage_class(kind, spec.use)
    except InputError as error:
        raise InputError(error.message, path=where, line=spec.line) from None
    if not inspect.isclass(target):
        return False
    try:
        return "client" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False


def _with(spec: StageSpec, **changes: Any) -> StageSpec:
    return spec.model_copy(update={"options": {**spec.options, **changes}})


def _adjusted(kind: str, spec: StageSpec | None, options: RunOptions) -> StageSpec | None:
    """The spec with the command line's ``--widen`` and ``--max-workers`` applied."""
    if spec is None or spec.custom:
        return spec
    if kind == "grounder" and spec.use == "llm":
        if options.widen:
            spec = _with(spec, widen=True)
        if options.max_workers is not None:
            spec = _with(spec, max_workers=options.max_workers)
    if kind == "extractor" and options.max_workers is not None:
        if spec.use == "llm":
            spec = _with(spec, max_workers=options.max_workers)
        elif spec.use == "hybrid" and isinstance(spec.options.get("llm"), dict):
            spec = _with(spec, llm={**spec.options["llm"], "max_workers": options.max_workers})
    return spec


def _gate(
    spec: StageSpec | None,
    context: StageContext,
    judge: tuple[str, str] | None,
    cards: list[CalibrationCard],
    where: str,
) -> Any:
    if spec is None:
        return PassthroughGate()
    if spec.custom or spec.use != "verdict":
        return build_stage("gate", spec.as_config(), context, path=where, line=spec.line)
    card = find_card(cards, *judge) if judge is not None else None
    return VerdictGate(
        refuse_not_found=bool(spec.options.get("refuse_not_found", False)),
        schema=bool(spec.options.get("schema", False)),
        enforce=bool(spec.options.get("enforce", False)),
        card=card,
    )


def _add_pythonpath(config: RunConfig) -> None:
    for folder in reversed(config.pythonpath):
        text = str(folder)
        if text not in sys.path:
            sys.path.insert(0, text)


def build(config: RunConfig, options: RunOptions | None = None) -> Pipeline:
    """Build every stage of ``config`` and check the models it will call (no call is made).

    InputError (exit 2) at ``path:line`` for a stage that cannot be built; ModelConfigError
    (exit 2) for a model that cannot be called (unknown provider, missing key).
    """
    options = options or RunOptions()
    where = config.where
    _add_pythonpath(config)
    ontology = Ontology.load(config.ontology)
    roles = _roles(config, options)
    cache: Path | bool | None = False if options.no_cache else options.cache
    if cache is None:
        cache = config.cache
    clients = make_clients(
        roles,
        replay=config.models.replay,
        meter=config.models.meter if options.meter is None else options.meter,
        cache=cache,
        config=config.path,
        budget=_budget(config, options),
        given=options.clients,
    )
    stages = config.stages
    needed = [
        _ROLE_OF.get(kind, "ground")
        for kind in (
            "extractor",
            "grounder",
            "router",
            "normalizer",
            "resolver",
            "corroborator",
            "scorer",
            "gate",
        )
        if _takes_client(kind, getattr(stages, kind), where)
    ]
    clients.check(sorted(set(needed)))  # every live model checked before any stage is built

    def built(kind: str, spec: StageSpec | None, fallback: Any) -> Any:
        spec = _adjusted(kind, spec, options)
        if spec is None:
            return fallback
        role = _ROLE_OF.get(kind, "ground")
        client = clients.client(role) if _takes_client(kind, spec, where) else None
        context = StageContext(
            ontology=ontology,
            client=client,
            roles=roles,
            base_dir=config.base_dir,
            progress=options.progress,
        )
        return build_stage(kind, spec.as_config(), context, path=where, line=spec.line)

    loaders = [
        build_stage(
            "loader",
            item.loader.as_config(),
            StageContext(base_dir=config.base_dir),
            path=where,
            line=item.loader.line,
        )
        for item in config.inputs
    ]
    grounder = built("grounder", stages.grounder, PassthroughGrounder())
    pipeline = Pipeline(
        config=config,
        ontology=ontology,
        roles=roles,
        clients=clients,
        loaders=loaders,
        chunker=built("chunker", stages.chunker, PassthroughChunker()),
        router=built("router", stages.router, PassthroughRouter()),
        extractor=built("extractor", stages.extractor, None),
        grounder=grounder,
        normalizer=built("normalizer", stages.normalizer, PassthroughNormalizer()),
        resolver=built("resolver", stages.resolver, PassthroughResolver()),
        corroborator=built("corroborator", stages.corroborator, PassthroughCorroborator()),
        scorer=built("scorer", stages.scorer, EvidenceScorer()),
        gate=None,
        sinks=[built("sink", spec, None) for spec in stages.sink],
        inverses=declares_inverses(ontology) if config.inverses is None else config.inverses,
        cards=load_cards(config.calibration),
        options=options,
    )
    pipeline.gate = pipeline.make_gate()
    return pipeline
