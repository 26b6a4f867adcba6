"""The providers' batch engines (OpenAI's Batch API, Anthropic's Message Batches) behind ``--batch``.

``run_batched(job, BatchEngine(...))`` runs a command's job with its model calls deferred into
batches, submitted, polled, resumed after a crash and collected into the response cache (see
:mod:`openodke.llm.batch.engine`). Light to import: the engine loads when first named.
"""

from __future__ import annotations

from typing import Any

from openodke.llm.batch.context import BatchPending, active_engine

__all__ = ["BatchEngine", "BatchPending", "active_engine", "poll_seconds", "run_batched"]


def __getattr__(name: str) -> Any:
    if name in ("BatchEngine", "run_batched", "poll_seconds"):
        from openodke.llm.batch import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
