"""A dry run: the model calls a run would make and at most what they would cost, none made.

Extraction is planned call by call (one per routed chunk for a model extractor, its messages
priced as the budget reckons them: the prompt at four characters a token and the whole
``max_tokens`` out). Grounding asks one question per extracted fact, so it can be planned exactly
only when extraction calls no model (``pattern``, ``triples``): those extractors run (they are
free) and the grounder plans its calls after the free checks. Otherwise grounding is "at most one
call per fact extracted", not counted. An unpriced model makes the price unknown (None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from openodke.llm.budget import estimate_usd
from openodke.llm.prices import price_of
from openodke.validate import GroundingPlan

__all__ = ["ExtractionPlan", "RunPlan"]

_CHARS_PER_TOKEN = 4


@dataclass
class ExtractionPlan:
    """The extractor's planned calls."""

    calls: int = 0
    model: str | None = None
    prompt: str | None = None
    prompt_tokens: int = 0
    max_usd: float | None = 0.0

    def add(self, messages: list[dict[str, Any]], spec: Any, schema: Any) -> None:
        """Count one planned call."""
        self.calls += 1
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        self.prompt_tokens += math.ceil(chars / _CHARS_PER_TOKEN)
        if price_of(spec.model) is None:
            self.max_usd = None
        elif self.max_usd is not None:
            self.max_usd += estimate_usd(messages, spec, schema)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        usd = None if self.max_usd is None else round(self.max_usd, 6)
        return {
            "calls": self.calls,
            "model": self.model,
            "prompt": self.prompt,
            "prompt_tokens": self.prompt_tokens,
            "max_usd": usd,
        }


@dataclass
class RunPlan:
    """What a dry run found: documents, chunks, and the calls of each model stage."""

    documents: int = 0
    chunks: int = 0
    routed: int = 0
    extract: ExtractionPlan = field(default_factory=ExtractionPlan)
    ground: GroundingPlan | None = None
    facts: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int | None:
        """Every planned call; None when grounding cannot be counted before extraction."""
        if self.ground is None:
            return None if self.facts is None else self.extract.calls
        return self.extract.calls + self.ground.calls

    @property
    def max_usd(self) -> float | None:
        """The most the planned calls cost; None when unpriced or not all counted."""
        if self.extract.max_usd is None:
            return None
        if self.ground is None:
            return self.extract.max_usd if self.facts is not None else None
        if self.ground.max_usd is None:
            return None
        return round(self.extract.max_usd + self.ground.max_usd, 6)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (``stats["dry_run"]``)."""
        return {
            "documents": self.documents,
            "chunks": self.chunks,
            "routed": self.routed,
            "extract": self.extract.as_dict(),
            "ground": self.ground.as_dict() if self.ground is not None else None,
            "facts": self.facts,
            "calls": self.calls,
            "max_usd": self.max_usd,
            "notes": list(self.notes),
        }

    def render(self) -> str:
        """The lines ``odke run --dry-run`` prints."""
        lines = [
            f"dry run: {self.documents} documents, {self.chunks} chunks, "
            f"{self.routed} routed to the extractor"
        ]
        e = self.extract
        if e.calls:
            price = "unpriced" if e.max_usd is None else f"at most ${e.max_usd:.4f}"
            lines.append(
                f"  extract  {e.calls} calls to {e.model} ({e.prompt}), "
                f"~{e.prompt_tokens:,} prompt tokens, {price}"
            )
        else:
            lines.append("  extract  no model call")
        if self.ground is not None:
            lines.append(f"  ground   {self.ground.render()}")
        elif self.facts is None:
            lines.append(
                "  ground   at most one call per fact extracted (counted after extraction)"
            )
        total = self.calls
        most = self.max_usd
        shown = "unknown" if total is None else f"{total}"
        cost = "unknown" if most is None else f"at most ${most:.4f}"
        lines.append(f"  total    {shown} calls, {cost}")
        lines += [f"  • {note}" for note in self.notes]
        lines.append("nothing was called or written")
        return "\n".join(lines)
