"""What each kind of sheet shows and what its ticks become.

| kind | an item shows | boxes | read back as |
|---|---|---|---|
| grounding | the claim and its passage | supported, contradicted, not_found | GroundingLabel |
| pair | two entity keys | same, different | PairLabel |
| fact | a gold fact, a prediction and the passage | same, different | FactPairLabel (label set F) |
| refusal | the claim, the verdict and reason, any gold, the text | refusal correct, refusal wrong, gold wrong, unsure | RefusalLabel |
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.errors import InputError
from openodke.eval.engine.jsonl import validation_message
from openodke.eval.judges.claims import claim_text, fact_words
from openodke.eval.judges.sheets import SheetItem, Ticked, blockquote
from openodke.eval.refusals import RefusalLabel
from openodke.eval.stages.labels import GroundingLabel, PairLabel
from openodke.types import Fact

__all__ = [
    "BOXES",
    "KINDS",
    "FactPairLabel",
    "fact_item",
    "grounding_item",
    "label_rows",
    "pair_item",
    "refusal_item",
]

BOXES: dict[str, tuple[str, ...]] = {
    "grounding": ("supported", "contradicted", "not_found"),
    "pair": ("same", "different"),
    "fact": ("same", "different"),
    "refusal": ("refusal correct", "refusal wrong", "gold wrong", "unsure"),
}
KINDS = ("grounding", "pair", "fact")
"""The kinds ``odke label make`` takes; refusal sheets come from ``odke eval refusals``."""


class FactPairLabel(BaseModel):
    """Label set F: whether a prediction is a gold fact in other words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_id: str = Field(description="The document both facts are in.")
    gold: Fact
    prediction: Fact
    passage: str = Field(description="What the person read.")
    same: bool


def _short_id(*parts: str) -> str:
    return "p" + hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:11]


def grounding_item(fact: Fact, text: str, doc_id: str | None = None) -> SheetItem:
    """A claim and the passage it is checked against."""
    where = f" ({doc_id})" if doc_id else ""
    body = f"**Claim:** {claim_text(fact)}\n\n**Passage**{where}:\n\n{blockquote(text)}"
    payload = {"fact": fact.model_dump(mode="json"), "text": text, "doc_id": doc_id}
    return SheetItem(fact.id, body, BOXES["grounding"], payload)


def pair_item(a: str, b: str) -> SheetItem:
    """Two entity keys: do they name the same thing?"""
    body = f"**A:** `{a}`\n\n**B:** `{b}`"
    return SheetItem(_short_id(a, b), body, BOXES["pair"], {"a": a, "b": b})


def fact_item(doc_id: str, gold: Fact, prediction: Fact, passage: str) -> SheetItem:
    """A gold fact and a prediction: the same fact in other words?"""
    body = (
        f"**Relation:** {gold.predicate.replace('_', ' ')}\n\n"
        f"**Gold:** {fact_words(gold)}\n\n**Prediction:** {fact_words(prediction)}\n\n"
        f"**Passage** ({doc_id}):\n\n{blockquote(passage)}"
    )
    payload = {
        "doc_id": doc_id,
        "gold": gold.model_dump(mode="json"),
        "prediction": prediction.model_dump(mode="json"),
        "passage": passage,
    }
    return SheetItem(_short_id(doc_id, gold.id, prediction.id), body, BOXES["fact"], payload)


def refusal_item(row: Mapping[str, Any]) -> SheetItem:
    """A refused claim: was the refusal right? ``row`` holds RefusalLabel's fields but judgement."""
    gold = {True: "the gold has this fact", False: "the gold lacks it", None: "no gold"}[
        row.get("gold")
    ]
    body = (
        f"**Claim:** {row['claim']}\n\n**Verdict:** {row['verdict']}: {row['reason']}\n\n"
        f"**Gold:** {gold}\n\n**Text:**\n\n{blockquote(str(row['text']))}"
    )
    return SheetItem(str(row["id"]), body, BOXES["refusal"], dict(row))


def _row(model: type[BaseModel], data: Mapping[str, Any], ticked: Ticked) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InputError(
            f"item's odke item line: {validation_message(error)}",
            path=ticked.sheet,
            line=ticked.line,
        ) from None


def label_rows(ticks: Sequence[Ticked]) -> list[BaseModel]:
    """Each ticked item as its label row (see the table above)."""
    rows: list[BaseModel] = []
    for t in ticks:
        p = {k: v for k, v in t.payload.items()}
        if t.kind == "grounding":
            rows.append(
                _row(
                    GroundingLabel,
                    {
                        "text": p.get("text"),
                        "fact": p.get("fact"),
                        "verdict": t.box,
                        "doc_id": p.get("doc_id"),
                    },
                    t,
                )
            )
        elif t.kind == "pair":
            rows.append(
                _row(PairLabel, {"a": p.get("a"), "b": p.get("b"), "same": t.box == "same"}, t)
            )
        elif t.kind == "fact":
            p.pop("id", None)
            rows.append(_row(FactPairLabel, {**p, "same": t.box == "same"}, t))
        else:
            rows.append(_row(RefusalLabel, {**p, "judgement": t.box.replace(" ", "_")}, t))
    return rows
