"""Building the live client for a run: check every model first, then cache over budget over HTTP.

The chain is ``CachedClient(BudgetedClient(ProviderClient))``: a cached answer never reaches the
budget (it is free) and a stored answer never came from a failed call. Put a CostMeter outside it
(``meter.client(client_for(...), stage=...)``) to count cached calls too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from openodke.llm.base import LLMClient, ModelRoles, ModelSpec
from openodke.llm.budget import Budget, BudgetedClient, require_prices
from openodke.llm.cache import CachedClient, ResponseStore, cache_location
from openodke.llm.client import ProviderClient, check_spec
from openodke.llm.retry import RetryPolicy

__all__ = ["client_for"]


def client_for(
    *models: str | ModelSpec | ModelRoles,
    cache: str | Path | ResponseStore | bool | None = None,
    config: str | Path | None = None,
    budget: Budget | None = None,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
) -> LLMClient:
    """One client that can call every model named, checked before any call.

    Raises ModelConfigError (exit 2) for an unknown prefix, a missing key, or a USD budget over a
    model with no price (decision 151). ``cache``: a folder,
    a store, False for none, or None/True for ``.odke-cache/`` beside the run config ``config``
    (else in the working directory).
    """
    specs: list[ModelSpec] = []
    for model in models:
        if isinstance(model, ModelRoles):
            specs += [model.extract, model.ground]
        else:
            specs.append(ModelSpec.parse(model))
    for spec in specs:
        check_spec(spec, env)
    require_prices(specs, budget)
    client: LLMClient = ProviderClient(retry=retry, env=env)
    if budget is not None:
        client = BudgetedClient(client, budget)
    if isinstance(cache, ResponseStore):
        return CachedClient(client, cache)
    folder = cache_location(cache, config=config)
    return client if folder is None else CachedClient(client, folder)
