"""The model clients of a run: recorded answers or the live client, metered, per role.

A role named in ``models.replay`` answers from its file (a RecordedClient list or a ReplayClient
cassette; it bypasses the cache). The other roles share one live client (one budget, one cache,
one HTTP pool), built only when a stage calls that role, and checked (provider, key) before any
call. ``meter: true`` puts a CostMeter on each role. Each role's client also records which model
answered (the manifest's ``models.<role>.served``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke.llm import (
    Budget,
    CostMeter,
    LLMClient,
    LLMResponse,
    ModelRoles,
    client_for,
    load_replay,
)
from openodke.llm.base import Message, ModelSpec

__all__ = ["RoleClients", "ServedClient", "make_clients"]

ROLES = ("extract", "ground")


class ServedClient:
    """Passes calls to ``inner`` and records the models that answered and the calls made."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.cacheable = getattr(inner, "cacheable", True)
        self.served: dict[str, int] = {}
        self.calls = 0
        self.failed = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ServedClient({self.inner!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The inner client's answer, counted."""
        response = self.inner.complete(messages, spec, schema)
        with self._lock:
            self.calls += 1
            if response.error is None:
                self.served[response.model] = self.served.get(response.model, 0) + 1
            else:
                self.failed += 1
        return response

    def close(self) -> None:
        """Close the inner client."""
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


@dataclass
class RoleClients:
    """A client per role (built lazily), the meter and the live client's settings."""

    roles: ModelRoles
    replay: Mapping[str, Path] = field(default_factory=dict)
    meter: CostMeter | None = None
    cache: Path | bool | None = None
    config: Path | None = None
    budget: Budget | None = None
    given: Mapping[str, LLMClient] = field(default_factory=dict)
    _live: LLMClient | None = None
    _clients: dict[str, ServedClient] = field(default_factory=dict)

    def spec(self, role: str) -> ModelSpec:
        """The role's ModelSpec."""
        return self.roles.extract if role == "extract" else self.roles.ground

    def check(self, roles: Sequence[str]) -> None:
        """Build the live client for every role in ``roles`` not replayed: an unknown provider or
        a missing key is a ModelConfigError (exit 2) here, before any call."""
        live = [self.spec(r) for r in roles if r not in self.replay and r not in self.given]
        if live and self._live is None:
            self._live = client_for(*live, cache=self.cache, config=self.config, budget=self.budget)

    def client(self, role: str) -> ServedClient:
        """The role's client: replayed or live, metered under the role when the meter is on."""
        if role in self._clients:
            return self._clients[role]
        inner: LLMClient
        if role in self.given:
            inner = self.given[role]
        elif role in self.replay:
            inner = load_replay(self.replay[role])
        else:
            self.check([role])
            assert self._live is not None
            inner = self._live
        if self.meter is not None:
            inner = self.meter.client(inner, stage=role)
        self._clients[role] = ServedClient(inner)
        return self._clients[role]

    def calls_of(self, role: str) -> int:
        """Model calls one role made so far."""
        client = self._clients.get(role)
        return client.calls if client is not None else 0

    @property
    def calls(self) -> int:
        """Model calls made so far, every role together."""
        return sum(c.calls for c in self._clients.values())

    def models(self) -> dict[str, dict[str, Any]]:
        """Per role: ``asked`` (the model configured) and ``served`` (the model that answered most
        often; None when the role made no call)."""
        out: dict[str, dict[str, Any]] = {}
        for role in ROLES:
            client = self._clients.get(role)
            served = None
            if client is not None and client.served:
                served = max(client.served.items(), key=lambda item: item[1])[0]
            out[role] = {"asked": self.spec(role).model, "served": served}
        return out

    def close(self) -> None:
        """Close every client this run built (HTTP connections, the cache file); a client given
        in ``given`` is the caller's to close (it may answer more after the run)."""
        for role, client in self._clients.items():
            if role not in self.given:
                client.close()
        close = getattr(self._live, "close", None)
        if callable(close):
            close()


def make_clients(
    roles: ModelRoles,
    *,
    replay: Mapping[str, Path] | None = None,
    meter: bool = False,
    cache: Path | bool | None = None,
    config: Path | None = None,
    budget: Budget | None = None,
    given: Mapping[str, LLMClient] | None = None,
) -> RoleClients:
    """The clients of a run (built when first asked for)."""
    return RoleClients(
        roles=roles,
        replay=dict(replay or {}),
        meter=CostMeter() if meter else None,
        cache=cache,
        config=config,
        budget=budget,
        given=dict(given or {}),
    )
