"""Runs: the run config (``odke.yaml``), building its stages, and running them end to end."""

from openodke.run.build import Pipeline, RunOptions, build
from openodke.run.config import (
    Budget,
    ConfigError,
    InputSpec,
    ModelsConfig,
    Reextract,
    RunConfig,
    Stages,
    StageSpec,
)
from openodke.run.execute import REJECTIONS_FILE, execute, make_validator, validate_facts
from openodke.run.manifest import check_manifest, config_from_manifest, read_manifest
from openodke.run.parse import TOP_KEYS, load_config, parse_config
from openodke.run.plan import RunPlan
from openodke.run.result import RunResult

__all__ = [
    "REJECTIONS_FILE",
    "TOP_KEYS",
    "Budget",
    "ConfigError",
    "InputSpec",
    "ModelsConfig",
    "Pipeline",
    "Reextract",
    "RunConfig",
    "RunOptions",
    "RunPlan",
    "RunResult",
    "StageSpec",
    "Stages",
    "build",
    "check_manifest",
    "config_from_manifest",
    "execute",
    "load_config",
    "make_validator",
    "parse_config",
    "read_manifest",
    "validate_facts",
]
