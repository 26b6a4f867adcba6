"""Clients that answer from a script or a recording instead of a model.

Recorded and scripted answers are unpriced (``cost_usd`` None) and bypass the response cache
(``cacheable = False``). A request no recording matches is a provider error naming the prompt's
first line, returned as an error result like any failed call.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.errors import InputError
from openodke.llm.base import LLMResponse, Message, ModelSpec
from openodke.llm.parse import first_line, joined, parse_reply
from openodke.safeio import read_json

__all__ = ["Cassette", "RecordedClient", "ReplayClient", "ScriptedClient", "load_replay"]


def _answer(value: Any, spec: ModelSpec, started: float) -> LLMResponse:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    parsed = parse_reply(value) if isinstance(value, str) else value
    return LLMResponse(
        text=text, parsed=parsed, model=spec.model, latency_s=time.perf_counter() - started
    )


def _no_match(messages: Sequence[Message], spec: ModelSpec, what: str) -> LLMResponse:
    return LLMResponse(
        model=spec.model, error=f"no {what} matches the request: {first_line(messages)!r}"
    )


class ScriptedClient:
    """Answers by position from a list of parsed answers; records every call.

    An item that is an ``LLMResponse`` is returned as it is (to script an error). Past the end of
    the script each call is an error result. Not thread-safe: use it with one worker.
    """

    cacheable = False

    def __init__(self, answers: Sequence[Any]) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[list[Message], ModelSpec, Mapping[str, Any] | None]] = []

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The next scripted answer."""
        started = time.perf_counter()
        index = len(self.calls)
        self.calls.append((list(messages), spec, schema))
        if index >= len(self.answers):
            return LLMResponse(
                model=spec.model,
                error=f"script exhausted: call {index + 1} of {len(self.answers)} scripted",
            )
        value = self.answers[index]
        if isinstance(value, LLMResponse):
            return value
        return _answer(value, spec, started)


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    match: str = Field(description="A substring of the request's messages joined by newlines.")
    response: Any = Field(description="The parsed JSON answer to give.")


def _read_json(path: Path) -> Any:
    return read_json(path, what="JSON")


def _where(error: ValidationError) -> str:
    first = error.errors()[0]
    loc = ".".join(str(part) for part in first["loc"])
    return f"{loc}: {first['msg']}"


class RecordedClient:
    """Answers by content from ``[{"match": "<substring>", "response": {...}}, ...]``.

    The first entry whose ``match`` occurs in the request's messages joined by newlines answers;
    entries are reusable; thread-safe (it only reads).
    """

    cacheable = False

    def __init__(self, source: str | Path | Sequence[Mapping[str, Any]]) -> None:
        where = str(source) if isinstance(source, str | Path) else "recorded answers"
        rows = _read_json(Path(source)) if isinstance(source, str | Path) else source
        if not isinstance(rows, list):
            raise InputError("expected a JSON list of {match, response}", path=where)
        self.entries: list[_Entry] = []
        for index, row in enumerate(rows):
            try:
                self.entries.append(_Entry.model_validate(row))
            except ValidationError as error:
                raise InputError(f"[{index}].{_where(error)}", path=where) from error

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The first recorded answer whose ``match`` occurs in the request."""
        started = time.perf_counter()
        prompt = joined(messages)
        for entry in self.entries:
            if entry.match in prompt:
                return _answer(entry.response, spec, started)
        return _no_match(messages, spec, "recorded answer")


class _Match(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    contains: list[str] = Field(description="Every string must occur in the request.")


class _Reply(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(description="The raw model text, parsed as a live answer would be.")
    model: str | None = Field(default=None, description="The model that gave it.")


class _Interaction(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    match: _Match
    response: _Reply


class Cassette(BaseModel):
    """A recording: ``{"description": ..., "interactions": [{"match": {"contains": [...]}, "response": {"text", "model"}}]}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str = Field(default="", description="What was recorded, how and when.")
    interactions: list[_Interaction] = Field(description="Answers, the first match wins.")


class ReplayClient:
    """Answers from a cassette: the first interaction whose every ``contains`` string occurs.

    The raw text is parsed as a live answer would be. Thread-safe.
    """

    cacheable = False

    def __init__(self, cassette: str | Path | Mapping[str, Any] | Cassette) -> None:
        where = str(cassette) if isinstance(cassette, str | Path) else "cassette"
        data = _read_json(Path(cassette)) if isinstance(cassette, str | Path) else cassette
        try:
            self.cassette = Cassette.model_validate(data)
        except ValidationError as error:
            raise InputError(_where(error), path=where) from error
        self._lock = threading.Lock()
        self.used = [0] * len(self.cassette.interactions)

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The recorded raw text of the first matching interaction, parsed."""
        started = time.perf_counter()
        prompt = joined(messages)
        for index, interaction in enumerate(self.cassette.interactions):
            if all(part in prompt for part in interaction.match.contains):
                with self._lock:
                    self.used[index] += 1
                reply = interaction.response
                return LLMResponse(
                    text=reply.text,
                    parsed=parse_reply(reply.text),
                    model=reply.model or spec.model,
                    latency_s=time.perf_counter() - started,
                )
        return _no_match(messages, spec, "cassette interaction")


def load_replay(path: str | Path) -> RecordedClient | ReplayClient:
    """A ``replay`` file: a RecordedClient when the JSON is a list, a ReplayClient when an object."""
    data = _read_json(Path(path))
    if isinstance(data, list):
        return RecordedClient(path)
    if isinstance(data, dict):
        return ReplayClient(path)
    raise InputError("expected a list of recorded answers or a cassette object", path=str(path))
