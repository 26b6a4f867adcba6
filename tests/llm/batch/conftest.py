"""The batch and replay server fixtures, and a small job that asks a model through ``client_for``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from openodke.llm import Budget, ModelSpec, client_for, map_calls
from tests.support.batch_server import batch_server  # noqa: F401 - a fixture, used by name
from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["supported", "not_found"]}},
    "required": ["verdict"],
}
QUESTIONS = ["Claim: Ada founded Acme.", "Claim: Bob runs Bolt.", "Claim: Cy lives in Kessby."]


def asking(
    spec: ModelSpec,
    cache: Path,
    questions: list[str] = QUESTIONS,
    *,
    budget: Budget | None = None,
    env: dict[str, str] | None = None,
) -> Callable[[], list[Any]]:
    """A job: every question asked of ``spec`` (cached in ``cache``), answers in order."""

    def job() -> list[Any]:
        client = client_for(spec, cache=cache, budget=budget, env=env)
        try:
            return map_calls(
                lambda q: client.complete(
                    [
                        {"role": "system", "content": "Judge the claim."},
                        {"role": "user", "content": q},
                    ],
                    spec,
                    SCHEMA,
                ),
                questions,
                max_workers=4,
                progress=False,
            )
        finally:
            client.close()  # type: ignore[attr-defined]

    return job
