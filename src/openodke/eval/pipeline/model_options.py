"""What the command line changes about the ground model, apart from the model itself: the CLI
builds it on every run, and only a run asking for ``--validator``, ``--adjudicate`` or
``--lenient`` loads the model's client (:mod:`~openodke.eval.pipeline.judge_client`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ModelOptions"]


@dataclass(frozen=True)
class ModelOptions:
    """What the command line changes about the ground model: cache, budget, workers."""

    cache: Path | None = None
    no_cache: bool = False
    max_workers: int | None = None
    budget_usd: float | None = None
    budget_calls: int | None = None
    progress: bool | None = None
