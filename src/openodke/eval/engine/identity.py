"""What makes a prediction the same fact as a gold row (surface.md, "Entity identity when
matching"), applied to both sides' key tables before matching.

Names already compare as users mean them (:mod:`~openodke.eval.engine.fold`). Types:

- ``--type-map FILE`` (their type → ours) renames types first; with an ontology, a type it knows
  by a name or an alias, in any case, becomes that type;
- an entity whose source gave no type (``Thing``) takes the type of the gold entity of the same
  name in its document (else anywhere, when that name has one type in the whole gold), and a
  prediction's end named like an untyped gold entity drops its type: untyped matches any type;
- an untyped entity object named like a gold literal object of its document is that literal
  (without types, ``"1998"`` may be the year);
- two different declared types never match;
- ``match="names"`` compares no types at all: (subject name, predicate, object), as
  Text2KGBench's scorer does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from openodke.errors import InputError
from openodke.eval.engine.joins import distinct, member, mix
from openodke.eval.engine.key_table import UNTYPED, UNTYPED_NAMES, DocColumn, KeyTable
from openodke.eval.engine.keyhash import LITERAL_NODE
from openodke.safeio import read_json

if TYPE_CHECKING:
    from openodke.eval.engine.columns import FactColumns
    from openodke.ontology import Ontology

__all__ = ["MATCH_MODES", "Aligner", "Identity", "read_type_map"]

MATCH_MODES = ("identity", "names")
"""``--match``: entities by name and type (the default), or by name alone."""


@dataclass(frozen=True)
class Identity:
    """How ends compare: ``match`` (``"identity"`` or ``"names"``), ``type_map`` (a type as a
    prediction spells it → the type it means) and ``ontology`` (its types' names and aliases)."""

    match: Literal["identity", "names"] = "identity"
    type_map: Mapping[str, str] = field(default_factory=dict)
    ontology: Ontology | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.match not in MATCH_MODES:
            raise InputError(f"--match: {self.match!r} is not one of {', '.join(MATCH_MODES)}")

    def renamed(self, name: str) -> str | None:
        """The type ``name`` means, when the map or the ontology renames it (None: it does not)."""
        ours = self.type_map.get(name)
        if ours is None and self.ontology is not None:
            found = self.ontology.entity_type(name)
            ours = found.name if found is not None else None
        return None if ours == name else ours


def read_type_map(path: str | Path) -> dict[str, str]:
    """A ``--type-map`` file: a JSON object, their type name → ours."""
    data = read_json(path, what="a --type-map file (a JSON object, their type -> ours)")
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and v for k, v in data.items()
    ):
        raise InputError(
            'a type map is a JSON object of type names, e.g. {"Organization": "Company"}',
            path=str(path),
        )
    return data


class Aligner:
    """The types one scoring compares by, worked out from the gold once and applied to any
    prediction-side table (the predictions, what a replayed fix would add, refused facts)."""

    def __init__(self, gold: FactColumns, identity: Identity) -> None:
        self.identity = identity
        self._gold = gold
        self._types = dict(gold.types)
        g = gold.keys
        if identity.match == "names":
            self.gold_keys = _untyped(g)
            return
        s_type, o_type = self._mapped(g.subject_type), self._mapped(g.object_type)
        self.gold_keys = (
            g
            if s_type is None and o_type is None
            else g.with_types(
                g.subject_type if s_type is None else s_type,
                g.object_type if o_type is None else o_type,
            )
        )

    def keys(self, table: KeyTable, docs: DocColumn, types: Mapping[int, str]) -> KeyTable:
        """``table`` (prediction rows citing ``docs``; ``types`` names its type hashes) with the
        effective types matching compares."""
        if self.identity.match == "names":
            return self._as_literals(_untyped(table), docs.hashes)
        self._types.update(types)
        s_type = self._mapped(table.subject_type)
        o_type = self._mapped(table.object_type)
        s_type = table.subject_type if s_type is None else s_type
        o_type = table.object_type if o_type is None else o_type
        s_type = self._resolved(table.subject_name, s_type, docs.hashes, np.ones(len(table), bool))
        o_type = self._resolved(table.object_name, o_type, docs.hashes, ~table.literal)
        aligned = table.with_types(s_type, o_type)
        return self._as_literals(aligned, docs.hashes)

    # The gold's entity ends (document, name, effective type), joined only when a prediction
    # has an untyped end or the gold an untyped entity: most runs need none of it.

    @cached_property
    def _ends(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        g, docs = self.gold_keys, self._gold.docs.hashes
        entity = ~g.literal
        return (
            np.concatenate([docs, docs[entity]]),
            np.concatenate([g.subject_name, g.object_name[entity]]),
            np.concatenate([g.subject_type, g.object_type[entity]]),
        )

    @cached_property
    def _gold_untyped(self) -> bool:
        return bool(np.any(self._ends[2] == UNTYPED))

    @cached_property
    def _one_types(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        docs, names, kinds = self._ends
        return _one_type(mix(docs, names), kinds), _one_type(names, kinds)

    @cached_property
    def _literals(self) -> tuple[np.ndarray, np.ndarray]:
        """The gold's (document, literal object) codes, and its (document, entity) codes."""
        g, docs = self._gold.keys, self._gold.docs.hashes
        ends_docs, names, _ = self._ends
        return distinct(mix(docs[g.literal], g.object_name[g.literal])), distinct(
            mix(ends_docs, names)
        )

    def _as_literals(self, table: KeyTable, docs: np.ndarray) -> KeyTable:
        """An untyped entity object named as a gold literal object of its document, and as no
        gold entity there, is that literal: without types, ``"1998"`` may be the year."""
        rows = np.flatnonzero(~table.literal & (table.object_type == UNTYPED))
        if not len(rows) or not self._gold.keys.literal.any():
            return table
        literals, entities = self._literals
        salted = table.object_name ^ LITERAL_NODE
        rows = rows[member(mix(docs[rows], salted[rows]), literals, ready=True)]
        entity = member(mix(docs[rows], table.object_name[rows]), entities, ready=True)
        rows = rows[~entity]  # named like a gold entity too: it stays an entity
        if not len(rows):
            return table
        literal, name = table.literal.copy(), table.object_name.copy()
        literal[rows] = True
        name[rows] = salted[rows]
        return replace(table, literal=literal, object_name=name)

    def _mapped(self, kinds: np.ndarray) -> np.ndarray | None:
        """The type column renamed through the map and the ontology (None: nothing renamed)."""
        if not self.identity.type_map and self.identity.ontology is None:
            return None
        distinct = np.unique(kinds)
        target = distinct.copy()
        for k, h in enumerate(distinct.tolist()):
            name = self._types.get(h)
            ours = self.identity.renamed(name) if name is not None else None
            if ours is not None:
                target[k] = UNTYPED if ours in UNTYPED_NAMES else hash(ours)
                self._types.setdefault(hash(ours), ours)
        if np.array_equal(target, distinct):
            return None
        return target[np.searchsorted(distinct, kinds)]

    def _resolved(
        self, names: np.ndarray, kinds: np.ndarray, docs: np.ndarray, entity: np.ndarray
    ) -> np.ndarray:
        """Untyped ends take the gold's one type for their name (in their document, else
        anywhere); ends named like an untyped gold entity drop theirs."""
        out = kinds.copy()
        # Only untyped ends can change, and typed ones only where the gold has untyped entities.
        ask = entity if self._gold_untyped else entity & (out == UNTYPED)
        rows = np.flatnonzero(ask)
        if not len(rows):
            return out
        in_doc, anywhere = self._one_types
        for (keys, gold_kinds), by_doc in ((in_doc, True), (anywhere, False)):
            codes = mix(docs[rows], names[rows]) if by_doc else names[rows]
            if not len(keys) or not len(rows):
                continue
            at = np.minimum(np.searchsorted(keys, codes), len(keys) - 1)
            found = keys[at] == codes
            theirs, mine = gold_kinds[at], out[rows]
            take = found & ((mine == UNTYPED) | (theirs == UNTYPED)) & (mine != theirs)
            out[rows[take]] = theirs[take]
            rows = rows[~found]  # the document's answer stands
        return out


def _untyped(table: KeyTable) -> KeyTable:
    zeros = np.zeros(len(table), np.int64)
    return table.with_types(zeros, zeros)


def _one_type(codes: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The codes (sorted) that go with exactly one type, and that type."""
    if not len(codes):
        return codes, kinds
    order = np.argsort(codes)
    c, k = codes[order], kinds[order]
    start = np.flatnonzero(np.concatenate(([True], c[1:] != c[:-1])))
    one = np.minimum.reduceat(k, start) == np.maximum.reduceat(k, start)
    return c[start[one]], k[start[one]]
