"""What ``odke ground`` takes from a run config, and the flags that override it.

The config is read only for what grounding needs (as ``odke validate --facts`` reads it only for
its models): ``models`` (roles, with ``replay: {role: file}`` and ``meter`` beside them; a
top-level ``replay`` is read too), ``cache``, ``calibration``, ``budget``, and
``stages.grounder`` (``span``, or ``llm`` with its options). Other keys are left to ``odke run``.
Relative paths resolve against the config's folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openodke.errors import InputError
from openodke.llm import Budget, ModelRoles, cache_location
from openodke.llm.prices import add_prices, parse_prices
from openodke.ontology import did_you_mean
from openodke.safeio import read_json, read_yaml

__all__ = ["GROUNDER_OPTIONS", "GroundSettings", "read_settings"]

GROUNDER_OPTIONS = (
    "max_workers",
    "retry",
    "context",
    "verdicts",
    "claim_format",
    "locate",
    "widen",
)
"""The ``llm`` grounder's options in ``stages.grounder``."""


@dataclass(frozen=True)
class GroundSettings:
    """Grounding's settings: the models, where answers come from, the cache, cards and budget."""

    roles: ModelRoles = field(default_factory=ModelRoles)
    replay: Path | None = None
    cache: Path | None = None
    calibration: tuple[Path, ...] = ()
    budget_usd: float | None = None
    budget_calls: int | None = None
    use: str = "llm"
    options: dict[str, Any] = field(default_factory=dict)
    config: Path | None = None
    batch: bool = False
    """The config's ``batch: true``: the calls go through the provider's batch API."""

    def with_flags(
        self,
        *,
        model: str | None = None,
        model_provider: str | None = None,
        cache: Path | None = None,
        no_cache: bool = False,
        budget_usd: float | None = None,
        budget_calls: int | None = None,
        rpm: float | None = None,
        tpm: float | None = None,
    ) -> GroundSettings:
        """These settings with the command line's flags put over them."""
        roles = self.roles
        if model is not None:
            roles = roles.with_model(model, model_provider)
        elif model_provider is not None:
            roles = roles.with_provider(model_provider)
        roles = roles.with_limits(rpm, tpm)
        where = self.cache
        if no_cache:
            where = None
        elif cache is not None:
            where = cache
        return GroundSettings(
            roles=roles,
            replay=self.replay,
            cache=where,
            calibration=self.calibration,
            budget_usd=self.budget_usd if budget_usd is None else budget_usd,
            budget_calls=self.budget_calls if budget_calls is None else budget_calls,
            use=self.use,
            options=dict(self.options),
            config=self.config,
            batch=self.batch,
        )

    def budget(self) -> Budget | None:
        """The budget, or None when neither cap is set."""
        if self.budget_usd is None and self.budget_calls is None:
            return None
        return Budget(usd=self.budget_usd, calls=self.budget_calls)


def _load(path: Path) -> Any:
    if path.suffix.lower() in (".yaml", ".yml"):
        return read_yaml(path, what="a run config")
    return read_json(path, what="a run config")


def _mapping(value: Any, where: str, path: Path) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected a mapping, got {type(value).__name__}", path=str(path))
    return dict(value)


def _relative(base: Path, value: Any, where: str, path: Path, *, read: bool = False) -> Path:
    """``value`` resolved against the config's folder; with ``read``, a file that is missing
    is refused naming the config and the key that names it."""
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: expected a path", path=str(path))
    found = Path(value)
    found = found if found.is_absolute() else base / found
    if read:
        try:
            os.stat(found)
        except FileNotFoundError:
            raise InputError(f"{where}: {value}: no such file", path=str(path)) from None
        except OSError:
            pass  # refused by its reader, which says why
    return found


def _grounder(stages: dict[str, Any], path: Path) -> tuple[str, dict[str, Any]]:
    raw = stages.get("grounder", "llm")
    if isinstance(raw, str):
        return raw, {}
    options = _mapping(raw, "stages.grounder", path)
    use = str(options.pop("use", "llm"))
    if use == "llm":
        unknown = [key for key in options if key not in GROUNDER_OPTIONS]
        if unknown:
            hint = did_you_mean(unknown[0], GROUNDER_OPTIONS)
            raise InputError(f"stages.grounder.{unknown[0]}: unknown option{hint}", path=str(path))
    return use, options


def read_settings(config: str | Path | None) -> GroundSettings:
    """The grounding settings a run config gives (defaults when ``config`` is None)."""
    if config is None:
        return GroundSettings(cache=cache_location(None))
    path = Path(config)
    data = _mapping(_load(path), "config", path)
    base = path.parent
    models = _mapping(data.get("models"), "models", path)
    replay_map = _mapping(models.pop("replay", None) or data.get("replay"), "replay", path)
    models.pop("meter", None)
    try:
        roles = ModelRoles.parse(models)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"models.{where}: {first['msg']}", path=str(path)) from None
    except InputError as error:
        if error.path is not None:
            raise
        raise InputError(error.message, path=str(path)) from None  # a role or model it names
    replay = replay_map.get("ground")
    cache_value = data.get("cache")
    if cache_value is False:
        cache = None
    elif cache_value is None:
        cache = cache_location(None, config=path)
    else:
        cache = _relative(base, cache_value, "cache", path)
    calibration = data.get("calibration") or []
    if not isinstance(calibration, list):
        raise InputError("calibration: expected a list of card files or folders", path=str(path))
    budget = _mapping(data.get("budget"), "budget", path)
    try:
        add_prices(parse_prices(data.get("prices")), layer="config")
    except InputError as error:
        raise InputError(error.message, path=str(path)) from None
    use, options = _grounder(_mapping(data.get("stages"), "stages", path), path)
    return GroundSettings(
        roles=roles,
        replay=_relative(base, replay, "replay.ground", path, read=True)
        if replay is not None
        else None,
        cache=cache,
        calibration=tuple(_relative(base, p, "calibration", path) for p in calibration),
        budget_usd=budget.get("usd"),
        budget_calls=budget.get("calls"),
        use=use,
        options=options,
        config=path,
        batch=data.get("batch") is True,
    )
