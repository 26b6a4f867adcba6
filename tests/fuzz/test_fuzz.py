"""Every command through the real entry point: valid seeds work, and hostile inputs are refused.

A case breaks one input file of one command (tests/fuzz/commands.py) and runs it in a forked
process; it must end with an allowed exit code (0 or 2; 1 only where issue 13 allows it), no
traceback, a refusal naming the file (and the line, for a broken JSONL line), nothing written or
changed on failure, no temp file and no process left behind. The fixed corpus is spread over
the commands so each case meets several commands and each command several cases; hypothesis
adds seeded random mutations. ``bench/fuzz_campaign.py`` runs every case on every input.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.commands import COMMANDS, Command, pairs, run_case
from tests.fuzz.mutations import CORPUS, Mutation, mutate_randomly

PER_CASE = 6


@pytest.mark.parametrize("row", COMMANDS, ids=lambda row: row.name)
def test_each_command_works_on_its_seed_files(row: Command, fuzz_base) -> None:
    case = run_case(row, None, None, fuzz_base)
    assert case.outcome.code == 0, case.outcome.stderr[-2000:]
    assert case.problems == []


@functools.cache
def _spreads() -> dict[str, tuple[tuple[Command, str], ...]]:
    """``PER_CASE`` inputs for each case of the corpus: the commands are taken in turn across
    the whole corpus (a command no case fits is skipped), and each command's fitting inputs in
    turn, so every command meets several cases and no case meets one command twice."""
    cursor, used = 0, dict.fromkeys((row.name for row in COMMANDS), 0)
    spreads = {}
    for mutation in CORPUS:
        picked: list[tuple[Command, str]] = []
        for _ in range(len(COMMANDS)):
            if len(picked) == PER_CASE:
                break
            row = COMMANDS[cursor % len(COMMANDS)]
            cursor += 1
            fitting = [t for t, fmt in row.targets.items() if fmt in mutation.formats]
            if fitting:
                picked.append((row, fitting[used[row.name] % len(fitting)]))
                used[row.name] += 1
        spreads[mutation.name] = tuple(picked)
    return spreads


def _spread(mutation: Mutation) -> tuple[tuple[Command, str], ...]:
    """``PER_CASE`` inputs the mutation applies to, rotating through the commands."""
    return _spreads()[mutation.name]


@pytest.mark.parametrize("mutation", CORPUS, ids=lambda m: m.name)
def test_the_corpus_of_issue_13_is_refused_cleanly(mutation: Mutation, fuzz_base) -> None:
    failures = []
    for row, target in _spread(mutation):
        case = run_case(row, target, mutation, fuzz_base)
        if case.problems:
            last = (case.outcome.stderr.strip().splitlines() or [""])[-1]
            failures.append(f"{row.name} | {target} | {case.problems} | {last[:300]}")
    assert failures == []


def test_the_corpus_meets_every_command() -> None:
    met = {row.name for mutation in CORPUS for row, _ in _spread(mutation)}
    assert met == {row.name for row, _ in pairs()}


@given(
    pick=st.integers(min_value=0, max_value=10**6), seed=st.integers(min_value=0, max_value=2**30)
)
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_random_mutations_of_any_input_are_refused_cleanly(pick, seed, fuzz_base) -> None:
    everything = pairs()
    row, target = everything[pick % len(everything)]
    case = run_case(row, target, mutate_randomly, fuzz_base, seed=seed)
    assert case.problems == [], (row.name, target, seed, case.outcome.stderr[-500:])


def test_a_random_mutation_is_reproducible_from_its_seed(tmp_path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (first, second):
        path.write_text('{"id": "a", "n": [1, 2, {"x": "y"}]}\n{"id": "b"}\n')
        mutate_randomly(path, "jsonl", random.Random(99))
    assert first.read_bytes() == second.read_bytes()
