"""What a command sent through the providers' batch APIs, as its summaries record it.

``batch_use()`` is called where a run, ``ground`` or ``validate`` summary records its model calls:
under ``--batch`` (or ``batch: true``) it gives the requests the batches answered, the batches
submitted by this command and those collected from an earlier run, the rounds and what they cost;
live, None. The command's last run (the one that defers nothing) builds the summary, so the
engine's counts are complete by then (decision 292).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from openodke.llm.batch.context import active_engine

__all__ = ["BatchUse", "batch_use"]


class BatchUse(BaseModel):
    """The batch side of a command's model calls."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests: int = Field(ge=0, description="Requests the batches answered (good or failed).")
    submitted: list[str] = Field(description="The ids of the batches this command submitted.")
    resumed: list[str] = Field(
        description="The batches an earlier run left on the provider, collected by this one."
    )
    rounds: int = Field(ge=0, description="Rounds of batches (dependent calls make more).")
    cost_usd: float = Field(ge=0, description="What the batches' answers cost, at the batch rate.")


def batch_use() -> BatchUse | None:
    """The running command's batch use, or None when its calls are live."""
    engine = active_engine()
    return None if engine is None else engine.use()
