"""Near misses: gold facts a prediction would match but for one thing the user can fix.

After matching, a gold row that is not a hit (missing, wrong value, wrong entity) is a near miss
when a prediction that is not a hit either would match it but for one of (tried in this order;
each gold row and each prediction counts in one kind at most, paired one to one):

- ``type``: same document, predicate, rests (polarity, qualifiers) and bare names, and an end's
  effective types are both declared and differ (``Person:ann`` typed ``Agent`` against
  ``ann``/Person is a type miss: the bare names agree);
- ``key``: same document, rests and bare names, no declared types in conflict, and an end's
  identity name differs (``c:acme`` against ``acme``);
- ``predicate``: same document, polarity, ends (identity names and types), and the predicates are
  equal by their letters and digits alone (``worksAt``, ``works-at``, ``works_at``) though not in
  lookup form (case-folded, ``_`` as a space), which matching already compares in;
- ``document``: a prediction citing only unlabelled documents (unscored) whose first cited
  document equals a labelled one in lookup form, with the same key.

A prediction citing no document stands for any. Everything is joins on hash columns
(:mod:`~openodke.eval.engine.joins`); only the examples are read in words. Each kind carries the
fix that makes matching pair them (surface.md, "Entity identity when matching").
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.joins import Lookup, mix, search
from openodke.eval.engine.matching import (
    MISSING,
    SPURIOUS,
    UNSCORED,
    WRONG_ENTITY,
    WRONG_VALUE,
    Matching,
)
from openodke.forms import lookup_form

__all__ = ["KINDS", "NearExample", "NearMisses", "near_misses"]

KINDS: tuple[str, ...] = ("type", "key", "predicate", "document")
"""The kinds of near miss, in the order a miss is tried against them."""

_WHAT = {
    "type": "an entity's declared type",
    "key": "the form of an entity's key",
    "predicate": "the predicate's spelling (case, separators)",
    "document": "the form of the document id",
}
_ROUNDS = 3  # a gold row whose first candidate another took tries again, this many times in all


@dataclass(frozen=True)
class NearExample:
    """One near miss in words: the gold fact and the prediction that would match it."""

    doc_id: str
    gold: str
    written: str
    written_doc: str


@dataclass
class NearMisses:
    """Per kind, the gold rows (ascending) and the prediction each would match, two examples and
    the fix."""

    gold: dict[str, np.ndarray]
    predicted: dict[str, np.ndarray]
    examples: dict[str, tuple[NearExample, ...]]
    fixes: dict[str, str]

    def counts(self) -> dict[str, int]:
        """How many gold rows per kind (every kind, 0 included)."""
        return {kind: len(self.gold[kind]) for kind in KINDS}

    @property
    def total(self) -> int:
        """Near misses of every kind."""
        return sum(self.counts().values())

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every near miss's gold row (ascending) and its prediction."""
        g = np.concatenate([self.gold[k] for k in KINDS])
        p = np.concatenate([self.predicted[k] for k in KINDS])
        order = np.argsort(g, kind="stable")
        return g[order], p[order]

    def kind_of(self, rows: np.ndarray) -> np.ndarray:
        """Per gold row, the index of its kind in :data:`KINDS` (-1: not a near miss)."""
        out = np.full(len(rows), -1, dtype=np.int8)
        for k, kind in enumerate(KINDS):
            out[np.isin(rows, self.gold[kind])] = k
        return out

    def lines(self) -> list[str]:
        """One line per kind with near misses: how many, two examples, the fix."""
        out = []
        for kind in KINDS:
            n = len(self.gold[kind])
            if not n:
                continue
            shown = "; ".join(_example_words(e) for e in self.examples[kind])
            facts = "gold fact" if n == 1 else "gold facts"
            out.append(
                f"near misses ({kind}): {n:,} missed {facts} would match a prediction but for "
                f"{_WHAT[kind]}, e.g. {shown}. "
                f"Fix: {self.fixes[kind]}"
            )
        return out


def _example_words(e: NearExample) -> str:
    if e.written_doc != e.doc_id:
        return f"gold {e.doc_id}: {e.gold} vs written {e.written_doc}: {e.written}"
    return f"{e.doc_id}: gold {e.gold} vs written {e.written}"


def near_misses(
    matching: Matching, gold: FactColumns, predicted: FactColumns, examples: int = 2
) -> NearMisses:
    """The near misses of a matching (``gold`` and ``predicted`` with the keys it matched)."""
    m = matching
    # (np.isin sorts; three comparisons of the int8 statuses are ~8x faster)
    free_gold = m.gold_status == MISSING
    free_gold |= (m.gold_status == WRONG_VALUE) | (m.gold_status == WRONG_ENTITY)
    free_pred = m.pred_status == SPURIOUS
    free_pred |= (m.pred_status == WRONG_VALUE) | (m.pred_status == WRONG_ENTITY)
    found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    empty = np.empty(0, dtype=np.int64)

    def claim(kind: str, gi: np.ndarray, pj: np.ndarray) -> None:
        found[kind] = (gi, pj)
        free_gold[gi] = False
        free_pred[pj] = False

    gi, pj = np.flatnonzero(free_gold), np.flatnonzero(free_pred)
    kind_pairs = _type_or_key(m, gold, predicted, gi, pj)
    for kind, (a, b) in zip(("type", "key"), kind_pairs, strict=True):
        claim(kind, a, b)
    gi, pj = np.flatnonzero(free_gold), np.flatnonzero(free_pred)
    claim("predicate", *_predicate(m, gold, predicted, gi, pj))
    gi = np.flatnonzero(free_gold)
    claim("document", *_document(m, gold, predicted, gi))
    for kind in KINDS:
        a, b = found.get(kind, (empty, empty))
        order = np.argsort(a, kind="stable")
        found[kind] = (a[order], b[order])
    words = _Words(m, gold, predicted)
    return NearMisses(
        gold={k: a for k, (a, _) in found.items()},
        predicted={k: b for k, (_, b) in found.items()},
        examples={k: words.examples(*found[k], examples) for k in KINDS},
        fixes={k: _fix(k, words, *found[k]) for k in KINDS},
    )


Keep = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``keep(gold rows, predictions)`` -> which of these pairs count."""


def _pair(
    m: Matching,
    gi: np.ndarray,
    g_codes: np.ndarray,
    pj: np.ndarray,
    p_codes: np.ndarray,
    keep: Keep | None = None,
    *,
    p_docs: np.ndarray | None = None,
    g_docs: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each gold row of ``gi`` with the first prediction of ``pj`` sharing its code in its own
    document (then one citing none) that ``keep`` keeps and no earlier gold row took."""
    if not len(gi) or not len(pj):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    p_docs = m.pred_doc[pj] if p_docs is None else p_docs
    g_docs = m.gold_doc[gi] if g_docs is None else g_docs
    lookup = Lookup(mix(p_docs, p_codes), pj)
    here = mix(g_docs, g_codes)
    uncited = mix(-1, g_codes) if np.any(p_docs == -1) else None
    used = np.zeros(len(m.pred_status), dtype=bool)
    out_g, out_p = [], []
    todo = np.arange(len(gi))
    for _ in range(_ROUNDS):
        if not len(todo):
            break
        rows = gi[todo]
        found = lookup.first_here_or_uncited(
            here[todo], None if uncited is None else uncited[todo], _keeping(rows, used, keep)
        )
        ok = np.flatnonzero(found >= 0)
        _, first = np.unique(found[ok], return_index=True)  # the first gold row claiming each
        won = np.zeros(len(ok), dtype=bool)
        won[first] = True
        out_g.append(rows[ok[won]])
        out_p.append(found[ok[won]])
        used[found[ok[won]]] = True
        todo = todo[ok[~won]]
    return np.concatenate(out_g), np.concatenate(out_p)


def _keeping(rows: np.ndarray, used: np.ndarray, keep: Keep | None) -> Keep:
    def kept(q: np.ndarray, j: np.ndarray) -> np.ndarray:
        ok = ~used[j]
        return ok if keep is None else ok & keep(rows[q], j)

    return kept


def _type_or_key(
    m: Matching, g: FactColumns, p: FactColumns, gi: np.ndarray, pj: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Pairs equal by document, rests and bare names: (type pairs, key pairs)."""
    gk, pk = g.keys, p.keys

    def code(c: FactColumns, rows: np.ndarray) -> np.ndarray:
        k = c.keys
        return mix(
            k.predicate[rows],
            k.literal[rows].astype(np.int64),
            k.subject_rest[rows],
            k.object_rest[rows],
            c.subject_bare[rows],
            c.object_bare[rows],
        )

    def conflict(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        out = np.zeros(len(i), dtype=bool)
        for a, b in (
            (gk.subject_type[i], pk.subject_type[j]),
            (gk.object_type[i], pk.object_type[j]),
        ):
            out |= (a != 0) & (b != 0) & (a != b)
        return out

    def keep(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        renamed = (gk.subject_name[i] != pk.subject_name[j]) | (
            gk.object_name[i] != pk.object_name[j]
        )
        return conflict(i, j) | renamed

    a, b = _pair(m, gi, code(g, gi), pj, code(p, pj), keep)
    typed = conflict(a, b)
    return (a[typed], b[typed]), (a[~typed], b[~typed])


def _letters(name: str) -> str:
    """A predicate's letters and digits, case-folded: how near-miss predicates compare."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def _predicate(
    m: Matching, g: FactColumns, p: FactColumns, gi: np.ndarray, pj: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs equal by document, polarity and ends whose predicates differ only in spelling."""
    names = {**g.keys.predicates, **p.keys.predicates}
    forms = {h: hash(_letters(name)) for h, name in names.items()}
    if len(set(forms.values())) == len(forms) or not len(gi) or not len(pj):
        return np.empty(0, np.int64), np.empty(0, np.int64)  # no two predicates share a form
    hashes = np.array(sorted(forms), dtype=np.int64)
    form_of = np.array([forms[h] for h in hashes.tolist()], dtype=np.int64)

    def code(c: FactColumns, rows: np.ndarray) -> np.ndarray:
        k = c.keys
        form = form_of[search(hashes, k.predicate[rows])]
        return mix(
            form,
            k.subject_rest[rows],  # polarity and identity qualifiers
            k.literal[rows].astype(np.int64),
            k.subject_name[rows],
            k.subject_type[rows],
            k.object_name[rows],
            k.object_type[rows],
        )

    def keep(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return g.keys.predicate[i] != p.keys.predicate[j]

    return _pair(m, gi, code(g, gi), pj, code(p, pj), keep)


def _document(
    m: Matching, g: FactColumns, p: FactColumns, gi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Unscored predictions whose first cited document is a labelled one in lookup form."""
    pj = np.flatnonzero(m.pred_status == UNSCORED)
    if not len(gi) or not len(pj):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    labelled = np.array([hash(lookup_form(d)) for d in m.documents], dtype=np.int64)
    cited = p.docs.hashes[pj]
    distinct = np.unique(cited)
    forms = np.array([hash(lookup_form(p.docs.names[h])) for h in distinct.tolist()], np.int64)
    p_form = forms[search(distinct, cited)]
    zeros = np.zeros(len(pj), dtype=np.int64)
    return _pair(
        m,
        gi,
        g.keys.key[gi],
        pj,
        p.keys.key[pj],
        p_docs=mix(p_form, zeros),
        g_docs=mix(labelled[m.gold_doc[gi]], np.zeros(len(gi), dtype=np.int64)),
    )


class _Words:
    """The few rows a report shows, read in words."""

    def __init__(self, m: Matching, gold: FactColumns, predicted: FactColumns) -> None:
        self.m, self.gold, self.predicted = m, gold, predicted

    def examples(self, gi: np.ndarray, pj: np.ndarray, k: int) -> tuple[NearExample, ...]:
        """Up to ``k`` near misses, from different documents first."""
        chosen = _pick(self.m.gold_doc[gi], k)
        if not len(chosen):
            return ()
        gold = self.gold.rows.fetch(gi[chosen].tolist())
        said = self.predicted.rows.fetch(pj[chosen].tolist())
        out = []
        for i, j, gf, pf in zip(gi[chosen].tolist(), pj[chosen].tolist(), gold, said, strict=True):
            doc = self.m.documents[int(self.m.gold_doc[i])]
            docs = self.predicted.docs
            written_doc = docs.names[int(docs.hashes[j])] if docs.present[j] else doc
            if self.m.pred_doc[j] >= 0:
                written_doc = self.m.documents[int(self.m.pred_doc[j])]
            out.append(NearExample(doc, fact_words(gf), fact_words(pf), written_doc))
        return tuple(out)

    def type_map(self, gi: np.ndarray, pj: np.ndarray, limit: int = 6) -> dict[str, str]:
        """Their type -> ours, for the ends whose declared types differ (most common first)."""
        g, p = self.gold, self.predicted
        pairs: Counter[tuple[str, str]] = Counter()
        for ours_raw, theirs_raw, ours_eff, theirs_eff in (
            (g.subject_type, p.subject_type, g.keys.subject_type, p.keys.subject_type),
            (g.object_type, p.object_type, g.keys.object_type, p.keys.object_type),
        ):
            a, b = ours_eff[gi], theirs_eff[pj]
            differ = (a != 0) & (b != 0) & (a != b)
            codes = np.stack([theirs_raw[pj][differ], ours_raw[gi][differ]], axis=1)
            if not len(codes):
                continue
            distinct, counts = np.unique(codes, axis=0, return_counts=True)
            for (theirs, ours), n in zip(distinct.tolist(), counts.tolist(), strict=True):
                pairs[(p.types.get(theirs, "?"), g.types.get(ours, "?"))] += n
        out: dict[str, str] = {}
        for (theirs, ours), _ in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0])):
            if theirs not in out and theirs != ours and len(out) < limit:
                out[theirs] = ours
        return out


def _pick(docs: np.ndarray, k: int) -> np.ndarray:
    """Up to ``k`` positions, one per document first, in order."""
    if k <= 0 or not len(docs):
        return np.empty(0, dtype=np.int64)
    _, firsts = np.unique(docs, return_index=True)
    chosen = np.sort(firsts)[:k]
    if len(chosen) < k:
        rest = np.setdiff1d(np.arange(len(docs)), chosen)[: k - len(chosen)]
        chosen = np.sort(np.concatenate([chosen, rest]))
    return chosen


def _end(entity: Any) -> str:
    return f"{entity.key} ({entity.type})"


def fact_words(fact: Any) -> str:
    """A fact as ``key (Type) · predicate · key (Type)`` (a literal object quoted), keys and
    predicate as written: near misses differ in exactly these."""
    target = fact.object_entity
    obj = _end(target) if target is not None else json.dumps(fact.object_value, default=str)
    polarity = getattr(fact.polarity, "value", fact.polarity)
    negated = "" if polarity in ("asserted", None) else f" [{polarity}]"
    return f"{_end(fact.subject)} · {fact.predicate} · {obj}{negated}"


def _fix(kind: str, words: _Words, gi: np.ndarray, pj: np.ndarray) -> str:
    if not len(gi):
        return ""
    if kind == "type":
        mapped = json.dumps(words.type_map(gi, pj), ensure_ascii=False)
        return (
            f"pass --type-map FILE, FILE holding {mapped} (their type -> ours), or declare "
            "those names as aliases of the ontology's types (with --ontology)"
        )
    if kind == "key":
        return (
            "write entity keys as the gold does: the name (`acme`), or `Type:name` with the "
            "entity's own type (`Company:acme`); any other prefix is part of the name"
        )
    if kind == "predicate":
        return (
            "declare the written predicate as one of the ontology predicate's aliases (with "
            "--ontology), or write predicates as the gold does"
        )
    return "name documents as the labels do (each example shows both ids)"
