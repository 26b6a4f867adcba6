"""What ``odke ground`` writes to ``summary.json``: verdict counts, failed calls, failure shapes.

Two failure shapes, each ``{"count", "ids", "examples"}`` (``examples``: the first few, with the
claim, the verdict and the cited text), no fact in both:

- ``too_narrow``: the citation was narrower than the sentences around it and came back
  ``not_found``; or a widened retry (``odke.widen``) got the answer the narrow span could not.
  The spans evaluator's finding, per fact: a citation too narrow for its claim.
- ``unsupported``: every other fact stamped ``contradicted`` or ``not_found``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from openodke.ground.llm import WIDEN
from openodke.ground.locate import view_of
from openodke.ground.prompts import render_span_claim
from openodke.ground.text import sentences_around
from openodke.types import Document, Fact, GroundingVerdict, SpanOrigin

__all__ = ["EXAMPLES", "failure_shapes", "ground_summary"]

EXAMPLES = 3
"""How many examples each failure shape shows."""

_EXCERPT = 300


def _cited(fact: Fact, documents: Mapping[str, Document]) -> tuple[Document, int, int] | None:
    for ev in fact.evidence:
        document = documents.get(ev.doc_id)
        if (
            document is not None
            and ev.span is not None
            and ev.span_origin is SpanOrigin.cited
            and ev.span.end <= len(document.text)
        ):
            return document, ev.span.start, ev.span.end
    return None


def _narrow(fact: Fact, documents: Mapping[str, Document]) -> tuple[str, str] | None:
    """(cited text, its sentences) when the citation is narrower than its sentences."""
    cited = _cited(fact, documents)
    if cited is None:
        return None
    document, start, end = cited
    around = sentences_around(list(view_of(document.text).sentences), start, end)
    if around is None or (around[0] >= start and around[1] <= end):
        return None
    return document.text[start:end], document.text[around[0] : around[1]]


def _excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def failure_shapes(
    facts: Iterable[Fact], documents: Mapping[str, Document], *, examples: int = EXAMPLES
) -> dict[str, dict[str, Any]]:
    """``{"unsupported": ..., "too_narrow": ...}`` (see the module docstring)."""
    shapes: dict[str, dict[str, Any]] = {
        name: {"count": 0, "ids": [], "examples": []} for name in ("unsupported", "too_narrow")
    }
    refused = (GroundingVerdict.not_found, GroundingVerdict.contradicted)
    for fact in facts:
        # The text views behind _narrow cost ~0.3 ms a fact: only a not_found fact needs one to
        # be sorted, and other facts only for an example.
        widened = WIDEN in fact.qualifiers
        narrow: tuple[str, str] | None = None
        looked = False
        if not widened and fact.verdict is GroundingVerdict.not_found:
            narrow, looked = _narrow(fact, documents), True
            name = "too_narrow" if narrow is not None else "unsupported"
        elif widened and fact.verdict in (
            GroundingVerdict.supported,
            GroundingVerdict.contradicted,
        ):
            name = "too_narrow"
        elif fact.verdict in refused:
            name = "unsupported"
        else:
            continue
        shape = shapes[name]
        shape["count"] += 1
        shape["ids"].append(fact.id)
        if len(shape["examples"]) < examples:
            if not looked:
                narrow = _narrow(fact, documents)
            example: dict[str, Any] = {
                "id": fact.id,
                "claim": render_span_claim(fact),
                "verdict": fact.verdict.value,
            }
            if narrow is not None:
                example["cited"] = _excerpt(narrow[0])
                example["sentence"] = _excerpt(narrow[1])
            shape["examples"].append(example)
    return shapes


def _batch() -> dict[str, Any] | None:
    from openodke.llm.batch.use import batch_use

    use = batch_use()
    return None if use is None else use.model_dump(mode="json")


def ground_summary(
    facts: list[Fact],
    documents: Mapping[str, Document],
    stats: Mapping[str, Any],
    *,
    examples: int = EXAMPLES,
) -> dict[str, Any]:
    """The summary: ``facts``, ``verdicts``, call counts (``calls``, ``cached``, ``failed``,
    ``failures`` by kind, ``tokens``, ``cost_usd``, ``batch``: what went through the providers'
    batch APIs, null when live), then the failure shapes ``unsupported`` and ``too_narrow``."""
    verdicts = {v.value: 0 for v in GroundingVerdict}
    for fact in facts:
        verdicts[fact.verdict.value] += 1
    return {
        "facts": len(facts),
        "verdicts": verdicts,
        "calls": stats.get("calls", 0),
        "cached": stats.get("cached", 0),
        "failed": stats.get("failed", 0),
        "failures": dict(stats.get("failures") or {}),
        "tokens": stats.get("tokens", 0),
        "cost_usd": stats.get("cost_usd"),
        "batch": _batch(),
        "located": stats.get("located", 0),
        "widened": stats.get("widened", 0),
        "no_document": stats.get("no_document", 0),
        **failure_shapes(facts, documents, examples=examples),
    }
