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
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from openodke.errors import InputError
from openodke.eval.engine.joins import member, mix
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
        self._types = dict(gold.types)
        g = gold.keys
        docs = gold.docs.hashes
        self._literals = np.unique(mix(docs[g.literal], g.object_name[g.literal]))
        self._entities = np.unique(
            mix(
                np.concatenate([docs, docs[~g.literal]]),
                np.concatenate([g.subject_name, g.object_name[~g.literal]]),
            )
        )
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
        entity = ~g.literal
        nodes = np.concatenate([g.subject_name, g.object_name[entity]])
        kinds = np.concatenate([self.gold_keys.subject_type, self.gold_keys.object_type[entity]])
        docs = np.concatenate([gold.docs.hashes, gold.docs.hashes[entity]])
        self._in_doc = _one_type(mix(docs, nodes), kinds)
        self._anywhere = _one_type(nodes, kinds)

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

    def _as_literals(self, table: KeyTable, docs: np.ndarray) -> KeyTable:
        """An untyped entity object named as a gold literal object of its document, and as no
        gold entity there, is that literal: without types, ``"1998"`` may be the year."""
        untyped = ~table.literal & (table.object_type == UNTYPED)
        if not untyped.any() or not len(self._literals):
            return table
        salted = table.object_name ^ LITERAL_NODE
        rows = np.flatnonzero(untyped)
        rows = rows[member(mix(docs[rows], salted[rows]), self._literals, ready=True)]
        entity = member(mix(docs[rows], table.object_name[rows]), self._entities, ready=True)
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
        for table, codes in ((self._in_doc, mix(docs, names)), (self._anywhere, names)):
            keys, gold_kinds = table
            if not len(keys):
                continue
            at = np.minimum(np.searchsorted(keys, codes), len(keys) - 1)
            found = entity & (keys[at] == codes)
            theirs = gold_kinds[at]
            take = found & ((out == UNTYPED) | (theirs == UNTYPED)) & (out != theirs)
            out[take] = theirs[take]
            entity = entity & ~found  # the document's answer stands
        return out


def _untyped(table: KeyTable) -> KeyTable:
    zeros = np.zeros(len(table), np.int64)
    return table.with_types(zeros, zeros)


def _one_type(codes: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The codes (sorted) that go with exactly one type, and that type."""
    if not len(codes):
        return codes, kinds
    order = np.lexsort((kinds, codes))
    c, k = codes[order], kinds[order]
    new = np.ones(len(c), bool)
    new[1:] = (c[1:] != c[:-1]) | (k[1:] != k[:-1])
    c, k = c[new], k[new]  # distinct (code, type) pairs
    single = np.ones(len(c), bool)
    single[1:] &= c[1:] != c[:-1]
    single[:-1] &= c[:-1] != c[1:]
    return c[single], k[single]
