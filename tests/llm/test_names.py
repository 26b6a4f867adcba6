"""The model layer's public names: importable where the spec imports them, ``__all__`` sorted."""

from __future__ import annotations

import importlib

import pytest

SPEC = {
    "openodke.llm": [
        "CachedClient",
        "LLMResponse",
        "ModelRoles",
        "ModelSpec",
        "RecordedClient",
        "ReplayClient",
        "ScriptedClient",
    ],
    "openodke.llm.cost": ["CostMeter", "CostReport", "compare_costs"],
    "openodke.errors": ["BudgetStop", "ModelConfigError", "ProviderError"],
}


@pytest.mark.parametrize(("module", "names"), sorted(SPEC.items()))
def test_spec_names_import(module, names) -> None:
    loaded = importlib.import_module(module)
    assert [name for name in names if not hasattr(loaded, name)] == []


LLM_MODULES = [
    "openodke.llm",
    *(
        f"openodke.llm.{name}"
        for name in (
            [
                "base",
                "budget",
                "cache",
                "client",
                "concurrency",
                "cost",
                "factory",
                "parse",
                "prices",
                "recorded",
                "redact",
                "retry",
            ]
        )
    ),
    *(
        f"openodke.llm.providers{name}"
        for name in ("", ".base", ".ollama", ".openai", ".anthropic")
    ),
]


@pytest.mark.parametrize("module", LLM_MODULES)
def test_all_is_sorted_and_complete(module) -> None:
    loaded = importlib.import_module(module)
    assert loaded.__all__ == sorted(loaded.__all__)
    assert all(hasattr(loaded, name) for name in loaded.__all__)


def test_prices_ship_as_package_data() -> None:
    from importlib import resources

    assert resources.files("openodke.llm").joinpath("prices.json").is_file()
