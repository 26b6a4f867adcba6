"""LLMGrounder: one model question per fact, in the span or the paper claim format.

The passage shown is, in order: the whole document with ``context="document"`` (always in the
paper format); else the first span of the fact's evidence in this document that is not a
``context`` span; else, with ``locate=True``, the window the span locator finds (the evidence is
updated and marked ``located``); else the whole document. ``widen=True`` asks once more, against
the whole sentences around it, when a span narrower than its sentences comes back ``not_found``,
and stamps ``qualifiers["odke.widen"]`` (``{"span": [start, end], "was": "not_found"}``).

A call that fails (after the client's retries) or whose answer cannot be read leaves the fact
``unchecked`` and is counted in ``stats["failed"]``; it never raises. Only a model that cannot be
called at all (an unknown provider, a missing key: ModelConfigError, exit 2) is raised, when the
grounder builds its own client, before any call; a run stop (RunStop: a budget stop, exit 3, or a
provider that refuses the key or cannot be reached, exit 1) passes through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openodke.errors import ModelConfigError, RunStop
from openodke.ground.answers import read_answer
from openodke.ground.locate import locate as locate_window
from openodke.ground.locate import view_of
from openodke.ground.prompts import (
    PAPER,
    SPAN,
    ClaimFormat,
    Prompt,
    render_paper_claim,
    render_span_claim,
)
from openodke.ground.stats import GroundingStats
from openodke.ground.text import sentences_around
from openodke.llm import (
    LLMClient,
    LLMResponse,
    ModelRoles,
    ModelSpec,
    ResponseStore,
    RetryPolicy,
    client_for,
    map_calls,
)
from openodke.llm.base import GROUND_MAX_TOKENS
from openodke.types import Document, Evidence, Fact, GroundingVerdict, Span, SpanOrigin

__all__ = ["DEFAULT_MAX_WORKERS", "LLMGrounder", "PlannedCall", "WIDEN"]

DEFAULT_MAX_WORKERS = 8
WIDEN = "odke.widen"
"""The qualifier a widened retry stamps."""


@dataclass(frozen=True)
class PlannedCall:
    """One model call a grounder would make: for a dry run, before any is made."""

    fact_id: str
    model: str
    prompt: str
    messages: list[dict[str, str]]
    schema: Mapping[str, Any] | None


@dataclass(frozen=True)
class _Question:
    fact: Fact
    passage: str
    window: tuple[int, int] | None  # the passage's offsets, None for the whole document
    claim: str


def _spec_of(roles: ModelRoles | ModelSpec | str | None) -> ModelSpec:
    if roles is None:
        return ModelRoles().ground
    if isinstance(roles, ModelRoles):
        return roles.ground
    return ModelSpec.parse(roles, max_tokens=GROUND_MAX_TOKENS)


class LLMGrounder:
    """Asks a model whether each fact's passage supports it (see the module docstring).

    ``roles``: a ModelRoles (its ``ground`` role is used), a ModelSpec or a model string.
    ``client``: any LLMClient; None builds the live client for the model (checked first).
    ``claim_format``: ``"span"`` (``ground.span@1``) or ``"paper"`` (``ground.paper@1``, which
    implies ``context="document"``); ``verdicts="binary"`` is the run config's name for paper.
    ``retry`` (a RetryPolicy or its options) and ``cache`` (decision 5: a folder, a store, None for
    ``.odke-cache/`` in the working directory, False for none) shape the live client built when
    ``client`` is None. ``progress``: a bar on stderr for long batches (None: when it is a
    terminal). ``close()`` closes the client when this grounder built it, or ``owns_client``.
    """

    def __init__(
        self,
        roles: ModelRoles | ModelSpec | str | None = None,
        *,
        client: LLMClient | None = None,
        claim_format: ClaimFormat = "span",
        context: Literal["document"] | None = None,
        verdicts: Literal["binary"] | None = None,
        locate: bool = False,
        widen: bool = False,
        max_workers: int = DEFAULT_MAX_WORKERS,
        retry: Mapping[str, Any] | RetryPolicy | None = None,
        cache: str | Path | ResponseStore | bool | None = None,
        progress: bool | None = None,
        owns_client: bool | None = None,
    ) -> None:
        if verdicts == "binary":
            claim_format = "paper"
        elif verdicts is not None:
            raise ModelConfigError(f"grounder: verdicts {verdicts!r}; the only value is 'binary'")
        if claim_format not in ("span", "paper"):
            raise ModelConfigError(f"grounder: claim format {claim_format!r}; use span or paper")
        if context not in (None, "document"):
            raise ModelConfigError(f"grounder: context {context!r}; the only value is 'document'")
        if max_workers < 1:
            raise ModelConfigError("grounder: max_workers must be at least 1")
        self.spec = _spec_of(roles)
        self.claim_format: ClaimFormat = claim_format
        self.prompt: Prompt = PAPER if claim_format == "paper" else SPAN
        self.context = "document" if claim_format == "paper" else context
        self.locate = locate
        self.widen = widen and claim_format == "span"
        self.max_workers = max_workers
        self.progress = progress
        self._owns_client = client is None if owns_client is None else owns_client
        self.client = client if client is not None else _live_client(self.spec, retry, cache)
        self._stats = GroundingStats()
        self._used: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"LLMGrounder({self.spec.model!r}, prompt={self.prompt.key!r})"

    def close(self) -> None:
        """Close the client this grounder built (its connections and cache); a client passed in
        is the caller's to close."""
        closing = getattr(self.client, "close", None)
        if self._owns_client and callable(closing):
            closing()

    def __enter__(self) -> LLMGrounder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what ran -------------------------------------------------------------------------

    @property
    def stats(self) -> dict[str, Any]:
        """Counts so far: verdicts, checked, calls, failed, tokens, cost (see ``GroundingStats``)."""
        return self._stats.as_dict()

    @property
    def claim_formats(self) -> dict[str, str]:
        """Each prompt this grounder asked with → its claim format (``run.claim_formats``)."""
        return dict(self._used)

    @property
    def prompts(self) -> tuple[str, ...]:
        """The prompt ids (``id@version``) this grounder asked with."""
        return tuple(self._used)

    @property
    def judges(self) -> list[dict[str, str]]:
        """``{"role", "model", "prompt"}`` per judge called, for the report's calibration block."""
        return [{"role": "ground", "model": self.spec.model, "prompt": p} for p in self._used]

    # -- grounding ------------------------------------------------------------------------

    def ground(self, fact: Fact, document: Document) -> Fact:
        """A copy of ``fact`` with the model's verdict (``unchecked`` when the call failed)."""
        result = self._ground(fact, document)
        self._stats.fact(result)
        return result

    def ground_all(self, pairs: Iterable[tuple[Fact, Document]]) -> list[Fact]:
        """Ground many facts, up to ``max_workers`` calls at once; results in input order."""
        return map_calls(
            lambda pair: self.ground(*pair),
            pairs,
            max_workers=self.max_workers,
            progress=self.progress,
            description="grounding",
        )

    def plan(self, pairs: Iterable[tuple[Fact, Document]]) -> list[PlannedCall]:
        """The calls grounding ``pairs`` would make, without making any (a dry run).

        A widened retry depends on an answer, so it is not planned.
        """
        planned = []
        for fact, document in pairs:
            question = self._question(fact, document, count=False)
            planned.append(
                PlannedCall(
                    fact_id=fact.id,
                    model=self.spec.model,
                    prompt=self.prompt.key,
                    messages=self.prompt.messages(question.claim, question.passage),
                    schema=self.prompt.schema,
                )
            )
        return planned

    def _ground(self, fact: Fact, document: Document) -> Fact:
        question = self._question(fact, document, count=True)
        verdict = self._ask(question.claim, question.passage)
        fact = question.fact
        if self.widen and verdict is GroundingVerdict.not_found and question.window is not None:
            wider = sentences_around(list(view_of(document.text).sentences), *question.window)
            if wider is not None and wider != question.window:
                self._stats.add("widened")
                again = self._ask(question.claim, document.text[wider[0] : wider[1]])
                widened = {"span": list(wider), "was": GroundingVerdict.not_found.value}
                fact = fact.model_copy(update={"qualifiers": {**fact.qualifiers, WIDEN: widened}})
                verdict = again if again is not None else verdict
        return fact.model_copy(update={"verdict": verdict or GroundingVerdict.unchecked})

    def _question(self, fact: Fact, document: Document, *, count: bool) -> _Question:
        claim = (
            render_paper_claim(fact) if self.claim_format == "paper" else render_span_claim(fact)
        )
        text = document.text
        if self.context == "document":
            return _Question(fact, text, None, claim)
        for ev in fact.evidence:
            span = ev.span
            if (
                ev.doc_id == document.id
                and span is not None
                and ev.span_origin is not SpanOrigin.context
                and span.end <= len(text)
            ):
                return _Question(fact, text[span.start : span.end], (span.start, span.end), claim)
        if self.locate:
            window = locate_window(fact, text)
            if window is not None:
                if count:
                    self._stats.add("located")
                return _Question(
                    _located(fact, document, window), text[slice(*window)], window, claim
                )
        return _Question(fact, text, None, claim)

    def _ask(self, claim: str, passage: str) -> GroundingVerdict | None:
        """One call; the verdict it gives, or None when it failed or could not be read."""
        self._used.setdefault(self.prompt.key, self.claim_format)
        messages = self.prompt.messages(claim, passage)
        try:
            response = self.client.complete(messages, self.spec, self.prompt.schema)
        except (RunStop, ModelConfigError):
            raise
        except Exception as error:  # a client that raises is a failed call, never a crash
            response = LLMResponse(model=self.spec.model, error=f"{type(error).__name__}: {error}")
        verdict = None
        if response.error is None:
            verdict = read_answer(self.claim_format, response.parsed, response.text)
        self._stats.call(response, readable=verdict is not None)
        return verdict


def _located(fact: Fact, document: Document, window: tuple[int, int]) -> Fact:
    """The fact with the window as its evidence in ``document``, marked ``located``."""
    span = Span(doc_id=document.id, start=window[0], end=window[1])
    evidence = list(fact.evidence)
    for i, ev in enumerate(evidence):
        if ev.doc_id == document.id:
            evidence[i] = ev.model_copy(update={"span": span, "span_origin": SpanOrigin.located})
            break
    else:
        evidence.append(
            Evidence(
                doc_id=document.id,
                span=span,
                span_origin=SpanOrigin.located,
                uri=document.uri,
                tier=document.tier,
                retrieved_at=document.retrieved_at,
            )
        )
    return fact.model_copy(update={"evidence": tuple(evidence)})


def _live_client(
    spec: ModelSpec,
    retry: Mapping[str, Any] | RetryPolicy | None,
    cache: str | Path | ResponseStore | bool | None,
) -> LLMClient:
    """The live client for ``spec``: checked (unknown provider, missing key) before any call."""
    policy = RetryPolicy(**retry) if isinstance(retry, Mapping) else retry
    return client_for(spec, retry=policy, cache=cache)
