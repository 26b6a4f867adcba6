"""The parts of a run config ``odke validate --config`` reads, each problem at ``path:line``.

With ``--facts`` only ``models`` (and ``replay``, ``meter``, ``cache``, ``budget``,
``calibration``) matter; without, the config also supplies the ontology, the inputs and its
stages, and its ``triples`` extractor supplies the facts. Every top-level key is checked against
the run config's keys (an unknown one is an error with a did-you-mean; ``bootstrap`` is not
built); the full run-config check is ``odke run``'s.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from openodke.errors import InputError
from openodke.llm import Budget, ModelRoles
from openodke.llm.prices import add_prices, parse_prices
from openodke.ontology.checks import did_you_mean
from openodke.safeio import read_yaml

__all__ = ["KEYS", "ValidateConfig", "read_config"]

KEYS = (
    "ontology",
    "inputs",
    "pythonpath",
    "models",
    "stages",
    "inverses",
    "coverage",
    "reextract",
    "budget",
    "prices",
    "cache",
    "calibration",
    "batch",
)
"""The run config's top-level keys."""

_NOT_BUILT = ("bootstrap",)


@dataclass
class ValidateConfig:
    """What ``odke validate`` takes from a run config; paths resolved against its folder."""

    path: Path
    data: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)
    roles: ModelRoles = field(default_factory=ModelRoles)
    replay: dict[str, Path] = field(default_factory=dict)
    meter: bool = False

    @property
    def base_dir(self) -> Path:
        """The config's folder: relative paths in it are relative to this."""
        return self.path.parent

    def line(self, *keys: str) -> int | None:
        """The line a dotted key starts on (the nearest enclosing key's when it has none)."""
        for end in range(len(keys), 0, -1):
            found = self.lines.get(".".join(keys[:end]))
            if found is not None:
                return found
        return None

    def error(self, message: str, *keys: str) -> InputError:
        """An InputError at this config's line for ``keys``."""
        return InputError(message, path=str(self.path), line=self.line(*keys))

    def resolve(self, value: str | Path) -> Path:
        """A path from the config, resolved against its folder."""
        path = Path(value)
        return path if path.is_absolute() else self.base_dir / path

    @property
    def ontology(self) -> Path | None:
        """The ontology file, when the config names one."""
        value = self.data.get("ontology")
        return self.resolve(value) if isinstance(value, str) else None

    @property
    def stages(self) -> dict[str, Any]:
        """The ``stages`` mapping ({} when absent)."""
        value = self.data.get("stages") or {}
        if not isinstance(value, Mapping):
            raise self.error("stages: expected a mapping of stage keys", "stages")
        return dict(value)

    @property
    def cache(self) -> Path | bool | None:
        """``cache:`` as written: a path (resolved), false, or None when unset."""
        value = self.data.get("cache")
        if value is None or isinstance(value, bool):
            return value
        return self.resolve(str(value))

    @property
    def budget(self) -> Budget | None:
        """``budget: {usd, calls}``, or None."""
        value = self.data.get("budget")
        if value is None:
            return None
        if not isinstance(value, Mapping) or set(value) - {"usd", "calls"}:
            raise self.error("budget: expected {usd: X, calls: N}", "budget")
        return Budget(usd=value.get("usd"), calls=value.get("calls"))

    @property
    def calibration(self) -> list[Path]:
        """Card files or folders the config adds."""
        value = self.data.get("calibration") or []
        values = [value] if isinstance(value, str) else list(value)
        return [self.resolve(str(v)) for v in values]


def _lines(node: Any, prefix: str, out: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                name = f"{prefix}.{key.value}" if prefix else str(key.value)
                out[name] = key.start_mark.line + 1
                _lines(value, name, out)


def read_config(path: str | Path) -> ValidateConfig:
    """Read a YAML or JSON run config; InputError at ``path:line`` for what ``validate`` needs."""
    where = Path(path)
    data, root = read_yaml(where, what="a run config", node=True)
    if not isinstance(data, dict):
        raise InputError("expected a mapping of run config keys", path=str(where))
    lines: dict[str, int] = {}
    _lines(root, "", lines)
    config = ValidateConfig(path=where, data=data, lines=lines)
    for key in data:
        if key in _NOT_BUILT:
            raise config.error(f"{key} is not built", key)
        if key not in KEYS:
            raise config.error(f"{key}: unknown key{did_you_mean(str(key), KEYS)}", key)
    try:
        add_prices(parse_prices(data.get("prices")), layer="config")
    except InputError as error:
        raise config.error(error.message, "prices") from None
    models = data.get("models") or {}
    if not isinstance(models, Mapping):
        raise config.error("models: expected a mapping of roles", "models")
    roles = {k: v for k, v in models.items() if k not in {"replay", "meter"}}
    if "infer" in roles:
        raise config.error("infer is not built", "models", "infer")
    try:
        config.roles = ModelRoles.parse(roles)
    except InputError as error:
        raise config.error(error.message, "models") from None
    except ValidationError as error:
        problem = error.errors()[0]
        field_path = ".".join(str(part) for part in problem["loc"])
        message = problem["msg"].removeprefix("Value error, ")
        shown = f"{field_path}: {message}" if field_path else message
        raise config.error(f"models: {shown}", "models") from None
    replay = models.get("replay") or {}
    if not isinstance(replay, Mapping):
        raise config.error("models.replay: expected {role: file}", "models", "replay")
    config.replay = {str(role): config.resolve(str(file)) for role, file in replay.items()}
    for role, file in config.replay.items():
        if not os.path.lexists(file):
            raise config.error(f"models.replay.{role}: no such file {file}", "models", "replay")
    config.meter = bool(models.get("meter", False))
    return config
