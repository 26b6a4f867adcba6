"""A dry run: the model calls a run would make, what they are expected to cost and at most, none
made.

Extraction is planned call by call (one per routed chunk for a model extractor, its messages
rendered as they would be sent): ``max_usd`` prices them as the budget reckons them (the prompt
at four characters a token and the whole ``max_tokens`` out), ``usd`` with the output a reply
is expected to give (:mod:`openodke.llm.estimate`). Grounding asks one question per extracted
fact, so it can be planned exactly only when extraction calls no model (``pattern``,
``triples``): those extractors run (they are free) and the grounder plans its calls after the
free checks. Otherwise its calls are expected from the replies' expected size
(``ground_expected``; its most is unknown: "at most one call per fact extracted"). An unpriced
model makes the price unknown (None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from openodke.llm.budget import estimate_usd
from openodke.llm.estimate import expected_usd
from openodke.llm.prices import price_of
from openodke.validate import GroundingPlan

__all__ = ["ExpectedGrounding", "ExtractionPlan", "RunPlan"]

_CHARS_PER_TOKEN = 4


@dataclass
class ExtractionPlan:
    """The extractor's planned calls."""

    calls: int = 0
    model: str | None = None
    prompt: str | None = None
    prompt_tokens: int = 0
    output_tokens: int = 0
    usd: float | None = 0.0
    max_usd: float | None = 0.0

    def add(
        self, messages: list[dict[str, Any]], spec: Any, schema: Any, output_tokens: int = 0
    ) -> None:
        """Count one planned call, expected to give ``output_tokens``."""
        self.calls += 1
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        self.prompt_tokens += math.ceil(chars / _CHARS_PER_TOKEN)
        self.output_tokens += output_tokens
        if price_of(spec.model) is None:
            self.max_usd = self.usd = None
        elif self.max_usd is not None and self.usd is not None:
            self.max_usd += estimate_usd(messages, spec, schema)
            self.usd += expected_usd(messages, spec, schema, output_tokens) or 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "calls": self.calls,
            "model": self.model,
            "prompt": self.prompt,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "usd": _rounded(self.usd),
            "max_usd": _rounded(self.max_usd),
        }


def _rounded(usd: float | None) -> float | None:
    return None if usd is None else round(usd, 6)


@dataclass
class ExpectedGrounding:
    """Grounding calls expected after a model extractor (not countable before it runs)."""

    model: str | None = None
    calls: int = 0
    usd: float | None = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"model": self.model, "calls": self.calls, "usd": _rounded(self.usd)}


@dataclass
class RunPlan:
    """What a dry run found: documents, chunks, and the calls of each model stage."""

    documents: int = 0
    chunks: int = 0
    routed: int = 0
    extract: ExtractionPlan = field(default_factory=ExtractionPlan)
    ground: GroundingPlan | None = None
    ground_expected: ExpectedGrounding | None = None
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

    @property
    def usd(self) -> float | None:
        """What the calls are expected to cost (grounding's expected when not countable); None
        when a model is unpriced."""
        parts: list[float | None] = [self.extract.usd]
        if self.ground is not None:
            parts.append(self.ground.usd)
        elif self.ground_expected is not None:
            parts.append(self.ground_expected.usd)
        if any(part is None for part in parts):
            return None
        return round(sum(part or 0.0 for part in parts), 6)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (``stats["dry_run"]``)."""
        expected = self.ground_expected
        return {
            "documents": self.documents,
            "chunks": self.chunks,
            "routed": self.routed,
            "extract": self.extract.as_dict(),
            "ground": self.ground.as_dict() if self.ground is not None else None,
            "ground_expected": expected.as_dict() if expected is not None else None,
            "facts": self.facts,
            "calls": self.calls,
            "usd": self.usd,
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
            price = (
                "unpriced"
                if e.max_usd is None or e.usd is None
                else f"about ${e.usd:.4f}, at most ${e.max_usd:.4f}"
            )
            lines.append(
                f"  extract  {e.calls} calls to {e.model} ({e.prompt}), "
                f"~{e.prompt_tokens:,} prompt tokens, ~{e.output_tokens:,} out, {price}"
            )
        else:
            lines.append("  extract  no model call")
        if self.ground is not None:
            lines.append(f"  ground   {self.ground.render()}")
        elif self.facts is None:
            expected = self.ground_expected
            about = ""
            if expected is not None:
                price = "unpriced" if expected.usd is None else f"about ${expected.usd:.4f}"
                about = f" (about {expected.calls:,} to {expected.model}, {price})"
            lines.append(
                f"  ground   at most one call per fact extracted{about} (counted after extraction)"
            )
        total = self.calls
        most = self.max_usd
        shown = "unknown" if total is None else f"{total}"
        cost = "at most unknown" if most is None else f"at most ${most:.4f}"
        expected_usd = self.usd
        about = "unpriced" if expected_usd is None else f"about ${expected_usd:.4f}"
        lines.append(f"  total    {shown} calls, {about}, {cost}")
        lines += [f"  • {note}" for note in self.notes]
        lines.append("nothing was called or written")
        return "\n".join(lines)
