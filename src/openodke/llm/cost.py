"""What a run's model calls cost: calls, tokens, USD and latency, by stage.

``CostMeter.client(inner, stage=...)`` wraps a client and records every answer. A cached answer is
a call that cost 0.0 and spent no tokens; a failed call is counted and costs nothing known; an
answered call with no price (unpriced model, recorded or scripted answer) makes ``cost_usd`` None,
never an invented number, while ``priced_usd`` keeps the sum of the priced calls.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.llm.base import LLMClient, LLMResponse, Message, ModelSpec, close_inner

__all__ = [
    "CostComparison",
    "CostMeter",
    "CostReport",
    "CostRow",
    "MeteredClient",
    "StageCost",
    "compare_costs",
    "cost_text",
    "paid",
    "stage_cost_text",
]

_SCALED = (
    "calls",
    "cached",
    "failed",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "priced_usd",
    "latency_s",
)


def paid(response: LLMResponse) -> bool:
    """Whether ``response`` was paid for: a live answer, or a failed one that spent tokens (an
    answer that could not be used, asked twice: both calls were paid; DECISIONS #224). A cached
    answer is free; a call that got no answer spent nothing known."""
    if response.cached:
        return False
    return response.error is None or bool(response.prompt_tokens or response.completion_tokens)


class StageCost(BaseModel):
    """The calls of one stage (or of the whole run)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: int = Field(default=0, description="Every call, cached and failed included.")
    cached: int = Field(default=0, description="Calls answered from the response cache.")
    failed: int = Field(default=0, description="Calls that ended in an error after retries.")
    unpriced: int = Field(default=0, description="Paid live calls with no price.")
    estimated: int = Field(
        default=0,
        description="Answered live calls whose tokens (and so cost) are estimated: the server "
        "reported no usage.",
    )
    prompt_tokens: int = Field(
        default=0, description="Input tokens spent (live calls, failed answers included)."
    )
    completion_tokens: int = Field(
        default=0, description="Output tokens spent (live calls, failed answers included)."
    )
    cost_usd: float | None = Field(
        default=0.0, description="USD spent; null when any paid live call was unpriced."
    )
    priced_usd: float = Field(default=0.0, description="USD of the priced calls alone.")
    latency_s: float = Field(default=0.0, description="Seconds summed over calls.")

    def add(self, response: LLMResponse) -> StageCost:
        """This tally with one more call."""
        live = paid(response)
        unpriced = live and response.cost_usd is None
        priced = 0.0 if response.cached else (response.cost_usd or 0.0)
        total = None if (self.cost_usd is None or unpriced) else self.cost_usd + priced
        return StageCost(
            calls=self.calls + 1,
            cached=self.cached + int(response.cached),
            failed=self.failed + int(response.error is not None),
            unpriced=self.unpriced + int(unpriced),
            estimated=self.estimated + int(live and response.tokens_estimated),
            prompt_tokens=self.prompt_tokens + ((response.prompt_tokens or 0) if live else 0),
            completion_tokens=self.completion_tokens
            + ((response.completion_tokens or 0) if live else 0),
            cost_usd=total,
            priced_usd=self.priced_usd + priced,
            latency_s=self.latency_s + response.latency_s,
        )

    def merge(self, other: StageCost) -> StageCost:
        """The two tallies together."""
        both = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )
        return StageCost(
            calls=self.calls + other.calls,
            cached=self.cached + other.cached,
            failed=self.failed + other.failed,
            unpriced=self.unpriced + other.unpriced,
            estimated=self.estimated + other.estimated,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=both,
            priced_usd=self.priced_usd + other.priced_usd,
            latency_s=self.latency_s + other.latency_s,
        )


def cost_text(
    calls: int,
    cached: int,
    tokens: int,
    usd: float | None,
    *,
    priced_usd: float = 0.0,
    unpriced: int = 0,
    failed: int = 0,
    estimated: int = 0,
) -> str:
    """``12 calls (4 cached), 3,400 tokens, $0.0021``: one line of what calls cost."""
    parts = [f"{cached:,} cached"] if cached else []
    if failed:
        parts.append(f"{failed:,} failed")
    what = f"{calls:,} calls" + (f" ({', '.join(parts)})" if parts else "")
    if usd is not None:
        money = f"${usd:.4f}"
    elif unpriced and priced_usd:
        money = f"${priced_usd:.4f} priced + {unpriced:,} unpriced calls"
    else:
        money = "unpriced"
    text = f"{what}, {tokens:,} tokens, {money}"
    if estimated:
        text += f" (tokens of {estimated:,} calls estimated: no usage reported)"
    return text


def stage_cost_text(cost: StageCost) -> str:
    """:func:`cost_text` of one stage's tally."""
    return cost_text(
        cost.calls,
        cost.cached,
        cost.prompt_tokens + cost.completion_tokens,
        cost.cost_usd,
        priced_usd=cost.priced_usd,
        unpriced=cost.unpriced,
        failed=cost.failed,
        estimated=cost.estimated,
    )


class CostReport(BaseModel):
    """A run's cost by stage and in total."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    documents: int | None = Field(default=None, description="Documents the run read, if given.")
    stages: dict[str, StageCost] = Field(default_factory=dict, description="By stage name.")
    total: StageCost = Field(default_factory=StageCost, description="Every stage together.")

    def per_1k_documents(self) -> dict[str, dict[str, float | None]]:
        """Each stage's and the total's counts scaled to 1,000 documents (``"total"`` last)."""
        if not self.documents:
            raise InputError("per_1k_documents needs report(documents=N) with N > 0")
        scale = 1000 / self.documents
        rows = {**self.stages, "total": self.total}
        return {
            name: {
                field: None if getattr(cost, field) is None else getattr(cost, field) * scale
                for field in _SCALED
            }
            for name, cost in rows.items()
        }


class MeteredClient:
    """A client whose every answer is recorded by a CostMeter under one stage."""

    def __init__(self, inner: LLMClient, meter: CostMeter, stage: str) -> None:
        self.inner = inner
        self.meter = meter
        self.stage = stage
        self.cacheable = getattr(inner, "cacheable", True)

    def __repr__(self) -> str:
        return f"MeteredClient({self.inner!r}, stage={self.stage!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The inner client's answer, recorded."""
        response = self.inner.complete(messages, spec, schema)
        self.meter.record(self.stage, response)
        return response

    def close(self) -> None:
        """Close the inner client."""
        close_inner(self.inner)


class CostMeter:
    """Records each call's tokens, ``cost_usd`` and latency by stage; thread-safe."""

    def __init__(self) -> None:
        self._stages: dict[str, StageCost] = {}
        self._lock = threading.Lock()

    def client(self, inner: LLMClient, stage: str = "default") -> MeteredClient:
        """``inner`` with its calls recorded under ``stage``."""
        return MeteredClient(inner, self, stage)

    def record(self, stage: str, response: LLMResponse) -> None:
        """Count one answer under ``stage``."""
        with self._lock:
            self._stages[stage] = self._stages.get(stage, StageCost()).add(response)

    def report(self, documents: int | None = None) -> CostReport:
        """The tallies so far; ``documents`` lets ``per_1k_documents`` scale them."""
        with self._lock:
            stages = dict(sorted(self._stages.items()))
        total = StageCost()
        for cost in stages.values():
            total = total.merge(cost)
        return CostReport(documents=documents, stages=stages, total=total)


class CostRow(BaseModel):
    """One run in a cost comparison."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    documents: int | None
    calls: int
    cached: int
    failed: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    priced_usd: float
    latency_s: float
    usd_per_1k_documents: float | None = Field(description="Null without documents or a price.")
    calls_per_1k_documents: float | None = Field(description="Null without documents.")
    cost_ratio: float | None = Field(
        description="cost_usd over the first run's; null when either is null or the first is 0."
    )


class CostComparison(BaseModel):
    """Runs side by side, in the order given; the first is the reference for ``cost_ratio``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rows: list[CostRow]

    def render(self) -> str:
        """A plain-text table."""
        head = f"{'run':<16} {'calls':>7} {'cached':>7} {'failed':>6} {'tokens':>10} {'USD':>10} {'USD/1k docs':>12} {'ratio':>6}"
        lines = [head]
        for row in self.rows:
            usd = "n/a" if row.cost_usd is None else f"{row.cost_usd:.4f}"
            per = "n/a" if row.usd_per_1k_documents is None else f"{row.usd_per_1k_documents:.4f}"
            ratio = "n/a" if row.cost_ratio is None else f"{row.cost_ratio:.2f}"
            tokens = row.prompt_tokens + row.completion_tokens
            lines.append(
                f"{row.name:<16} {row.calls:>7} {row.cached:>7} {row.failed:>6} {tokens:>10} "
                f"{usd:>10} {per:>12} {ratio:>6}"
            )
        return "\n".join(lines)


def compare_costs(reports: Mapping[str, CostReport]) -> CostComparison:
    """Set runs' cost reports side by side (``{"hybrid": a, "model-only": b}``)."""
    rows: list[CostRow] = []
    first: float | None = None
    for index, (name, report) in enumerate(reports.items()):
        total = report.total
        scale = 1000 / report.documents if report.documents else None
        if index == 0:
            first = total.cost_usd
        ratio = total.cost_usd / first if total.cost_usd is not None and first else None
        rows.append(
            CostRow(
                name=name,
                documents=report.documents,
                calls=total.calls,
                cached=total.cached,
                failed=total.failed,
                prompt_tokens=total.prompt_tokens,
                completion_tokens=total.completion_tokens,
                cost_usd=total.cost_usd,
                priced_usd=total.priced_usd,
                latency_s=total.latency_s,
                usd_per_1k_documents=None
                if scale is None or total.cost_usd is None
                else total.cost_usd * scale,
                calls_per_1k_documents=None if scale is None else total.calls * scale,
                cost_ratio=ratio,
            )
        )
    return CostComparison(rows=rows)
