"""The plain types every model client speaks: a request's spec, its answer and the client protocol.

A client implements ``complete(messages, spec, schema=None) -> LLMResponse``. ``messages`` is a list
of ``{"role": ..., "content": ...}`` mappings; a message may also carry ``"prompt": "id@version"``
naming the registered prompt it was rendered from (it separates cache keys and is never sent to a
provider). A failed call returns an ``LLMResponse`` with ``error`` set; it never raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from openodke.errors import ModelConfigError

__all__ = [
    "DEFAULT_EXTRACT",
    "DEFAULT_GROUND",
    "GROUND_MAX_TOKENS",
    "LLMClient",
    "LLMResponse",
    "Message",
    "ModelRoles",
    "ModelSpec",
    "close_inner",
    "qualify",
]

Message = Mapping[str, Any]
"""One chat message: ``role`` and ``content``, and optionally the ``prompt`` id it came from."""

DEFAULT_EXTRACT = "anthropic/claude-sonnet-5"
DEFAULT_GROUND = "anthropic/claude-haiku-4-5-20251001"
EXTRACT_MAX_TOKENS = 2048
GROUND_MAX_TOKENS = 256


class LLMResponse(BaseModel):
    """One model answer, or the error a call ended in after its retries."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(default="", description="The model's raw reply text ('' on an error).")
    parsed: Any = Field(
        default=None,
        description="The reply parsed as JSON (the first JSON object in it), or null when it is not.",
    )
    model: str = Field(description="The model that answered, as `<provider>/<model>`.")
    prompt_tokens: int | None = Field(
        default=None, description="Input tokens, as the provider counted."
    )
    completion_tokens: int | None = Field(
        default=None, description="Output tokens, as the provider counted."
    )
    cost_usd: float | None = Field(
        default=None,
        description="USD for this call from the price table; null when unpriced; 0.0 for a cache hit.",
    )
    tokens_estimated: bool = Field(
        default=False,
        description="True when the server reported no usage and the token counts are estimated "
        "(four characters a token), so the cost is an estimate too.",
    )
    latency_s: float = Field(default=0.0, description="Wall time of the call, retries included.")
    cached: bool = Field(default=False, description="True when the answer came from the cache.")
    error: str | None = Field(
        default=None, description="Why the call failed after its retries; null on success."
    )
    failure: str | None = Field(
        default=None,
        description="The kind of failure (a FailureKind value: `cut off at max_tokens`, "
        "`refused`, `empty`, `off schema`, `timed out`, ...); null on success.",
    )
    finish_reason: str | None = Field(
        default=None,
        description="Why the model stopped, as the provider said (`stop`, `length`, "
        "`end_turn`, `max_tokens`, `refusal`, ...); null when it did not say.",
    )

    @property
    def ok(self) -> bool:
        """True when the call succeeded (``error`` is null)."""
        return self.error is None


class ModelSpec(BaseModel):
    """Which model to ask and how: one role's settings (run config key ``models.<role>``)."""

    # hide_input_in_errors: a key pasted into a config must not be echoed by a validation error.
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    model: str = Field(description="`<provider>/<model>`: ollama/..., openai/... or anthropic/...")
    temperature: float | None = Field(
        default=None, description="Sampling temperature; unset is not sent."
    )
    max_tokens: int | None = Field(default=None, ge=1, description="Most output tokens to ask for.")
    timeout: float = Field(
        default=120.0, gt=0, description="Seconds per attempt before it times out."
    )
    base_url: str | None = Field(
        default=None, description="The provider's base URL (an OpenAI-compatible server, a proxy)."
    )
    api_key_env: str | None = Field(
        default=None,
        description="The NAME of the environment variable that holds the key (never the key).",
    )
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Fields added to the provider's request body as they are."
    )
    rpm: float | None = Field(
        default=None, gt=0, description="At most this many requests a minute to this model."
    )
    tpm: float | None = Field(
        default=None, gt=0, description="At most this many tokens a minute (estimated first)."
    )
    repeat: int = Field(
        default=0,
        ge=0,
        description="Never sent; a non-zero value separates cache keys of repeated asks.",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_key_in_config(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "api_key" in data:
            raise ValueError(
                "api_key is never read from a config: put the key in an environment variable "
                "and name that variable with api_key_env"
            )
        return data

    @property
    def provider(self) -> str:
        """The prefix before the first ``/`` ('' when the model string has none)."""
        head, slash, _ = self.model.partition("/")
        return head if slash else ""

    @property
    def name(self) -> str:
        """The model name the provider knows, after the prefix."""
        head, slash, rest = self.model.partition("/")
        return rest if slash else head

    @classmethod
    def parse(cls, value: str | Mapping[str, Any] | ModelSpec, **defaults: Any) -> ModelSpec:
        """A spec from a model string or a mapping; ``defaults`` fill keys the value leaves unset."""
        if isinstance(value, ModelSpec):
            return value
        if isinstance(value, str):
            return cls(model=value, **defaults)
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            # dict() took a list of pairs as a mapping, and raised on anything else
            raise TypeError(
                f"expected a model string or a mapping (model, ...), got {_kind(value)}"
            )
        return cls(**{**defaults, **value})


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a mapping whose keys are not all strings"
    if value is None:
        return "null"
    named = {bool: "true/false", int: "a number", float: "a number", list: "a list"}
    return named.get(type(value), f"a {type(value).__name__}")


def close_inner(inner: object) -> None:
    """Close the client a wrapper holds, when it has a ``close`` (every wrapper's ``close``)."""
    close = getattr(inner, "close", None)
    if callable(close):
        close()


def qualify(model: str, provider: str | None) -> str:
    """``model`` with ``provider/`` put in front when it has no prefix (``--model-provider``)."""
    if provider is None or "/" in model:
        return model
    return f"{provider}/{model}"


class ModelRoles(BaseModel):
    """The model of each role: ``extract`` and ``ground``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    extract: ModelSpec = Field(
        default_factory=lambda: ModelSpec(model=DEFAULT_EXTRACT, max_tokens=EXTRACT_MAX_TOKENS),
        description="The extractor's model.",
    )
    ground: ModelSpec = Field(
        default_factory=lambda: ModelSpec(model=DEFAULT_GROUND, max_tokens=GROUND_MAX_TOKENS),
        description="The grounder's model.",
    )

    @classmethod
    def single(cls, model: str | ModelSpec) -> ModelRoles:
        """Every role on one model; grounding keeps its small ``max_tokens`` (256)."""
        extract = ModelSpec.parse(model, max_tokens=EXTRACT_MAX_TOKENS)
        ground = extract.model_copy(update={"max_tokens": GROUND_MAX_TOKENS})
        return cls(extract=extract, ground=ground)

    @classmethod
    def parse(cls, value: Mapping[str, Any] | None) -> ModelRoles:
        """Roles from a run config's ``models`` mapping: naming only ``extract`` grounds on it too."""
        if not value:
            return cls()
        unknown = sorted(set(value) - {"extract", "ground"})
        if unknown:
            raise ModelConfigError(
                f"models: unknown role {unknown[0]!r}; roles are extract, ground"
            )
        specs: dict[str, ModelSpec] = {}
        for role, tokens in (("extract", EXTRACT_MAX_TOKENS), ("ground", GROUND_MAX_TOKENS)):
            if role in value:
                try:
                    specs[role] = ModelSpec.parse(value[role], max_tokens=tokens)
                except TypeError as error:
                    raise ModelConfigError(f"models: {role}: {error}") from None
        if "ground" not in specs:
            return cls.single(specs["extract"])
        return cls(**specs)

    def with_model(self, model: str, provider: str | None = None) -> ModelRoles:
        """Every role on ``model`` (``--model``), each keeping its own other settings."""
        full = qualify(model, provider)
        return ModelRoles(
            extract=self.extract.model_copy(update={"model": full}),
            ground=self.ground.model_copy(update={"model": full}),
        )

    def with_limits(self, rpm: float | None = None, tpm: float | None = None) -> ModelRoles:
        """Every role limited to ``rpm`` requests and ``tpm`` tokens a minute (``--rpm``,
        ``--tpm``); None keeps each role's own."""
        update = {k: v for k, v in (("rpm", rpm), ("tpm", tpm)) if v is not None}
        if not update:
            return self
        return ModelRoles(
            extract=self.extract.model_copy(update=update),
            ground=self.ground.model_copy(update=update),
        )

    def with_provider(self, provider: str) -> ModelRoles:
        """Each role's model with ``provider/`` supplied where it has no prefix."""
        return ModelRoles(
            extract=self.extract.model_copy(
                update={"model": qualify(self.extract.model, provider)}
            ),
            ground=self.ground.model_copy(update={"model": qualify(self.ground.model, provider)}),
        )


@runtime_checkable
class LLMClient(Protocol):
    """Anything that answers a chat request: a provider, a cache, a meter, a recording."""

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The model's answer to ``messages``; an error result instead of raising on failure."""
        ...
