"""The run config (``odke.yaml`` / ``odke.json``) as models: what ``parse_config`` returns.

Every key of surface.md's Run config has a field here. A :class:`RunConfig` is built only by
:func:`openodke.run.parse_config` (or ``load_config``), which checks every key first and lists every
problem with its line; paths are absolute (resolved against the config's folder) once parsed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.llm import ModelRoles

__all__ = [
    "Budget",
    "ConfigError",
    "InputSpec",
    "ModelsConfig",
    "Reextract",
    "RunConfig",
    "StageSpec",
    "Stages",
]


class ConfigError(InputError):
    """A run config with problems: ``problems`` holds one ``path:line: what is wrong`` per problem.

    The message is the problems one per line, so the CLI prints each on its own line (exit 2).
    """

    def __init__(self, problems: list[InputError]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(p.message for p in self.problems))
        first = self.problems[0] if self.problems else None
        self.path = first.path if first else None
        self.line = first.line if first else None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StageSpec(_Frozen):
    """One stage as the config names it: a built-in name or ``package.module:Name``, its options."""

    use: str = Field(description="A built-in name (sentence, llm, verdict, ...) or module:Name.")
    options: dict[str, Any] = Field(default_factory=dict, description="Options as written.")
    line: int | None = Field(default=None, description="Where the config names it.")

    @property
    def custom(self) -> bool:
        """True for ``package.module:Name`` (or ``path/to/file.py:Name``)."""
        return ":" in self.use

    def as_config(self) -> str | dict[str, Any]:
        """The stage as a config writes it: a bare name, or ``{use: name, ...options}``."""
        return {"use": self.use, **self.options} if self.options else self.use


class InputSpec(_Frozen):
    """One input: a path (absolute once parsed) and the loader that reads it."""

    path: Path
    loader: StageSpec


class Budget(_Frozen):
    """A simple cap: exit 3 when the next call would pass either."""

    usd: float | None = Field(default=None, ge=0, description="Most USD the run may spend.")
    calls: int | None = Field(default=None, ge=0, description="Most model calls the run may make.")


class Reextract(_Frozen):
    """Re-ask narrower windows around the entities no fact links (``reextract: true``)."""

    windows: int = Field(default=3, ge=1, description="Most windows re-asked per document.")


class ModelsConfig(_Frozen):
    """``models``: the roles, recorded answers and the cost meter."""

    roles: ModelRoles = Field(default_factory=ModelRoles, description="extract and ground.")
    given: tuple[str, ...] = Field(default=(), description="The roles the config named.")
    replay: dict[str, Path] = Field(
        default_factory=dict, description="role → recorded answers (a list or a cassette)."
    )
    meter: bool = Field(default=False, description="Put a CostMeter on every client.")


class Stages(_Frozen):
    """``stages``, in pipeline order; a stage left out is None (pass-through)."""

    chunker: StageSpec | None = None
    router: StageSpec | None = None
    extractor: StageSpec
    grounder: StageSpec | None = None
    normalizer: StageSpec | None = None
    resolver: StageSpec | None = None
    corroborator: StageSpec | None = None
    scorer: StageSpec | None = None
    gate: StageSpec | None = None
    sink: tuple[StageSpec, ...] = ()


class RunConfig(_Frozen):
    """A parsed run config. ``raw`` is the mapping as written; ``path`` the file it came from."""

    ontology: Path
    inputs: tuple[InputSpec, ...]
    pythonpath: tuple[Path, ...] = ()
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    stages: Stages
    inverses: bool | None = None
    coverage: bool = True
    batch: bool = Field(
        default=False,
        description="Send the model calls through the providers' batch APIs (as --batch).",
    )
    reextract: Reextract | None = None
    budget: Budget | None = None
    cache: Path | bool | None = Field(
        default=None, description="A folder, False for none, None for .odke-cache/ beside it."
    )
    calibration: tuple[Path, ...] = ()
    base_dir: Path = Field(description="The config's folder: relative paths resolve here.")
    path: Path | None = Field(default=None, description="The config file, when read from one.")
    raw: dict[str, Any] = Field(default_factory=dict, description="The mapping as written.")

    @property
    def where(self) -> str:
        """The config's name for messages: its path, else ``run config``."""
        return str(self.path) if self.path is not None else "run config"
