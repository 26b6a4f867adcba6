"""Building the live client for a run: check every model first, then cache over budget over HTTP.

The chain is ``CachedClient(ReaskClient(BudgetedClient(ProviderClient)))``: a cached answer never
reaches the budget (it is free), an answer that cannot be used is asked again once (and the second
call is charged), and a stored answer never came from a failed call. The cache is keyed on the
endpoint each request goes to, read from the same environment as the client's. Put a CostMeter outside it
(``meter.client(client_for(...), stage=...)``) to count cached calls too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from openodke.llm.base import LLMClient, ModelRoles, ModelSpec
from openodke.llm.budget import Budget, BudgetedClient, require_prices
from openodke.llm.cache import CachedClient, ResponseStore, cache_location
from openodke.llm.client import ProviderClient, check_spec
from openodke.llm.reask import ReaskClient
from openodke.llm.retry import RetryPolicy

__all__ = ["client_for"]


def client_for(
    *models: str | ModelSpec | ModelRoles,
    cache: str | Path | ResponseStore | bool | None = None,
    config: str | Path | None = None,
    budget: Budget | None = None,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
) -> LLMClient:
    """One client that can call every model named, checked before any call.

    Raises ModelConfigError (exit 2) for an unknown prefix, a missing key, or a USD budget over a
    model with no price (decision 151). ``cache``: a folder,
    a store, False for none, or None/True for ``.odke-cache/`` beside the run config ``config``
    (else in the working directory). ``rpm``/``tpm``: requests and tokens a minute per model
    (a ModelSpec's own win).
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
    from openodke.llm.batch.context import active_engine

    engine = active_engine()
    if engine is not None:  # --batch: the providers' batch APIs (decision 210)
        return engine.client_for(specs, cache=cache, config=config, budget=budget, env=env)
    client: LLMClient = ProviderClient(retry=retry, env=env, rpm=rpm, tpm=tpm)
    if budget is not None:
        client = BudgetedClient(client, budget)
    client = ReaskClient(client)
    if isinstance(cache, ResponseStore):
        return CachedClient(client, cache, env=env)
    folder = cache_location(cache, config=config)
    return client if folder is None else CachedClient(client, folder, env=env)
