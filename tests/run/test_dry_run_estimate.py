"""A dry run's expected cost is within 2x of what the run then costs, on each bundled set
(issue 18 item 7; it was 6.8x, and 41x on the movie set with the prepared max_tokens 16,000).

Each set is prepared as ``odke bench prepare`` writes it, then run twice through the real
``odke run`` against a local OpenAI-protocol server replaying answers written from its gold
(``tests/run/recorded_sets.py``): ``--dry-run`` for the estimate, then the run itself, metered,
whose cost comes from the token counts the server reports (word pieces and marks, not the four
characters a token the estimate uses). The prepared ``max_tokens`` (16,000) is kept: the worst
case the budget reserves stays far above, and the expected figure must not follow it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from openodke.bench import prepare_redocred, prepare_text2kgbench
from tests.conftest import run_odke
from tests.run.recorded_sets import movie_answers, redocred_answers, tokens
from tests.support.llm_server import ReplayServer

DATA = Path(__file__).resolve().parents[2] / "data"


def _movie(out: Path) -> Callable[[str], str]:
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    return movie_answers(out)


def _redocred(out: Path) -> Callable[[str], str]:
    prepare_redocred(DATA, out, split="test", limit=30)
    return redocred_answers(DATA, "test", 30)


@pytest.mark.parametrize("prepare", [_movie, _redocred], ids=["text2kgbench-movie", "redocred"])
def test_the_dry_run_expects_within_2x_of_the_real_cost(prepare, tmp_path: Path) -> None:
    folder = tmp_path / "set"
    answer = prepare(folder)
    with ReplayServer("openai", answer, count=tokens) as server:
        config = json.loads((folder / "odke.json").read_text())
        local = {"model": "openai/gpt-4o-mini", "base_url": server.base_url}
        extract = {**local, "max_tokens": config["models"]["extract"]["max_tokens"]}
        config["models"] = {"extract": extract, "ground": local, "meter": True}
        path = folder / "odke-local.json"
        path.write_text(json.dumps(config))
        dry = run_odke("run", str(path), "--dry-run", "--json", "--no-cache")
        assert dry.exit_code == 0, dry.stderr
        assert server.requests == []
        real = run_odke("run", str(path), "--json", "--no-cache")
        assert real.exit_code == 0, real.stderr
    plan = json.loads(dry.stdout)["plan"]
    cost = json.loads(real.stdout)["stats"]["cost"]
    spent = cost["total"]["cost_usd"]
    assert cost["stages"]["ground"]["calls"] > 0 and spent > 0
    assert 0.5 <= plan["usd"] / spent <= 2, (plan, cost)
    # the worst case stays the budget's: every extraction call's 16,000 tokens out
    assert plan["extract"]["max_usd"] > 3 * spent
    expected_calls = plan["extract"]["calls"] + plan["ground_expected"]["calls"]
    assert 0.5 <= expected_calls / cost["total"]["calls"] <= 2
