"""A fact's match key as one string: what the Fact-based paths (the judges' caches, the
diagnosis' joins on dataset evidence) name a fact by. The engine hashes the same parts
(:meth:`~openodke.eval.engine.key_table.KeyTable.of`), so a key string and a row's columns agree.
"""

from __future__ import annotations

import ast
from typing import Any, NamedTuple

from openodke.eval.engine.key_table import SEP
from openodke.forms import normalise_value

__all__ = ["MatchKey", "decode_key", "encode_key", "fact_key"]


class MatchKey(NamedTuple):
    """What matching reads of a fact: identity, with the literal object normalised."""

    predicate: str
    subject: str
    subject_type: str
    literal: bool
    object: str
    object_type: str
    polarity: str
    scoped: tuple[tuple[str, str], ...]


def encode_key(key: MatchKey) -> str:
    """One string per key: ``predicate␟subject␟type␟(L|E)object␟object type␟polarity␟scoped``
    (the keys as written; :mod:`~openodke.eval.engine.fold` says how they compare)."""
    scoped = repr(key.scoped) if key.scoped else ""
    kind = "L" if key.literal else "E"
    return SEP.join(
        (
            key.predicate,
            key.subject,
            key.subject_type,
            kind + key.object,
            key.object_type,
            key.polarity,
            scoped,
        )
    )


def decode_key(text: str) -> MatchKey:
    """The MatchKey an encoded key came from."""
    predicate, subject, subject_type, obj, object_type, polarity, scoped = text.split(SEP)
    return MatchKey(
        predicate,
        subject,
        subject_type,
        obj[0] == "L",
        obj[1:],
        object_type,
        polarity,
        ast.literal_eval(scoped) if scoped else (),
    )


def fact_key(fact: Any) -> str:
    """A fact's encoded key: a Fact's, or a decoded struct's (the same attributes)."""
    target = fact.object_entity
    literal = target is None
    q = fact.qualifiers
    return encode_key(
        MatchKey(
            fact.predicate,
            fact.subject.key,
            fact.subject.type,
            literal,
            normalise_value(fact.object_value) if literal else target.key,
            "" if literal else target.type,
            str(getattr(fact.polarity, "value", fact.polarity)),
            tuple(sorted((k, repr(q[k])) for k in fact.identity_keys if k in q)),
        )
    )
