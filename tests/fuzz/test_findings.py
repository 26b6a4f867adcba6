"""Every input a campaign (bench/fuzz_campaign.py) found a problem with, rerun from its seed.

Each row is the command, the file broken and the random mutation's seed the campaign printed;
the run must now be clean (an allowed exit code, no traceback, the refusal naming the file).
The comment says what was wrong and where it was fixed.
"""

from __future__ import annotations

import pytest

from tests.fuzz.commands import command, run_case
from tests.fuzz.mutations import CORPUS, mutate_randomly

FOUND = [
    # issue 22, seed 22: a predicate row's recall a string, formatted as a number
    ("report html", "report.json", 500545052),
    # a breakdown's support a dict, negated to sort the predicates
    ("report html", "report.json", 957065847),
    # a negative fn: numpy's gamma draws refused "shape < 0"
    ("report html", "report.json", 738411854),
    # precision a dict, formatted as a number
    ("report html", "report.json", 165585991),
    ("report html", "report.json", 901116738),
    # 1e+308 where the model wants an int (rows.0.counts.predicted, bootstrap.seed): the schema
    # lets an integral float through, pydantic refused it (a ValidationError, exit 1)
    ("report html", "report.json", 12260256),
    ("report html", "report.json", 814570789),
    # a GraphDocument whose nodes is true (iterated)
    ("eval pipeline langchain", "graph.json", 200907773),
    # a missing replay file named only by its own name, not by the config that names it
    ("ground", "odke.yaml", 69893091),
    # issue 22, seed 23: a --type-map naming an unknown type, refused naming the option but not
    # the file (the pipeline copied the map into a plain dict, dropping where it was read from)
    ("docs: eval pipeline graphrag", "graphrag_types.json", 981617652),
    ("docs: eval pipeline graphrag", "graphrag_types.json", 521696603),
    # odke ontology validate's problems are its stdout (exit 2): the harness read only stderr
    ("ontology validate", "ontology.yaml", 939411130),
    # issue 22, seed 26 (the bench run row): `models: {ground: [[]]}` in a run config reached
    # dict([[]]) in ModelSpec.parse (ValueError, "this is a bug"); ground and validate configs
    # the same with any role neither a string nor a mapping (tests/llm/test_base.py)
    ("bench run", "set/odke-replay.json", 476300001),
]


@pytest.mark.parametrize(("name", "target", "seed"), FOUND)
def test_what_a_campaign_found_is_refused_cleanly(name, target, seed, fuzz_base) -> None:
    case = run_case(command(name), target, mutate_randomly, fuzz_base, seed=seed)
    assert case.problems == [], case.outcome.stderr[-600:]
    assert case.outcome.code in (0, 2)


# (command, file, corpus case): found by running the corpus over rows added for issue 22
FOUND_BY_CORPUS = [
    # a bad track record was refused after the comparison's report was written (half-written)
    ("docs: eval compare --track-record", "track-record.jsonl", "null value"),
    ("docs: eval compare --track-record", "track-record.jsonl", "a symlink loop"),
]


@pytest.mark.parametrize(("name", "target", "mutation"), FOUND_BY_CORPUS)
def test_what_the_corpus_found_is_refused_cleanly(name, target, mutation, fuzz_base) -> None:
    chosen = next(m for m in CORPUS if m.name == mutation)
    case = run_case(command(name), target, chosen, fuzz_base)
    assert case.problems == [], case.outcome.stderr[-600:]
    assert case.outcome.code == 2
