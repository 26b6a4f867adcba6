"""What makes a prediction the same fact as a gold row (surface.md, "Entity identity when
matching"), applied to both sides' key tables before matching.

Names already compare as users mean them (:mod:`~openodke.eval.engine.fold`). Both sides then go
through the same steps (DECISIONS 115-120, 121-129):

- predicates: with an ontology, a name, label or alias in any case is that predicate;
- types compare case-insensitively; ``--type-map FILE`` (their type → ours, keys in any case)
  renames types first; with an ontology, a type it knows by a name or an alias becomes that type;
- an untyped end whose key reads ``Type:name``, the prefix naming a declared type (the ontology's,
  or without one a type either side uses), is ``name`` of that type;
- with an ontology, a literal of a predicate whose range is a string compares as a string (case
  and whitespace folded, never read as a number);
- a prediction's document is the labelled document it names by id, in any letter case or by file
  stem, for every rule below that looks a document up;
- an entity whose source gave no type (``Thing``) takes the type of the gold entity of the same
  name in its document (else anywhere, when that name has one type in the whole gold; else the
  type the gold gives that end of the same fact), and a prediction's end named like an untyped
  gold entity drops its type: untyped matches any type;
- an untyped entity object named like a gold literal object of its document is that literal
  (without types, ``"1998"`` may be the year), and a literal named like an untyped gold entity
  object is that entity;
- when most predicted entity names are no gold entity's, each end also goes by its ``label`` and
  ``aliases``;
- two different declared types never match;
- ``match="names"`` compares no types at all: (subject name, predicate, object), as
  Text2KGBench's scorer does; ``match="exact"`` folds no key (case, ``Type:`` prefix) and no type
  name.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from openodke.errors import InputError
from openodke.eval.engine.fold import fold, key_parts, node_of
from openodke.eval.engine.joins import distinct, first_of_each, member, mix, search
from openodke.eval.engine.key_table import SEP, UNTYPED, UNTYPED_NAMES, DocColumn, KeyTable
from openodke.eval.engine.keyhash import LITERAL_NODE
from openodke.eval.engine.matching import labelled_documents, scored_documents
from openodke.eval.engine.rows import fetch_each, values_of
from openodke.forms import lookup_form

if TYPE_CHECKING:
    from openodke.doc_ids import DocIds
    from openodke.eval.engine.columns import FactColumns
    from openodke.ontology import Ontology

__all__ = ["MATCH_MODES", "STRING_RANGES", "Aligner", "Identity", "TypeMap", "read_type_map"]

MATCH_MODES = ("identity", "names", "exact")
"""``--match``: entities by name and type (the default), by name alone, or by key and type as
written (no folding)."""
STRING_RANGES = frozenset({"string", "text"})
"""Ranges whose literals compare as strings, never as numbers."""
_UNTYPED_FOLDED = frozenset(fold(n) for n in UNTYPED_NAMES)
Docs = Callable[[], np.ndarray]
"""Each row's document hash, worked out when first asked (most runs never need it)."""


class TypeMap(dict[str, str]):
    """A ``--type-map``: their type → ours, with the file it was read from (``path``)."""

    path: str | None = None

    @classmethod
    def copy_of(cls, mapping: Mapping[str, str] | None) -> TypeMap:
        """A copy of ``mapping`` that keeps the file it was read from, if it was."""
        out = cls(mapping or {})
        out.path = getattr(mapping, "path", None)
        return out


@dataclass(frozen=True)
class Identity:
    """How ends compare: ``match`` (``"identity"``, ``"names"`` or ``"exact"``), ``type_map`` (a
    type as a prediction spells it, in any case → the type it means) and ``ontology`` (its types'
    and predicates' names, labels and aliases; its ranges)."""

    match: Literal["identity", "names", "exact"] = "identity"
    type_map: Mapping[str, str] = field(default_factory=dict)
    ontology: Ontology | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.match not in MATCH_MODES:
            raise InputError(f"--match: {self.match!r} is not one of {', '.join(MATCH_MODES)}")

    @cached_property
    def _folded_map(self) -> dict[str, str]:
        return {fold(k): v for k, v in self.type_map.items()}

    def renamed(self, name: str) -> str | None:
        """The type ``name`` means, when the map or the ontology renames it (None: it does not)."""
        if self.match == "exact":
            ours = self.type_map.get(name)
        else:
            ours = self._folded_map.get(fold(name))
        if ours is None and self.ontology is not None:
            found = self.ontology.entity_type(name)
            ours = found.name if found is not None else None
        return None if ours == name else ours


def read_type_map(path: str | Path) -> TypeMap:
    """A ``--type-map`` file: a JSON object, their type name → ours."""
    from openodke.safeio.jsonio import read_json  # pydantic: only for a --type-map

    data = read_json(path, what="a --type-map file (a JSON object, their type -> ours)")
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and v for k, v in data.items()
    ):
        raise InputError(
            'a type map is a JSON object of type names, e.g. {"Organization": "Company"}',
            path=str(path),
        )
    out = TypeMap(data)
    out.path = str(path)
    return out


def _remap(column: np.ndarray, src: list[int], dst: list[int]) -> np.ndarray | None:
    """``column`` with each value of ``src`` replaced by its ``dst`` (None: nothing to replace)."""
    if not src or not len(column):
        return None
    order = np.argsort(np.asarray(src, np.int64))
    s, d = np.asarray(src, np.int64)[order], np.asarray(dst, np.int64)[order]
    at = np.minimum(search(s, column), len(s) - 1)
    hit = s[at] == column
    if not hit.any():
        return None
    out = column.copy()
    out[hit] = d[at[hit]]
    return out


class Aligner:
    """The types, names and documents one scoring compares by, worked out from the gold once and
    applied to any prediction-side table (the predictions, what a replayed fix would add, refused
    facts).

    ``documents`` names the labelled documents beyond the gold's (as ``match_keys`` takes them);
    ``predicted`` the predictions: their type names say (without an ontology) which ``Type:``
    prefixes of untyped gold keys are types.
    """

    def __init__(
        self,
        gold: FactColumns,
        identity: Identity,
        documents: Iterable[str] | DocIds | None = None,
        predicted: FactColumns | None = None,
    ) -> None:
        self.identity = identity
        self._gold = gold
        self.doc_ids, self._doc_hashes = labelled_documents(gold.docs, documents)
        self._types = dict(gold.types)
        self._canon: dict[str, int] = {}
        self._exact = identity.match == "exact"
        self._check_type_map(gold.types)
        g = self._predicates(gold.keys)
        if identity.match == "names":
            self.gold_keys = _untyped(g)
            return
        theirs = predicted.types if predicted is not None else {}
        self._prefix_types = self._declared({**gold.types, **theirs})
        g = self._typed(g, gold.types)
        self._gold_table = g
        self._uncited: np.ndarray | None = None
        g = self._prefixed(g, gold, lambda: gold.docs.hashes, gold=True)
        g = self._strings(g, gold)
        if self._exact:
            g = self._as_written(g, gold)
        self.gold_keys = g

    # --- the steps both sides take -----------------------------------------------------------

    def _check_type_map(self, gold_types: Mapping[int, str]) -> None:
        """A map naming a type neither the ontology nor the gold has is refused, naming them."""
        targets = dict.fromkeys(self.identity.type_map.values())
        if not targets:
            return
        onto = self.identity.ontology
        known = {fold(n) for n in gold_types.values()} | _UNTYPED_FOLDED
        unknown = [
            t
            for t in targets
            if fold(t) not in known and (onto is None or onto.entity_type(t) is None)
        ]
        if unknown:
            listed = ", ".join(repr(t) for t in unknown)
            theirs = sorted({n for n in gold_types.values() if fold(n) not in _UNTYPED_FOLDED})
            if onto is not None:
                theirs = sorted(onto.types)
            where = "the ontology's" if onto is not None else "the gold's"
            raise InputError(
                f"--type-map: {listed} {'is' if len(unknown) == 1 else 'are'} no type of the "
                f"ontology or the gold ({where} types: {', '.join(theirs[:12]) or 'none'})",
                path=getattr(self.identity.type_map, "path", None),
            )

    def _target(self, name: str, h: int) -> int:
        """The type hash ``name`` (hashed ``h``) compares as."""
        ours = self.identity.renamed(name)
        final = name if ours is None else ours
        if self._exact:
            return UNTYPED if final in UNTYPED_NAMES else (h if ours is None else hash(final))
        folded = fold(final)
        if folded in _UNTYPED_FOLDED:
            return UNTYPED
        target = self._canon.setdefault(folded, h if ours is None else hash(final))
        self._types.setdefault(target, final)
        return target

    def _typed(self, table: KeyTable, types: Mapping[int, str]) -> KeyTable:
        """Type columns renamed through the map, the ontology and letter case."""
        src, dst = [], []
        for h, name in types.items():
            t = self._target(name, h)
            if t != h:
                src.append(h)
                dst.append(t)
        s = _remap(table.subject_type, src, dst)
        o = _remap(table.object_type, src, dst)
        if s is None and o is None:
            return table
        return table.with_types(
            table.subject_type if s is None else s, table.object_type if o is None else o
        )

    def _predicates(self, table: KeyTable) -> KeyTable:
        """Predicates named by the ontology's label or an alias become its name."""
        onto = self.identity.ontology
        if onto is None:
            return table
        src, dst, named = [], [], dict(table.predicates)
        for h, name in table.predicates.items():
            found = onto.predicate(name)
            if found is None:
                continue
            t = hash(lookup_form(found.name))
            if t != h:
                src.append(h)
                dst.append(t)
                named.setdefault(t, found.name)
        column = _remap(table.predicate, src, dst)
        return table if column is None else replace(table, predicate=column, predicates=named)

    def _declared(self, types: Mapping[int, str]) -> dict[int, int]:
        """Folded prefix hash → the type it names: the ontology's types and aliases, else every
        declared type of ``types``."""
        onto = self.identity.ontology
        out: dict[int, int] = {}
        if onto is not None:
            for name, entry in onto.types.items():
                target = self._target(name, hash(name))
                for spelling in (name, *getattr(entry, "aliases", ())):
                    out.setdefault(hash(fold(spelling)), target)
            return out
        for h, name in types.items():
            if fold(name) not in _UNTYPED_FOLDED:
                out.setdefault(hash(fold(name)), self._target(name, h))
        return out

    def _prefixed(
        self, table: KeyTable, columns: FactColumns | None, docs: Docs, *, gold: bool = False
    ) -> KeyTable:
        """An untyped end keyed ``Type:name``, the prefix naming a declared type, is ``name`` of
        that type. The keys are read once per distinct entity, only for untyped prefixed ends.

        A key written exactly as another end's is left to the later rules (the same name's
        type): a gold end keyed as a typed gold end of its document, a predicted end keyed as
        any gold end. (``Person:eve`` typed ``Org`` contradicts its prefix; the untyped
        ``Person:eve`` is then that entity, not a Person.)
        """
        if not self._prefix_types or self._exact:
            return table
        if columns is None and table.strings is None:
            return table  # neither rows nor key strings to read the prefixes from
        s_type, o_type = table.subject_type, table.object_type
        s_name, o_name = table.subject_name, table.object_name
        changed = False
        for subject in (True, False):
            kinds = s_type if subject else o_type
            ask = kinds == UNTYPED
            if not subject:
                ask &= ~table.literal
            if columns is not None:
                node = columns.subject_node if subject else columns.object_node
                ask &= node != (columns.subject_bare if subject else columns.object_bare)
            else:
                node = table.subject_name if subject else table.object_name
            rows = np.flatnonzero(ask)
            if len(rows):  # keyed as a typed gold end of its document (uncited: anywhere)
                codes, names = self._gold_typed
                keep = ~member(mix(docs()[rows], node[rows]), codes, ready=True)
                if not gold and self._uncited is not None:
                    uncited = self._uncited[rows]
                    keep[uncited] = ~member(node[rows[uncited]], names, ready=True)
                rows = rows[keep]
            if not len(rows):
                continue
            found, rest = self._prefix_of(table, columns, rows, subject)
            typed = found != UNTYPED
            take = rows[typed]
            if not len(take):
                continue
            changed = True
            if subject:
                s_type, s_name = s_type.copy(), s_name.copy()
                s_type[take], s_name[take] = found[typed], rest[typed]
            else:
                o_type, o_name = o_type.copy(), o_name.copy()
                o_type[take], o_name[take] = found[typed], rest[typed]
        if not changed:
            return table
        return replace(
            table, subject_type=s_type, object_type=o_type, subject_name=s_name, object_name=o_name
        )

    def _prefix_of(
        self, table: KeyTable, columns: FactColumns | None, rows: np.ndarray, subject: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """For ``rows``' subject (or object) ends: the type their key's prefix names
        (:data:`UNTYPED`: none) and the name after it. Read once per distinct entity from the
        rows, or (a replayed table) from the key strings."""
        if columns is not None:
            names = (columns.subject_names if subject else columns.object_names)[rows]
            _, first, inverse = np.unique(names, return_index=True, return_inverse=True)

            def prefix_type(f: Any) -> int:
                end = f.subject if subject else f.object_entity
                return self._prefix_types.get(key_parts(end.key)[1], UNTYPED)

            found = values_of(columns.rows, rows[first], prefix_type)[inverse]
            bare = columns.subject_bare if subject else columns.object_bare
            return found, bare[rows]
        strings = table.strings
        assert strings is not None
        parts = [key_parts(_key_of(strings[r], subject)) for r in rows.tolist()]
        found = np.fromiter(
            (self._prefix_types.get(p[1], UNTYPED) for p in parts), np.int64, len(parts)
        )
        return found, np.fromiter((p[2] for p in parts), np.int64, len(parts))

    @cached_property
    def _gold_typed(self) -> tuple[np.ndarray, np.ndarray]:
        """The gold's typed entity ends: (document, name) codes, and names (both sorted)."""
        g, docs = self._gold_table, self._gold.docs.hashes
        s = g.subject_type != UNTYPED
        o = ~g.literal & (g.object_type != UNTYPED)
        names = np.concatenate([g.subject_name[s], g.object_name[o]])
        codes = mix(np.concatenate([docs[s], docs[o]]), names)
        return distinct(codes), distinct(names)

    def _strings(self, table: KeyTable, columns: FactColumns | None) -> KeyTable:
        """Literals of a predicate the ontology ranges as a string compare as strings."""
        onto = self.identity.ontology
        if onto is None or columns is None or not table.literal.any():
            return table
        strings = []
        for h, name in table.predicates.items():
            found = onto.predicate(name)
            if (
                found is not None
                and "range" in found.model_fields_set
                and found.range.casefold() in STRING_RANGES
                and hash(lookup_form(found.name)) == h
            ):
                strings.append(h)
        if not strings:
            return table
        rows = table.literal & np.isin(table.predicate, strings)
        if not rows.any():
            return table
        return replace(table, object_name=np.where(rows, columns.object_bare, table.object_name))

    def _as_written(self, table: KeyTable, columns: FactColumns | None) -> KeyTable:
        """``match="exact"``: each entity end goes by its key as written (no case folding, no
        ``Type:`` prefix dropped); read once per distinct entity."""
        if columns is None:
            return table
        s_name, o_name = table.subject_name.copy(), table.object_name.copy()
        for subject in (True, False):
            rows = np.arange(len(table)) if subject else np.flatnonzero(~table.literal)
            if not len(rows):
                continue
            names = (columns.subject_names if subject else columns.object_names)[rows]
            _, first, inverse = np.unique(names, return_index=True, return_inverse=True)

            def written(f: Any, subject: bool = subject) -> int:
                return hash(" ".join((f.subject if subject else f.object_entity).key.split()))

            keys = values_of(columns.rows, rows[first], written)[inverse]
            (s_name if subject else o_name)[rows] = keys
        return replace(table, subject_name=s_name, object_name=o_name)

    # --- the prediction side ---------------------------------------------------------------------

    def keys(
        self,
        table: KeyTable,
        docs: DocColumn,
        types: Mapping[int, str],
        columns: FactColumns | None = None,
        *,
        labels: bool = False,
    ) -> KeyTable:
        """``table`` (prediction rows citing ``docs``; ``types`` names its type hashes;
        ``columns`` the rows' other columns, when it is a whole side) with the effective types
        and names matching compares; ``labels``: also by labels and aliases, when most
        predicted entity names are no gold entity's (:meth:`relabel` says when to ask)."""
        table = self._predicates(table)
        at = cache(lambda: self._documents(docs))  # looked up only if a rule needs it
        if self.identity.match == "names":
            return self._as_literals(_untyped(table), at)
        table = self._named_sides(table, docs, types, columns, at)
        if labels and not self._exact:
            table = self._labelled(table, columns)
        return self._resolved_ends(table, at)

    def keys_by_labels(
        self, table: KeyTable, docs: DocColumn, types: Mapping[int, str], columns: FactColumns
    ) -> KeyTable | None:
        """``keys(..., labels=True)``, or None when labels name no end otherwise than
        :meth:`keys` did (its answer stands: not worked out twice)."""
        if self.identity.match == "names" or self._exact:
            return None
        table = self._predicates(table)
        at = cache(lambda: self._documents(docs))
        named = self._named_sides(table, docs, types, columns, at)
        relabelled = self._labelled(named, columns)
        return None if relabelled is named else self._resolved_ends(relabelled, at)

    def _named_sides(
        self,
        table: KeyTable,
        docs: DocColumn,
        types: Mapping[int, str],
        columns: FactColumns | None,
        at: Docs,
    ) -> KeyTable:
        """The types and names of ``keys``, before labels and the gold's types are asked."""
        self._types.update(types)
        table = self._typed(table, types)
        self._uncited = ~docs.present
        table = self._prefixed(table, columns, at)
        table = self._strings(table, columns)
        return self._as_written(table, columns) if self._exact else table

    def _resolved_ends(self, table: KeyTable, at: Docs) -> KeyTable:
        """The rest of ``keys``: ends take the gold's types, literals and entities as the gold
        has them."""
        every = np.ones(len(table), bool)
        s_type = self._resolved(table.subject_name, table.subject_type, at, every)
        o_type = self._resolved(table.object_name, table.object_type, at, ~table.literal)
        s_type, o_type = self._by_fact(table, s_type, o_type, at)
        aligned = table.with_types(s_type, o_type)
        return self._as_entities(self._as_literals(aligned, at), at)

    def let_go(self) -> None:
        """Drop what aligning worked out from the gold (its ends' one types, its facts' types,
        its literal and typed ends, its spellings): sorted columns of every gold end, ~70 MB
        at a million gold rows with untyped ends, which a score keeps to its end though
        scoring is done with them. Each is worked out again if another table is aligned (a
        fix's replay, refused facts: rare), from the same gold, so to the same values."""
        for name in _GOLD_WIDE:
            self.__dict__.pop(name, None)

    def relabel(self, hits: int, scored: int) -> bool:
        """Whether to align again by labels: most scored predictions (``hits`` of ``scored``)
        missed, in identity matching. A run that mostly hits never reads a label."""
        return self.identity.match == "identity" and scored > 0 and 2 * hits < scored

    def _documents(self, docs: DocColumn) -> np.ndarray:
        """Each row's document as the gold names it (its own hash where it names none)."""
        if not len(self._doc_hashes) or not len(docs):
            return docs.hashes
        found = scored_documents(docs, self.doc_ids)
        named = found >= 0
        if named.all():
            return self._doc_hashes[found]
        return np.where(named, self._doc_hashes[np.maximum(found, 0)], docs.hashes)

    # The gold's entity ends (document, name, effective type), joined only when a prediction
    # has an untyped end or the gold an untyped entity: most runs need none of it.

    # Worked out for each answer that needs them and never held: the aligner lives as long as
    # the score, and three columns of every gold end are ~36 MB at a million rows (DECISIONS 300).
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
        g = self.gold_keys
        return bool(
            np.any(g.subject_type == UNTYPED) or np.any(g.object_type[~g.literal] == UNTYPED)
        )

    @cached_property
    def _gold_has_types(self) -> bool:
        """Whether any gold end has a type: when none has, no prediction end can take one from
        the gold, and only typed prediction ends can change (they drop theirs)."""
        g = self.gold_keys
        return bool(
            np.any(g.subject_type != UNTYPED) or np.any(g.object_type[~g.literal] != UNTYPED)
        )

    @cached_property
    def _one_types(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        docs, names, kinds = self._ends()
        return _one_type(mix(docs, names), kinds), _one_type(names, kinds)

    @cached_property
    def _fact_types(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """Per (document, predicate, subject name, object name) of the gold, its subject's one
        type and its object's."""
        g, docs = self.gold_keys, self._gold.docs.hashes
        codes = mix(docs, g.predicate, g.subject_name, g.object_name)
        return _one_type(codes, g.subject_type), _one_type(codes, g.object_type)

    @cached_property
    def _literals(self) -> tuple[np.ndarray, np.ndarray]:
        """The gold's (document, literal object) codes, and its (document, entity) codes."""
        g, docs = self.gold_keys, self._gold.docs.hashes
        ends_docs, names, _ = self._ends()
        return distinct(mix(docs[g.literal], g.object_name[g.literal])), distinct(
            mix(ends_docs, names)
        )

    @cached_property
    def _untyped_objects(self) -> np.ndarray:
        """The gold's (document, untyped entity object name) codes."""
        g, docs = self.gold_keys, self._gold.docs.hashes
        rows = ~g.literal & (g.object_type == UNTYPED)
        return distinct(mix(docs[rows], g.object_name[rows]))

    def _as_literals(self, table: KeyTable, docs: Docs) -> KeyTable:
        """An untyped entity object named as a gold literal object of its document, and as no
        gold entity there, is that literal: without types, ``"1998"`` may be the year."""
        rows = np.flatnonzero(~table.literal & (table.object_type == UNTYPED))
        if not len(rows) or not self._gold.keys.literal.any():
            return table
        literals, entities = self._literals
        salted = table.object_name ^ LITERAL_NODE
        at = docs()
        rows = rows[member(mix(at[rows], salted[rows]), literals, ready=True)]
        entity = member(mix(at[rows], table.object_name[rows]), entities, ready=True)
        rows = rows[~entity]  # named like a gold entity too: it stays an entity
        if not len(rows):
            return table
        literal, name = table.literal.copy(), table.object_name.copy()
        literal[rows] = True
        name[rows] = salted[rows]
        return replace(table, literal=literal, object_name=name)

    def _as_entities(self, table: KeyTable, docs: Docs) -> KeyTable:
        """A literal object named as an untyped gold entity object of its document, and as no
        gold literal there, is that entity: the gold's ``1998`` with no type may be the year."""
        rows = np.flatnonzero(table.literal)
        if not len(rows) or not self._gold_untyped or not len(self._untyped_objects):
            return table
        plain = table.object_name ^ LITERAL_NODE
        at = docs()
        rows = rows[member(mix(at[rows], plain[rows]), self._untyped_objects, ready=True)]
        literals, _ = self._literals
        rows = rows[~member(mix(at[rows], table.object_name[rows]), literals, ready=True)]
        if not len(rows):
            return table
        literal, name = table.literal.copy(), table.object_name.copy()
        literal[rows] = False
        name[rows] = plain[rows]
        kinds = table.object_type.copy()
        kinds[rows] = UNTYPED
        return replace(table, literal=literal, object_name=name, object_type=kinds)

    def _resolved(
        self, names: np.ndarray, kinds: np.ndarray, docs: Docs, entity: np.ndarray
    ) -> np.ndarray:
        """Untyped ends take the gold's one type for their name (in their document, else
        anywhere); ends named like an untyped gold entity drop theirs."""
        # Only untyped ends can change, and typed ones only where the gold has untyped entities.
        if not self._gold_has_types:  # the gold's one type is "untyped": typed ends drop theirs
            ask = entity & (kinds != UNTYPED)
        else:
            ask = entity if self._gold_untyped else entity & (kinds == UNTYPED)
        rows = np.flatnonzero(ask)
        if not len(rows):
            return kinds  # unchanged: the column itself, so both sides' lie end to end still
        out = kinds.copy()
        in_doc, anywhere = self._one_types
        for (keys, gold_kinds), by_doc in ((in_doc, True), (anywhere, False)):
            codes = mix(docs()[rows], names[rows]) if by_doc else names[rows]
            if not len(keys) or not len(rows):
                continue
            at = np.minimum(search(keys, codes), len(keys) - 1)
            found = keys[at] == codes
            theirs, mine = gold_kinds[at], out[rows]
            take = found & ((mine == UNTYPED) | (theirs == UNTYPED)) & (mine != theirs)
            out[rows[take]] = theirs[take]
            rows = rows[~found]  # the document's answer stands
        return out

    def _by_fact(
        self, table: KeyTable, s_type: np.ndarray, o_type: np.ndarray, docs: Docs
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ends still untyped (a name the gold gives two types) take the type the gold gives that
        end of the same fact (document, predicate, both names)."""
        if not self._gold_has_types:
            return s_type, o_type  # no gold end has a type to give
        s_rows = np.flatnonzero(s_type == UNTYPED)
        o_rows = np.flatnonzero((o_type == UNTYPED) & ~table.literal)
        if not len(s_rows) and not len(o_rows):
            return s_type, o_type
        (s_keys, s_kinds), (o_keys, o_kinds) = self._fact_types
        out = []
        for rows, kinds, (keys, gold_kinds) in (
            (s_rows, s_type, (s_keys, s_kinds)),
            (o_rows, o_type, (o_keys, o_kinds)),
        ):
            if not len(rows) or not len(keys):
                out.append(kinds)
                continue
            codes = mix(docs()[rows], table.predicate[rows], table.subject_name[rows],
                        table.object_name[rows])  # fmt: skip
            at = np.minimum(search(keys, codes), len(keys) - 1)
            found = (keys[at] == codes) & (gold_kinds[at] != UNTYPED)
            kinds = kinds.copy()
            kinds[rows[found]] = gold_kinds[at[found]]
            out.append(kinds)
        return out[0], out[1]

    # --- labels and aliases ----------------------------------------------------------------------

    @cached_property
    def _gold_names(self) -> tuple[np.ndarray, _Spelled]:
        """The gold's entity names (sorted), and each label's or alias's folded hash → the name
        of the one gold entity going by it (a hash two entities go by names none), as sorted
        arrays: ~16 bytes a spelling, where a dict of Python ints took ~120."""
        g = self._gold
        k = self.gold_keys
        nodes = distinct(np.concatenate([k.subject_name, k.object_name[~k.literal]]))
        spelled, named = array("q"), array("q")
        for subject in (True, False):
            rows = np.arange(len(k)) if subject else np.flatnonzero(~k.literal)
            if not len(rows):
                continue
            names = (g.subject_names if subject else g.object_names)[rows]
            _, first = np.unique(names, return_index=True)
            picked = np.sort(rows[first])  # in row order: each block of the rows read once
            facts = fetch_each(g.rows, picked)
            node = (k.subject_name if subject else k.object_name)[picked].tolist()
            for f, n in zip(facts, node, strict=True):
                for spelling in _spellings(f.subject if subject else f.object_entity):
                    spelled.append(hash(fold(spelling)))
                    named.append(n)
        return nodes, _Spelled.of(np.frombuffer(spelled, np.int64), np.frombuffer(named, np.int64))

    def _labelled(self, table: KeyTable, columns: FactColumns | None) -> KeyTable:
        """When most predicted entity names are no gold entity's, each predicted end whose name
        is none goes by the gold entity its name, label or an alias names (the gold's label or
        alias too)."""
        if columns is None or not len(table) or not len(self.gold_keys):
            return table
        if not self._strangers(table):
            return table
        gold_nodes, alt = self._gold_names
        # each end's names are copied only when a label renames one of them
        names_of = {True: table.subject_name, False: table.object_name}
        changed = False
        for subject in (True, False):
            column = names_of[subject]
            ask = ~member(column, gold_nodes, ready=True)
            if not subject:
                ask &= ~table.literal
            rows = np.flatnonzero(ask)
            if not len(rows):
                continue
            names = (columns.subject_names if subject else columns.object_names)[rows]
            _, first, inverse = np.unique(names, return_index=True, return_inverse=True)

            def named(f: Any, subject: bool = subject) -> int:
                return _named(f.subject if subject else f.object_entity, gold_nodes, alt)

            found = values_of(columns.rows, rows[first], named)[inverse]
            take = found != 0
            if take.any():
                changed = True
                column = names_of[subject] = column.copy()
                column[rows[take]] = found[take]
        if not changed:
            return table
        return replace(table, subject_name=names_of[True], object_name=names_of[False])

    def _strangers(self, table: KeyTable) -> bool:
        """Whether most of ``table``'s distinct entity names are no gold entity's (the sorted
        names of both sides are dropped before any label is read)."""
        mine = distinct(np.concatenate([table.subject_name, table.object_name[~table.literal]]))
        g = self.gold_keys
        nodes = distinct(np.concatenate([g.subject_name, g.object_name[~g.literal]]))
        return 2 * int(np.count_nonzero(member(mine, nodes))) < len(mine)


_GOLD_WIDE = (
    "_gold_typed",
    "_one_types",
    "_fact_types",
    "_literals",
    "_untyped_objects",
    "_gold_names",
)
"""The aligner's cached answers read from every gold row (:meth:`Aligner.let_go`)."""


def _key_of(encoded: str, subject: bool) -> str:
    """The subject's (or the entity object's) key in an encoded match key."""
    parts = encoded.split(SEP)
    return parts[1] if subject else parts[3][1:]


def _spellings(entity: Any) -> list[str]:
    """An entity's label and aliases (what it goes by beside its key)."""
    out = [entity.label] if getattr(entity, "label", None) else []
    return out + [a for a in getattr(entity, "aliases", ()) if a]


@dataclass(frozen=True)
class _Spelled:
    """Folded spellings' hashes (sorted) and the one gold entity name each goes by."""

    hashes: np.ndarray
    names: np.ndarray

    @classmethod
    def of(cls, hashes: np.ndarray, names: np.ndarray) -> _Spelled:
        """From (spelling, name) pairs, repeats allowed: a spelling going by two names is
        dropped (it names no one entity)."""
        if not len(hashes):
            return cls(hashes, names)
        order = np.argsort(hashes, kind="stable")
        h, n = hashes[order], names[order]
        starts = first_of_each(h)
        one = np.minimum.reduceat(n, starts) == np.maximum.reduceat(n, starts)
        return cls(h[starts[one]], n[starts[one]])

    def get(self, h: int) -> int | None:
        """The name ``h`` goes by, or None."""
        return _at(self.hashes, h, self.names)


def _at(keys: np.ndarray, h: int, values: np.ndarray | None = None) -> int | None:
    """``h`` (or its value) if the sorted ``keys`` hold it, else None."""
    i = int(np.searchsorted(keys, h))
    if i < len(keys) and keys[i] == h:
        return h if values is None else int(values[i])
    return None


def _named(entity: Any, gold: np.ndarray, alt: _Spelled) -> int:
    """The gold entity name a predicted entity goes by, by its identity name, label or an alias
    (0: none): one of the sorted ``gold`` names, or the name a spelling goes by. A prefix that
    is not its own type stays: ``p:max`` is not ``max``."""
    for h in (node_of(entity.key, entity.type), *(hash(fold(s)) for s in _spellings(entity))):
        found = _at(gold, h)
        if found is None:
            found = alt.get(h)
        if found is not None:
            return found
    return 0


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
