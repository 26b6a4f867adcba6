"""Model clients, roles, recorded answers, the response cache and cost accounting."""

from openodke.llm.base import LLMClient, LLMResponse, Message, ModelRoles, ModelSpec, qualify
from openodke.llm.parse import parse_reply
from openodke.llm.recorded import (
    Cassette,
    RecordedClient,
    ReplayClient,
    ScriptedClient,
    load_replay,
)

__all__ = [
    "Cassette",
    "LLMClient",
    "LLMResponse",
    "Message",
    "ModelRoles",
    "ModelSpec",
    "RecordedClient",
    "ReplayClient",
    "ScriptedClient",
    "load_replay",
    "parse_reply",
    "qualify",
]
