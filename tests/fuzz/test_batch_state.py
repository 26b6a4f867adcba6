"""The batch state (``.odke-cache/batches.json``, issue 18) under every mutation of the corpus
that fits a JSON file, and the ways a kill or a hand edit leaves it (issue 22 item 7).

A ``--batch`` command reads the state before any work, a dry run too: a torn, truncated,
mistyped or unreadable file is one line naming it, exit 2, nothing written, no traceback. (A
batch the state names that the server no longer knows is forgotten with a warning:
tests/llm/batch/test_engine.py.)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.fuzz.commands import command, run_case
from tests.fuzz.mutations import CORPUS, Applied, Mutation

STATE = "cache/batches.json"
ROW = "ground --batch"


def _write(text: str):
    def apply(path: Path, fmt: str, rng: random.Random) -> Applied:
        path.write_text(text, encoding="utf-8")
        return Applied()

    return apply


def _record(**change: object) -> str:
    key = "a" * 64
    record = {
        "id": "batch_seed",
        "provider": "openai",
        "model": "openai/gpt-4o-mini",
        "endpoint": "http://127.0.0.1:9/v1/chat/completions",
        "submitted_at": 1764633600.0,
        "requests": {key: key},
        **change,
    }
    return json.dumps({"schema_version": 1, "batches": [record]}, indent=1)


# What a kill mid-write (were it not atomic), a copy cut short, or a hand edit leaves.
OWN = {
    "torn after a record": _record()[:-40],
    "torn inside a key": _record()[:120],
    "a second document appended": _record() + _record(),
    "batches a mapping": json.dumps({"schema_version": 1, "batches": {"id": "b"}}),
    "a batch id with a slash": _record(id="../../v1/files"),
    "a provider with no batch API": _record(provider="ollama"),
    "requests empty": _record(requests={}),
    "a request key not hex": _record(requests={"k": "v"}),
    "submitted_at a string": _record(submitted_at="yesterday"),
    "schema version 3": json.dumps({"schema_version": 3, "batches": []}),
    "neither an id nor an intent": _record(id=None),
    "an intent not hex": _record(id=None, intent="../x"),
    "found a string": _record(found="yes"),
    "an unknown field": _record(extra=True),
}

JSON_CASES = [m for m in CORPUS if "json" in m.formats]


@pytest.mark.parametrize("name", list(OWN))
def test_a_damaged_batch_state_is_one_line_exit_2(name: str, fuzz_base) -> None:
    case = run_case(command(ROW), STATE, _write(OWN[name]), fuzz_base)
    assert case.outcome.code == 2, case.outcome.stderr[-600:]
    assert "batches.json" in case.outcome.stderr and case.problems == []


@pytest.mark.parametrize("mutation", JSON_CASES, ids=lambda m: m.name)
def test_the_corpus_on_the_batch_state(mutation: Mutation, fuzz_base) -> None:
    case = run_case(command(ROW), STATE, mutation, fuzz_base)
    assert case.problems == [], case.outcome.stderr[-600:]
