"""The ground role's model for ``odke eval pipeline``: one client for the Validator and the judges.

``--validator``, ``--adjudicate`` and ``--lenient`` all ask the ground role's model (the
Validator's grounder, the adjudicator's three groundings, ``fact_equiv@1``). :class:`GroundModel`
builds that one client from a run config (``models.ground``, ``models.replay``, ``cache``,
``budget``, ``calibration``) and the command line (``--cache``, ``--no-cache``,
``--budget-usd``, ``--budget-calls``), checked before any call, and meters each use apart.
:class:`Provenance` gathers what actually ran for the report's ``run`` and ``calibration``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke.eval.judges.cards import judge_line
from openodke.eval.pipeline.model_options import ModelOptions
from openodke.eval.report.build import Usage, usage_of
from openodke.eval.report.models import CalibrationLine, Cost, Latency
from openodke.llm import Budget, CostMeter, LLMClient, ModelRoles, client_for, load_replay
from openodke.llm.base import ModelSpec
from openodke.llm.cost import StageCost
from openodke.run.config import RunConfig

__all__ = ["GroundModel", "ModelOptions", "Provenance"]

_GROUNDER_OPTIONS = ("claim_format", "context", "verdicts", "locate", "widen", "retry")
"""The config grounder's options the adjudicator's LLMGrounder takes as they are."""


class GroundModel:
    """The ground role's client, built from ``config`` (None: the default roles) and ``options``.

    A ``models.replay`` entry for ``ground`` answers from its recorded file (no cache); otherwise
    the live client (cache over budget over HTTP) is built here, so an unknown provider or a
    missing key is a ModelConfigError (exit 2) before any call. ``client`` replaces both (Python
    only: tests). Each use (``validator``, ``adjudicate``, ``lenient``) is metered apart.
    """

    def __init__(
        self,
        config: RunConfig | None,
        options: ModelOptions | None = None,
        *,
        client: LLMClient | None = None,
    ) -> None:
        self.config = config
        self.options = options or ModelOptions()
        self.roles: ModelRoles = config.models.roles if config is not None else ModelRoles()
        self.meter = CostMeter()
        self.replayed = config is not None and "ground" in config.models.replay
        self._inner = client if client is not None else self._build()

    @property
    def spec(self) -> ModelSpec:
        """The ground role's ModelSpec."""
        return self.roles.ground

    @property
    def cards(self) -> tuple[Path, ...]:
        """Extra calibration cards the config names (``calibration:``)."""
        return tuple(self.config.calibration) if self.config is not None else ()

    @property
    def max_workers(self) -> int:
        """Calls at once (``--max-workers``, 8 by default)."""
        return self.options.max_workers or 8

    def _build(self) -> LLMClient:
        config = self.config
        if config is not None and self.replayed:
            return load_replay(config.models.replay["ground"])
        cache: Path | bool | None = False if self.options.no_cache else self.options.cache
        if cache is None and config is not None:
            cache = config.cache
        budget = None
        if self.options.budget_usd is not None or self.options.budget_calls is not None:
            budget = Budget(usd=self.options.budget_usd, calls=self.options.budget_calls)
        elif config is not None and config.budget is not None:
            budget = Budget(usd=config.budget.usd, calls=config.budget.calls)
        return client_for(
            self.spec,
            cache=cache,
            config=config.path if config is not None else None,
            budget=budget,
        )

    def client(self, use: str) -> LLMClient:
        """The client for one use, metered under that name."""
        return self.meter.client(self._inner, stage=use)

    def grounder_options(self) -> dict[str, Any]:
        """The config's ``llm`` grounder options an adjudicating LLMGrounder takes."""
        spec = self.config.stages.grounder if self.config is not None else None
        if spec is None or spec.custom or spec.use != "llm":
            return {}
        return {k: v for k, v in spec.options.items() if k in _GROUNDER_OPTIONS}

    def usage(self, use: str) -> Usage:
        """One use's model calls and time, as a report row's ``cost`` and ``latency``."""
        cost = self.meter.report().stages.get(use)
        if cost is None:
            return Cost(), Latency()
        return usage_of(cost)

    def costs(self) -> dict[str, StageCost]:
        """Each use's calls, tokens and USD so far (cached ones included)."""
        return dict(self.meter.report().stages)

    def calls(self) -> dict[str, int]:
        """Model calls per use so far (cached ones included)."""
        return {use: cost.calls for use, cost in self.meter.report().stages.items()}

    def close(self) -> None:
        """Close the client (its connections and the cache file)."""
        close = getattr(self._inner, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> GroundModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Provenance:
    """What ran, for the report: models by role, prompt ids, claim formats and judges called."""

    models: dict[str, str] = field(default_factory=dict)
    prompts: list[str] = field(default_factory=list)
    claim_formats: dict[str, str] = field(default_factory=dict)
    judges: list[tuple[str, str, str]] = field(default_factory=list)

    def add_judge(
        self, role: str, model: str, prompt: str, claim_format: str | None = None
    ) -> None:
        """One judge called: ``model`` asked ``prompt`` in ``role``."""
        self.models.setdefault(role, model)
        if prompt not in self.prompts:
            self.prompts.append(prompt)
        if claim_format is not None:
            self.claim_formats.setdefault(prompt, claim_format)
        if (role, model, prompt) not in self.judges:
            self.judges.append((role, model, prompt))

    def add_grounder(self, grounder: Any) -> None:
        """The judges a grounder (LLMGrounder, CheckedGrounder) asked, with their formats."""
        formats = dict(getattr(grounder, "claim_formats", {}) or {})
        for judge in list(getattr(grounder, "judges", []) or []):
            self.add_judge(
                judge["role"], judge["model"], judge["prompt"], formats.get(judge["prompt"])
            )

    def add_stats(self, stats: Mapping[str, Any]) -> None:
        """The judges a Validator's graph stats record (``judges``, ``claim_formats``)."""
        formats = dict(stats.get("claim_formats") or {})
        for judge in stats.get("judges") or []:
            self.add_judge(
                judge["role"], judge["model"], judge["prompt"], formats.get(judge["prompt"])
            )

    def calibration(self, cards: Iterable[Path] = ()) -> list[CalibrationLine]:
        """Each judge called, with its card line or ``UNCALIBRATED``."""
        known = list(cards)
        return [judge_line(role, model, prompt, cards=known) for role, model, prompt in self.judges]
