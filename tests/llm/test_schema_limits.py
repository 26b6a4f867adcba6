"""Strict-valid schemas, the per-model rate limiter and the per-process jitter."""

from __future__ import annotations

import pytest

from openodke.llm.ratelimit import RateLimiter
from openodke.llm.retry import RetryPolicy
from openodke.llm.schema import schema_problem, strict_schema

FACT = {
    "type": "object",
    "properties": {
        "predicate": {"type": "string", "enum": ["born", "died"]},
        "quote": {"type": "string"},
        "start": {"type": "integer", "minimum": 0},
    },
    "required": ["predicate", "quote"],
}


def test_strict_schema_requires_every_property_and_makes_the_optional_nullable() -> None:
    strict = strict_schema(
        {"type": "object", "properties": {"facts": {"type": "array", "items": FACT}}}
    )
    assert strict is not None
    item = strict["properties"]["facts"]["items"]
    assert item["required"] == ["predicate", "quote", "start"]
    assert item["additionalProperties"] is False
    assert item["properties"]["start"]["type"] == ["integer", "null"]
    assert item["properties"]["quote"]["type"] == "string"  # required: not nullable
    assert strict["properties"]["facts"]["type"] == ["array", "null"]  # optional at the top
    # what the strict schema allows, the check accepts; what it forbids, it names
    assert (
        schema_problem({"facts": [{"predicate": "born", "quote": "q", "start": None}]}, strict)
        is None
    )
    problem = schema_problem({"facts": [{"predicate": "wed", "quote": "q", "start": 1}]}, strict)
    assert problem is not None and problem.startswith("at facts/0/predicate:")


def test_a_free_form_object_cannot_be_strict() -> None:
    loose = {"type": "object", "properties": {"qualifiers": {"type": "object"}}}
    assert strict_schema(loose) is None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_rpm_holds_the_third_request_until_the_first_leaves_the_window() -> None:
    clock = Clock()
    limiter = RateLimiter(rpm=2, clock=clock, sleep=clock.sleep)
    limiter.acquire()
    clock.now += 10
    limiter.acquire()
    limiter.acquire()  # waits until 60 s after the first
    assert clock.now == pytest.approx(1060.0)
    assert sum(clock.slept) == pytest.approx(50.0)


def test_tpm_counts_tokens_and_a_pause_holds_everyone() -> None:
    clock = Clock()
    limiter = RateLimiter(tpm=1000, clock=clock, sleep=clock.sleep)
    limiter.acquire(600)
    limiter.acquire(600)  # 1,200 > 1,000: waits for the first to leave the window
    assert clock.now == pytest.approx(1060.0)
    limiter.pause(30)
    limiter.acquire(10)
    assert clock.now == pytest.approx(1090.0)


def test_the_jitter_differs_between_policies_unless_seeded() -> None:
    draws = {RetryPolicy(jitter=0.5).delay(1) for _ in range(5)}
    assert len(draws) > 1  # seeded from the OS: concurrent runs do not retry in lockstep
    seeded = {RetryPolicy(jitter=0.5, seed=3).delay(1) for _ in range(5)}
    assert len(seeded) == 1
