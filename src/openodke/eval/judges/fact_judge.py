"""FactJudge: is a near miss the gold fact in other words? (prompt ``fact_equiv@1``)

The judge reads the relation, both facts and the gold fact's evidence sentences, and answers
``same`` or ``different``. It asks twice, each fact first once, and a pair is the same fact only
when both orders say so (DECISIONS #39). A call that fails, or an answer it cannot read, counts
neither way: the pair's ``same`` is then None.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.eval.judges.claims import fact_words
from openodke.llm.base import (
    GROUND_MAX_TOKENS,
    LLMClient,
    LLMResponse,
    Message,
    ModelRoles,
    ModelSpec,
)
from openodke.types import Fact

__all__ = [
    "FACT_EQUIV",
    "FACT_EQUIV_SCHEMA",
    "Answer",
    "FactJudge",
    "Verdict",
    "default_client",
    "fact_equiv_messages",
]

FACT_EQUIV = "fact_equiv@1"

FACT_EQUIV_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["same", "different"]},
        "why": {"type": "string"},
    },
    "required": ["decision"],
    "additionalProperties": False,
}

_SYSTEM = (
    "You decide whether two statements of one relation are the same fact in other words. "
    "Another name for the same entity (a full name, a nickname, an abbreviation, a spelling, a "
    "translation) or a date or number written another way or more or less precisely, where both "
    "agree, is the same fact. Another entity, another value, or the relation the other way round "
    "is a different fact. Use the passage to tell what the names refer to. Answer with JSON only."
)

_USER = """Relation: {relation}

Fact 1: {first}
Fact 2: {second}

Passage:
{passage}

Are Fact 1 and Fact 2 the same fact? Answer {{"decision": "same"}} or {{"decision": "different"}}, \
with "why" in a few words."""

Order = Literal["gold first", "prediction first"]


class Answer(BaseModel):
    """One order's answer: same, different, or None when the call failed or could not be read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    order: Order = Field(description="Which fact the prompt showed as Fact 1.")
    decision: Literal["same", "different"] | None = Field(
        description="The judge's decision; null when the call failed or the answer was unreadable."
    )
    why: str | None = Field(default=None, description="The judge's reason, when it gave one.")
    error: str | None = Field(default=None, description="Why the answer counts neither way.")
    cached: bool = Field(default=False, description="Answered from the response cache.")


class Verdict(BaseModel):
    """Both orders' answers and what they add up to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    answers: tuple[Answer, Answer]
    same: bool | None = Field(
        description="True when both orders say same; False when either says different and none "
        "failed; null when a call failed (counts neither way)."
    )
    why: str


def fact_equiv_messages(relation: str, first: str, second: str, passage: str) -> list[Message]:
    """The ``fact_equiv@1`` request: the system rule and one question, ``first`` as Fact 1."""
    user = _USER.format(
        relation=relation, first=first, second=second, passage=passage.strip() or "(no passage)"
    )
    return [
        {"role": "system", "content": _SYSTEM, "prompt": FACT_EQUIV},
        {"role": "user", "content": user, "prompt": FACT_EQUIV},
    ]


def default_client(spec: ModelSpec) -> LLMClient:
    """The live, cached client for ``spec`` (``openodke.llm.client_for``): an unknown provider or
    a missing key is a ModelConfigError (exit 2) before any call."""
    from openodke.llm import client_for

    return client_for(spec)


def _read(response: LLMResponse, order: Order) -> Answer:
    if response.error is not None:
        return Answer(order=order, decision=None, error=response.error, cached=response.cached)
    parsed = response.parsed
    why = None
    word: Any = None
    if isinstance(parsed, Mapping):
        word = parsed.get("decision")
        why = parsed.get("why") if isinstance(parsed.get("why"), str) else None
    elif isinstance(parsed, str):
        word = parsed
    else:
        word = response.text
    decision = _word(word)
    if decision is None:
        shown = (response.text or repr(parsed))[:80]
        return Answer(
            order=order,
            decision=None,
            error=f"unreadable answer: {shown!r}",
            cached=response.cached,
        )
    return Answer(order=order, decision=decision, why=why, cached=response.cached)


def _word(value: Any) -> Literal["same", "different"] | None:
    """``same`` or ``different`` from an answer: case and surrounding punctuation ignored."""
    if not isinstance(value, str):
        return None
    word = value.strip().strip(string.punctuation + " \n\t").casefold()
    if word == "same":
        return "same"
    if word in ("different", "not same", "not the same"):
        return "different"
    return None


def _sum(answers: tuple[Answer, Answer]) -> tuple[bool | None, str]:
    failed = [a for a in answers if a.decision is None]
    if failed:
        return None, f"{failed[0].order}: {failed[0].error}; counts neither way"
    different = [a for a in answers if a.decision == "different"]
    if not different:
        return True, "same in both orders"
    a = different[0]
    return False, f"{a.order}: different" + (f" ({a.why})" if a.why else "")


class FactJudge:
    """Asks a model whether a prediction is a gold fact in other words (``fact_equiv@1``).

    ``client`` answers the calls (default: a live, cached client for the model); ``roles`` is a
    ModelRoles (its ground role's model is asked), a ModelSpec or a model string. ``relations`` maps a predicate to a description shown with it.
    """

    prompt = FACT_EQUIV

    def __init__(
        self,
        client: LLMClient | None = None,
        roles: ModelRoles | ModelSpec | str | None = None,
        *,
        relations: Mapping[str, str] | None = None,
    ) -> None:
        if isinstance(roles, ModelRoles) or roles is None:
            self.spec = (roles or ModelRoles()).ground
        else:
            self.spec = ModelSpec.parse(roles, max_tokens=GROUND_MAX_TOKENS)
        self.client = client if client is not None else default_client(self.spec)
        self.relations = dict(relations or {})

    @property
    def model(self) -> str:
        """The model asked: the ground role's."""
        return self.spec.model

    def relation(self, predicate: str) -> str:
        """The relation as the prompt shows it: its words, and its description when known."""
        words = predicate.replace("_", " ")
        described = self.relations.get(predicate)
        return f"{words} ({described})" if described else words

    def ask(self, gold: Fact, prediction: Fact, passage: str) -> Verdict:
        """Both orders' answers for one pair, and whether they add up to the same fact."""
        relation = self.relation(gold.predicate)
        g, p = fact_words(gold), fact_words(prediction)
        answers = (
            self._one(relation, g, p, passage, "gold first"),
            self._one(relation, p, g, passage, "prediction first"),
        )
        same, why = _sum(answers)
        return Verdict(answers=answers, same=same, why=why)

    def equivalent(self, gold: Fact, prediction: Fact, passage: str = "") -> bool | None:
        """The hook: True when both orders say same, False when not, None when a call failed."""
        return self.ask(gold, prediction, passage).same

    def _one(self, relation: str, first: str, second: str, passage: str, order: Order) -> Answer:
        messages = fact_equiv_messages(relation, first, second, passage)
        return _read(self.client.complete(messages, self.spec, FACT_EQUIV_SCHEMA), order)
