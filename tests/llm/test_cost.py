"""CostMeter, CostReport and compare_costs, against hand-computed prices; the spec's cost example."""

from __future__ import annotations

import pytest

from openodke.errors import InputError
from openodke.llm import (
    LLMResponse,
    ModelRoles,
    Price,
    ProviderClient,
    RetryPolicy,
    ScriptedClient,
    compare_costs,
    cost_of,
    price_of,
    price_table,
)
from openodke.llm.cost import CostMeter, StageCost
from tests.support.llm_server import Answer


def test_the_price_table_ships_and_unpriced_is_none() -> None:
    assert price_of("openai/gpt-4o-mini").input == 0.15
    assert price_of("anthropic/claude-haiku-4-5-20251001").output == 5.0
    assert price_of("anthropic/claude-haiku-4-5").output == 5.0  # the dated name's model
    assert price_of("openai/gpt-4o-mini-2024-07-18").input == 0.15
    assert price_of("ollama/qwen2.5:3b") == Price(input=0.0, output=0.0)  # the user's machine
    assert price_of("openai/my-finetune") is None
    assert all(
        "/" in model and model.split("/")[0] in {"openai", "anthropic"} for model in price_table()
    )
    # 1,000 input and 500 output tokens of gpt-4o: (1000 * 2.50 + 500 * 10.00) / 1e6 = 0.0075
    assert cost_of("openai/gpt-4o", 1000, 500) == pytest.approx(0.0075)
    assert cost_of("openai/gpt-4o", None, 500) is None
    assert cost_of("ollama/q", 1000, 500) == 0.0
    assert cost_of("openai/my-finetune", 1000, 500) is None


def answer(cost=None, *, cached=False, error=None, tokens=(10, 2), latency=0.5) -> LLMResponse:
    return LLMResponse(
        model="x/y",
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
        cost_usd=cost,
        cached=cached,
        error=error,
        latency_s=latency,
    )


def test_a_stage_tally_counts_hits_failures_and_unpriced_calls() -> None:
    tally = StageCost()
    for response in (
        answer(0.002),
        answer(0.001),
        answer(0.0, cached=True),  # a hit: a call, no tokens spent, 0.0
        answer(None, error="HTTP 500", tokens=(None, None)),  # failed: counted, no cost known
    ):
        tally = tally.add(response)
    assert (tally.calls, tally.cached, tally.failed, tally.unpriced) == (4, 1, 1, 0)
    assert (tally.prompt_tokens, tally.completion_tokens) == (20, 4)
    assert tally.cost_usd == pytest.approx(0.003) and tally.priced_usd == pytest.approx(0.003)
    assert tally.latency_s == pytest.approx(2.0)
    unpriced = tally.add(answer(None))
    assert unpriced.cost_usd is None and unpriced.priced_usd == pytest.approx(0.003)
    assert unpriced.unpriced == 1


def test_meter_reports_by_stage_over_real_http_prices(llm_server) -> None:
    server = llm_server(
        "openai", [Answer('{"verdict": "supported"}', prompt_tokens=1000, completion_tokens=20)]
    )
    meter = CostMeter()
    with ProviderClient(
        retry=RetryPolicy(sleep=lambda s: None), env={"OPENAI_API_KEY": "k"}
    ) as live:
        ground = meter.client(live, stage="ground")
        extract = meter.client(ScriptedClient([{"entities": []}]), stage="extract")
        for _ in range(3):
            ground.complete([{"role": "user", "content": "x"}], server.spec("gpt-4o-mini"))
        extract.complete([{"role": "user", "content": "x"}], server.spec("gpt-4o-mini"))
    report = meter.report(documents=2)
    # gpt-4o-mini, one call: (1000 * 0.15 + 20 * 0.60) / 1e6 = 0.000162; three calls: 0.000486
    assert report.stages["ground"].cost_usd == pytest.approx(0.000486)
    assert report.stages["ground"].prompt_tokens == 3000
    assert report.stages["extract"].cost_usd is None  # scripted: unpriced
    assert report.total.cost_usd is None and report.total.priced_usd == pytest.approx(0.000486)
    assert report.total.calls == 4
    per_1k = report.per_1k_documents()
    assert list(per_1k) == ["extract", "ground", "total"]
    assert per_1k["ground"]["cost_usd"] == pytest.approx(0.243)  # 0.000486 * 1000 / 2
    assert per_1k["total"]["calls"] == 2000.0 and per_1k["total"]["cost_usd"] is None


def test_per_1k_needs_documents() -> None:
    with pytest.raises(InputError, match="documents"):
        CostMeter().report().per_1k_documents()


def test_compare_costs_sets_runs_side_by_side() -> None:
    def report(costs, documents):
        meter = CostMeter()
        for cost in costs:
            meter.record("ground", answer(cost))
        return meter.report(documents=documents)

    table = compare_costs(
        {
            "hybrid": report([0.01, 0.01], 4),
            "model-only": report([0.01] * 6, 4),
            "local": report([None], 4),
        }
    )
    hybrid, model_only, local = table.rows
    assert (hybrid.name, hybrid.calls, hybrid.cost_usd) == ("hybrid", 2, pytest.approx(0.02))
    assert model_only.cost_ratio == pytest.approx(3.0)  # 0.06 / 0.02
    assert model_only.usd_per_1k_documents == pytest.approx(15.0)  # 0.06 * 1000 / 4
    assert (
        local.cost_usd is None
        and local.cost_ratio is None
        and local.calls_per_1k_documents == 250.0
    )
    text = table.render()
    assert text.splitlines()[0].split()[:2] == ["run", "calls"] and "n/a" in text


def test_the_spec_cost_example() -> None:
    """The spec page's cost example, with ``from openodke.llm.cost import CostMeter`` and the
    grounder's four calls made directly on the client (LLMGrounder is built elsewhere)."""
    labels = ["g1", "g2", "g3", "g4"]  # the four GroundingLabels of the ground example
    meter = CostMeter()
    client = meter.client(ScriptedClient([{"verdict": "supported"}] * len(labels)), stage="ground")
    roles = ModelRoles.single("ollama/qwen2.5:3b")
    for row in labels:
        client.complete([{"role": "user", "content": f"Claim: {row}"}], roles.ground)

    cost = meter.report(documents=1)
    assert cost.stages["ground"].calls == 4
    assert cost.total.cost_usd is None  # a scripted client reports no price, and none is invented
    # 4 calls over 1 document, scaled to 1,000 documents: 4 * 1000 / 1 = 4000.0
    assert str(cost.per_1k_documents()["total"]["calls"]) == "4000.0"


def test_a_failed_answer_asked_twice_is_paid_twice_and_counted(llm_server) -> None:
    """An off-schema answer is asked again and fails again: both calls were paid, so their
    tokens and USD are in the stage's tally, the grounder's counts and the budget; each call
    reserved its own worst case (the second with the feedback turns in its prompt)."""
    from openodke.ground.stats import GroundingStats
    from openodke.llm import Budget, client_for
    from openodke.llm.budget import estimate_usd

    server = llm_server("openai", [Answer("{}", prompt_tokens=1000, completion_tokens=20)])
    server.fault("say", text='{"verdict": "maybe"}', times=2)
    seen: list[float] = []

    class Watched(Budget):
        def reserve(self, estimate: float) -> None:
            seen.append(estimate)
            super().reserve(estimate)

    budget = Watched(usd=1.0)
    spec = server.spec("gpt-4o-mini", max_tokens=64)
    schema = {"type": "object", "properties": {"verdict": {"enum": ["supported"]}}}
    meter = CostMeter()
    client = meter.client(client_for(spec, cache=False, budget=budget), stage="ground")
    ask = [{"role": "user", "content": "Claim: x"}]
    response = client.complete(ask, spec, schema)
    client.close()
    assert response.failure == "off schema" and len(server.requests) == 2
    # two calls of gpt-4o-mini, each (1000 * 0.15 + 20 * 0.60) / 1e6 = 0.000162
    tally = meter.report().stages["ground"]
    assert (tally.calls, tally.failed) == (1, 1)
    assert (tally.prompt_tokens, tally.completion_tokens) == (2000, 40)
    assert tally.cost_usd == pytest.approx(0.000324)
    stats = GroundingStats()
    stats.call(response, readable=False)
    counts = stats.as_dict()
    assert (counts["prompt_tokens"], counts["completion_tokens"]) == (2000, 40)
    assert counts["cost_usd"] == pytest.approx(0.000324)
    assert budget.spent_usd == pytest.approx(0.000324)
    again = server.requests[1].body["messages"]  # the answer and the reason fed back
    assert again[1] == {"role": "assistant", "content": '{"verdict": "maybe"}'}
    assert again[2]["role"] == "user" and "off schema" in again[2]["content"]
    assert seen == [
        pytest.approx(estimate_usd(ask, spec, schema)),
        pytest.approx(estimate_usd(again, spec, schema)),
    ]
    assert seen[1] > seen[0]


def test_a_cut_off_asked_again_reserves_its_own_larger_worst_case(llm_server) -> None:
    """A cut-off is asked again with twice the max_tokens: that call reserves (and may spend)
    the larger worst case, and both calls' tokens are counted."""
    from openodke.llm import Budget, client_for
    from openodke.llm.budget import estimate_usd

    server = llm_server(
        "openai", [Answer('{"verdict": "supported"}', prompt_tokens=500, completion_tokens=10)]
    )
    server.fault("truncated", times=2)
    seen: list[float] = []

    class Watched(Budget):
        def reserve(self, estimate: float) -> None:
            seen.append(estimate)
            super().reserve(estimate)

    spec = server.spec("gpt-4o-mini", max_tokens=100)
    meter = CostMeter()
    client = meter.client(client_for(spec, cache=False, budget=Watched(usd=1.0)), stage="ground")
    ask = [{"role": "user", "content": "Claim: y"}]
    response = client.complete(ask, spec)
    client.close()
    assert response.failure == "cut off at max_tokens"
    bodies = [r.body["max_tokens"] for r in server.requests]
    assert bodies == [100, 356]  # max(2 * 100, 100 + 256)
    bigger = spec.model_copy(update={"max_tokens": 356})
    assert seen == [
        pytest.approx(estimate_usd(ask, spec)),
        pytest.approx(estimate_usd(ask, bigger)),
    ]
    tally = meter.report().stages["ground"]
    assert (tally.prompt_tokens, tally.completion_tokens) == (1000, 20)
