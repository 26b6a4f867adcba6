"""The diagnosis's optional inputs, each read into one plain form.

- ``validator``: what the gate refused. Facts, or ``refused.jsonl`` rows (``{"fact", "reason"}``).
- ``lenient``: the ``--lenient`` file's decisions (``{doc_id, gold, prediction, same, ...}`` rows, or
  objects with those attributes). Only ``same`` decisions count.
- ``inverses``: an Ontology (its ``inverse_of`` both ways and ``symmetric``), pairs ``(p, q)``
  meaning (h p t) implies (t q h) (a bench set's ``inverses``), or a list of either.
- ``texts``: ``{doc_id: text}`` or Documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from openodke.eval.engine.matching import fact_key

if TYPE_CHECKING:  # the models load when a validator's or judge's rows are read, else never
    from openodke.types import Document, Fact

__all__ = ["as_fact", "confirmed_pairs", "inverse_pairs", "refused_facts", "text_map"]


def _field(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


def as_fact(value: Any) -> Fact:
    """A Fact from a Fact, a GoldFact, or their JSON forms."""
    from openodke.eval.stages.labels import GoldFact
    from openodke.types import Fact

    if isinstance(value, Fact):
        return value
    if isinstance(value, GoldFact):
        return value.fact
    if isinstance(value, Mapping):
        if "fact" in value and "subject" not in value:
            return as_fact(value["fact"])
        return Fact.model_validate(value)
    raise TypeError(f"expected a Fact or its JSON form, got {type(value).__name__}")


def refused_facts(validator: Iterable[Any]) -> list[tuple[Fact, str | None]]:
    """Each refused fact with the gate's reason (None when not given)."""
    from openodke.types import Fact

    out: list[tuple[Fact, str | None]] = []
    for row in validator:
        if isinstance(row, Fact):
            out.append((row, None))
        else:
            reason = _field(row, "reason")
            out.append(
                (as_fact(_field(row, "fact") or row), None if reason is None else str(reason))
            )
    return out


def confirmed_pairs(lenient: Iterable[Any]) -> dict[tuple[str, str], Fact]:
    """``(doc_id, gold key)`` -> the prediction a judge said is the same fact (``same``: true)."""
    confirmed: dict[tuple[str, str], Fact] = {}
    for row in lenient:
        if _field(row, "same") is not True:
            continue
        gold = as_fact(_field(row, "gold"))
        doc_id = _field(row, "doc_id")
        if doc_id is None:
            doc_id = gold.doc_ids[0] if gold.doc_ids else ""
        confirmed.setdefault((str(doc_id), fact_key(gold)), as_fact(_field(row, "prediction")))
    return confirmed


def inverse_pairs(inverses: Any) -> dict[str, tuple[str, ...]]:
    """Predicate -> the predicates a fact of it implies the other way round.

    From an Ontology: ``inverse_of`` (both ways) and ``symmetric`` (a predicate implies itself
    reversed). From pairs ``(p, q)``: p implies q reversed, as the bench set's ``inverses`` say
    (Re-DocRED's reverse rules are not all two-way). A list may mix both.
    """
    if inverses is None or (isinstance(inverses, (list, tuple)) and not inverses):
        return {}
    from openodke.ontology import Ontology  # only when inverses are given: most runs have none

    implied: dict[str, list[str]] = {}

    def add(p: str, q: str) -> None:
        targets = implied.setdefault(p, [])
        if q not in targets:
            targets.append(q)

    items = [inverses] if isinstance(inverses, Ontology) else list(inverses or ())
    if items and isinstance(items[0], str):
        items = [tuple(items)]  # a single pair given bare
    for item in items:
        if isinstance(item, Ontology):
            for name, pred in item.predicates.items():
                if pred.symmetric:
                    add(name, name)
                if pred.inverse_of and pred.inverse_of in item.predicates:
                    add(name, pred.inverse_of)
                    add(pred.inverse_of, name)
        else:
            p, q = item
            add(str(p), str(q))
    return {p: tuple(qs) for p, qs in implied.items()}


def text_map(texts: Mapping[str, str] | Iterable[Document] | None) -> dict[str, str]:
    """``{doc_id: text}`` from a mapping or Documents."""
    if texts is None:
        return {}
    if isinstance(texts, Mapping):
        return {str(k): str(v) for k, v in texts.items()}
    return {doc.id: doc.text for doc in texts}
