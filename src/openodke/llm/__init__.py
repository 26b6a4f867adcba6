"""Model clients, roles, recorded answers, the response cache and cost accounting."""

from openodke.llm.base import LLMClient, LLMResponse, Message, ModelRoles, ModelSpec, qualify
from openodke.llm.budget import Budget, BudgetedClient
from openodke.llm.cache import CachedClient, ResponseStore, cache_key, cache_location
from openodke.llm.client import ProviderClient, check_spec
from openodke.llm.concurrency import map_calls
from openodke.llm.cost import (
    CostComparison,
    CostMeter,
    CostReport,
    CostRow,
    MeteredClient,
    StageCost,
    compare_costs,
)
from openodke.llm.factory import client_for
from openodke.llm.parse import parse_reply
from openodke.llm.prices import Price, cost_of, price_of, price_table
from openodke.llm.recorded import (
    Cassette,
    RecordedClient,
    ReplayClient,
    ScriptedClient,
    load_replay,
)
from openodke.llm.redact import strip_secrets
from openodke.llm.retry import RetryPolicy

__all__ = [
    "Budget",
    "BudgetedClient",
    "CachedClient",
    "Cassette",
    "CostComparison",
    "CostMeter",
    "CostReport",
    "CostRow",
    "LLMClient",
    "LLMResponse",
    "Message",
    "MeteredClient",
    "ModelRoles",
    "ModelSpec",
    "Price",
    "ProviderClient",
    "RecordedClient",
    "ReplayClient",
    "ResponseStore",
    "RetryPolicy",
    "ScriptedClient",
    "StageCost",
    "cache_key",
    "cache_location",
    "check_spec",
    "client_for",
    "compare_costs",
    "cost_of",
    "load_replay",
    "map_calls",
    "parse_reply",
    "price_of",
    "price_table",
    "qualify",
    "strip_secrets",
]
