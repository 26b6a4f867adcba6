"""Budgets hold: a USD cap needs prices, usage-less servers are priced from an estimate, and many
workers neither overspend nor stop early (decision 151)."""

from __future__ import annotations

import pytest

from openodke.errors import BudgetStop, InputError, ModelConfigError, exit_code_for
from openodke.llm import Budget, BudgetedClient, ModelSpec, ProviderClient, RetryPolicy, map_calls
from openodke.llm.budget import estimate_usd
from openodke.llm.factory import client_for
from openodke.llm.prices import Price, parse_price, parse_prices, price_of, using_prices
from tests.support.llm_server import Answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("in=0.15,out=0.6", {"*": Price(input=0.15, output=0.6)}),
        (" in=1 , out=2 ", {"*": Price(input=1, output=2)}),
        ("openai/my-tune=in=3,out=12", {"openai/my-tune": Price(input=3, output=12)}),
        ("out=2,in=0", {"*": Price(input=0, output=2)}),
    ],
)
def test_price_flags_parse(text, expected) -> None:
    assert parse_price(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("in=1", "give both"),
        ("in=1,out=x", "'x' is not a number"),
        ("in=-1,out=2", "0 or more"),
        ("1,2", "expected in=X,out=Y"),
        ("in=1,in=2", "expected in=X,out=Y"),
    ],
)
def test_bad_price_flags_are_one_line(text, message) -> None:
    with pytest.raises(InputError, match=message) as caught:
        parse_price(text)
    assert "\n" not in str(caught.value) and exit_code_for(caught.value) == 2


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1], "expected a mapping"),
        ({"openai/x": 3}, "expected {input: X, output: Y}"),
        ({"openai/x": {"input": 1}}, "output is missing"),
        ({"openai/x": {"input": 1, "output": "a"}}, "expected a number"),
        ({"openai/x": {"input": 1, "output": 2, "cached": 1}}, "unknown field 'cached'"),
    ],
)
def test_bad_config_prices_are_refused(value, message) -> None:
    with pytest.raises(InputError, match=message):
        parse_prices(value)


def test_config_prices_take_in_and_out_too() -> None:
    assert parse_prices({"openai/x": {"in": 1, "out": 2}}) == {"openai/x": Price(input=1, output=2)}


def test_given_prices_come_before_the_table_and_are_restored() -> None:
    assert price_of("openai/my-tune") is None
    with using_prices({"openai/my-tune": Price(input=3, output=12)}):
        assert price_of("openai/my-tune") == Price(input=3, output=12)
        assert price_of("openai/gpt-4o-mini").input == 0.15  # the table still answers the rest
        with using_prices(parse_price("in=9,out=9")):
            assert price_of("openai/gpt-4o-mini").input == 9  # --price: every model
    assert price_of("openai/my-tune") is None


def test_a_usd_budget_over_an_unpriced_model_refuses_to_start() -> None:
    spec = ModelSpec(model="openai/my-tune", base_url="http://127.0.0.1:9")
    with pytest.raises(ModelConfigError) as caught:
        client_for(spec, cache=False, budget=Budget(usd=0.05), env={})
    message = str(caught.value)
    assert exit_code_for(caught.value) == 2 and "\n" not in message
    assert "openai/my-tune" in message and "--price in=X,out=Y" in message
    client_for(
        spec, cache=False, budget=Budget(calls=10), env={}
    ).close()  # no USD: no price needed
    with using_prices(parse_price("in=1,out=2")):
        client_for(spec, cache=False, budget=Budget(usd=0.05), env={}).close()


def test_a_server_without_usage_is_priced_from_an_estimate_and_says_so(llm_server) -> None:
    server = llm_server("openai", [Answer('{"verdict": "supported"}')], usage=False)
    client = ProviderClient(env={})
    messages = [{"role": "user", "content": "Claim: Ada Lovelace was born in London."}]
    reply = client.complete(messages, server.spec("gpt-4o-mini"))
    client.close()
    # 39 characters -> ceil(39 / 4) = 10 tokens in; '{"verdict": "supported"}' 24 -> 6 out:
    # (10 * 0.15 + 6 * 0.60) / 1e6 = 5.1e-6 USD
    assert reply.tokens_estimated and (reply.prompt_tokens, reply.completion_tokens) == (10, 6)
    assert reply.cost_usd == pytest.approx(5.1e-6)


def test_a_server_with_usage_is_not_estimated(llm_server) -> None:
    server = llm_server("openai", [Answer("{}", prompt_tokens=7, completion_tokens=1)])
    client = ProviderClient(env={})
    reply = client.complete([{"role": "user", "content": "x"}], server.spec("gpt-4o-mini"))
    client.close()
    assert not reply.tokens_estimated and (reply.prompt_tokens, reply.completion_tokens) == (7, 1)


@pytest.mark.parametrize("workers", [1, 8, 32])
def test_many_workers_neither_overspend_nor_stop_early(llm_server, workers) -> None:
    server = llm_server(
        "openai",
        [Answer('{"verdict": "supported"}', prompt_tokens=1000, completion_tokens=10)],
        latency=0.005,
    )
    client = ProviderClient(retry=RetryPolicy(sleep=lambda s: None), env={})
    spec = server.spec("gpt-4o-mini", max_tokens=2000)
    # each call costs (1000 * 0.15 + 10 * 0.60) / 1e6 = 1.56e-4; each reserves its worst case,
    # ceil(15 / 4) = 4 tokens in and 2,000 out: (4 * 0.15 + 2000 * 0.60) / 1e6 = 1.2006e-3, 7.7x
    worst = estimate_usd([{"role": "user", "content": "Claim: fact 000"}], spec)
    assert worst == pytest.approx(1.2006e-3)
    budget = Budget(usd=50 * 1.56e-4)
    budgeted = BudgetedClient(client, budget)

    def call(i: int) -> object:
        return budgeted.complete([{"role": "user", "content": f"Claim: fact {i:03d}"}], spec)

    with pytest.raises(BudgetStop):
        map_calls(call, range(400), max_workers=workers)
    client.close()
    made = len(server.requests)
    assert budget.spent_usd <= budget.usd  # never over
    # stops only when one more worst case would not fit: spent > usd - worst, so at least
    # (7.8e-3 - 1.2006e-3) / 1.56e-4 = 42.3 -> 43 calls (the old check stopped at ~6 with 32)
    assert 43 <= made <= 50 and budget.calls_made == made
