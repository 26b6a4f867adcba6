"""What a dry run expects calls to cost: the real prompts, and output sizes measured on answers.

The budget reserves a call's worst case (its whole ``max_tokens`` out, decision 151); a dry run's
estimate is what the calls are expected to cost, so it counts the output a call usually gives:

- an extraction reply: ``EXTRACT_OUTPUT_PER_TEXT_TOKEN`` tokens per token of the text it reads
  (never more than ``max_tokens``). Measured on the recorded answers of the bundled sets (replies
  written from the gold, every fact quoting its sentence): 3.9 on Text2KGBench's movie set (840
  sentences), 8.0 on Re-DocRED (30 test documents); 5.6 is their geometric mean.
- the facts a reply states: one per ``TOKENS_PER_FACT`` tokens of it (265 characters a fact on
  both sets: 269 and 259), each one grounding question when the grounder calls a model: its
  prompt (the grounder's own, rendered) plus about a fact's words, and a verdict out.
- a verdict: ``VERDICT_TOKENS`` (``{"verdict": "not_found"}``).

Tokens are counted as everywhere else: four characters a token. DECISIONS #223.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from openodke.llm.base import Message, ModelSpec
from openodke.llm.budget import estimate_tokens, prompt_tokens_estimate
from openodke.llm.prices import price_of

__all__ = [
    "EXTRACT_OUTPUT_PER_TEXT_TOKEN",
    "TOKENS_PER_FACT",
    "VERDICT_TOKENS",
    "expected_facts",
    "expected_usd",
    "extraction_output",
]

EXTRACT_OUTPUT_PER_TEXT_TOKEN = 5.6
TOKENS_PER_FACT = 66
VERDICT_TOKENS = estimate_tokens('{"verdict": "not_found"}')


def extraction_output(text: str, spec: ModelSpec) -> int:
    """The output tokens an extraction call reading ``text`` is expected to give."""
    expected = math.ceil(EXTRACT_OUTPUT_PER_TEXT_TOKEN * estimate_tokens(text))
    return min(expected, spec.max_tokens) if spec.max_tokens else expected


def expected_facts(output_tokens: int) -> int:
    """The facts a reply of ``output_tokens`` tokens is expected to state."""
    return math.ceil(output_tokens / TOKENS_PER_FACT)


def expected_usd(
    messages: Sequence[Message],
    spec: ModelSpec,
    schema: Mapping[str, Any] | None,
    output_tokens: int,
    *,
    extra_prompt_tokens: int = 0,
    batch: bool | None = None,
) -> float | None:
    """The expected USD of one call: its prompt, ``extra_prompt_tokens`` more, and
    ``output_tokens`` out (at most ``max_tokens``); None for an unpriced model. ``batch`` None:
    at the batch rate when the command runs in batch mode (``--batch``)."""
    price = price_of(spec.model)
    if price is None:
        return None
    if batch is None:
        from openodke.llm.batch.context import active_engine

        batch = active_engine() is not None
    if spec.max_tokens:
        output_tokens = min(output_tokens, spec.max_tokens)
    prompt = prompt_tokens_estimate(messages, schema) + extra_prompt_tokens
    return price.usd(prompt, output_tokens, batch=batch)
