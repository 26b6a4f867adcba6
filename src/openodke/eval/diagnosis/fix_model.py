"""A fix as the report holds it (:class:`Fix`, :class:`FixRecall`): in a module of its own, so
the report's models take it without importing what works fixes out (``fixes``, which reads a
reference report through the report's own reader)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Fix", "FixRecall"]


class FixRecall(BaseModel):
    """A fix's expected recall gain (fractions of recall) and how it was reckoned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expected: float | None = Field(description="The expected gain; None when it cannot say.")
    ceiling: float | None = Field(description="The gain if every miss were found.")
    exact: bool = Field(description="True when the fix was replayed, not estimated from a rate.")
    basis: str = Field(description="How expected was reckoned, in words and numbers.")
    reference: float | None = Field(
        default=None, description="The gain at another system's rate (--reference)."
    )
    precision: float | None = Field(
        default=None, description="The precision change, where the fix replays."
    )


class Fix(BaseModel):
    """What should change: one fix, the misses it targets, its knob and its expected gain."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    rank: int = Field(description="1 = the largest expected recall gain.")
    buckets: list[str]
    misses: int | None = Field(description="Misses in the fix's buckets.")
    action: str
    knob: str
    recall: FixRecall
    detail: list[str] = Field(
        default_factory=list, description="The largest groups of its misses: 'group: count'."
    )
    record: dict[str, Any] | None = Field(
        default=None, description="What the track record measured for this fix before, or null."
    )
