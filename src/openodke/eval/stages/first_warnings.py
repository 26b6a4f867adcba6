"""What a score says before any table: the run shares nothing with the gold, or near misses.

A zero score never goes unexplained (surface.md, "Entity identity when matching"). Two warnings
come first, each with two examples and the likely fix:

- *nothing in common*: more than half of the predictions cite no labelled document (they are
  unscored), or more than half of the scored predictions name no entity the gold names (neither
  end's identity name nor bare name is an end of a gold fact);
- *folded*: gold entities of one document whose keys differ only in letter case, whitespace or an
  own-type prefix (``ACE`` and ``Ace``), which identity reads as one (``--match exact``: apart);
- *near misses*: one line per kind (type, key, predicate, document) with misses
  (:mod:`~openodke.eval.engine.near`).

``odke eval extract`` and ``odke eval pipeline`` print them first; the StageReport's and the
EvalReport's notes start with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from openodke.eval.engine.joins import distinct, member, mix
from openodke.eval.engine.matching import DUPLICATE, HIT, UNSCORED
from openodke.eval.engine.near import fact_words

if TYPE_CHECKING:
    from openodke.eval.engine.columns import FactColumns
    from openodke.eval.engine.identity import Aligner
    from openodke.eval.engine.matching import Matching
    from openodke.eval.engine.near import NearMisses

__all__ = ["first_warnings", "warnings_of"]


class _Scored(Protocol):
    """What the warnings read of a score (:class:`openodke.eval.stages.extract.ExtractionScore`,
    which keeps them); named here, so this module need not import the one that calls it."""

    matching: Matching
    gold: FactColumns | None
    predicted: FactColumns | None
    aligner: Aligner | None

    @property
    def warnings(self) -> tuple[str, ...]: ...

    @property
    def near(self) -> NearMisses: ...

    def unlabelled_warning(self) -> Any: ...


def first_warnings(score: _Scored) -> list[str]:
    """The lines to say before anything else about ``score`` (none when all is well)."""
    return list(score.warnings)


def warnings_of(score: _Scored) -> list[str]:
    """Worked out once per score (:attr:`ExtractionScore.warnings` keeps them)."""
    return [*_nothing_in_common(score), *_folded(score), *score.near.lines()]


def _folded(score: _Scored) -> list[str]:
    """Gold entities of one document that identity reads as one (their keys differ only in
    letter case, whitespace or a ``Type:`` prefix of their own type): how many, in how many
    documents, two examples, and ``--match exact``.

    Ends are grouped by (document, identity name, effective type); a group whose ends go by more
    than one set of names is read again, once per distinct end, to compare the keys as written.
    """
    g, aligner = score.gold, score.aligner
    if g is None or not len(g) or (aligner is not None and aligner.identity.match == "exact"):
        return []
    k = g.keys
    entity = np.flatnonzero(~k.literal)
    docs = g.docs.hashes
    code = np.concatenate(
        [
            mix(docs, k.subject_name, k.subject_type),
            mix(docs[entity], k.object_name[entity], k.object_type[entity]),
        ]
    )
    names = np.concatenate([g.subject_names, g.object_names[entity]])
    pairs = mix(code, names)
    # Two sorts say whether any group goes by two sets of names (most gold: none).
    if len(distinct(pairs)) == len(distinct(code)):
        return []
    _, first = np.unique(pairs, return_index=True)
    codes = code[first]
    ordered = np.sort(codes)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return []
    picked = first[member(codes, distinct(repeated), ready=True)]
    n = len(g)
    rows = np.where(picked < n, picked, entity[np.maximum(picked - n, 0)])
    order = np.argsort(rows, kind="stable")  # examples in file order
    picked, rows = picked[order], rows[order]
    facts = g.rows.fetch(rows.tolist())
    groups: dict[int, dict[str, None]] = {}
    where: dict[int, int] = {}
    for at, fact in zip(picked.tolist(), facts, strict=True):
        end = fact.subject if at < n else fact.object_entity
        groups.setdefault(int(code[at]), {})[" ".join(end.key.split())] = None
        where[int(code[at])] = int(docs[at if at < n else entity[at - n]])
    folded = {c: list(keys) for c, keys in groups.items() if len(keys) > 1}
    if not folded:
        return []
    count, documents = len(folded), len({where[c] for c in folded})
    shown = "; ".join(" and ".join(repr(k) for k in keys[:2]) for keys in list(folded.values())[:2])
    total = len(g.docs.names)
    return [
        f"folded: {count:,} pair{'' if count == 1 else 's'} of gold entities in {documents:,} "
        f"of {total:,} document{'' if total == 1 else 's'} differ only in letter case, "
        f"whitespace or a `Type:` prefix of their own type and count as one ({shown}); "
        "give --match exact to keep them apart"
    ]


def _share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({part / whole * 100:.1f}%)"


def _quoted(values: list[str]) -> str:
    return ", ".join(repr(v) for v in values)


def _nothing_in_common(score: _Scored) -> list[str]:
    m, g, p = score.matching, score.gold, score.predicted
    warning = score.unlabelled_warning()  # the documents: one wording (DECISIONS 109)
    out = [warning] if warning is not None else []
    if g is None or p is None or not len(m.gold_status) or not len(m.pred_status):
        return out
    counted = m.pred_status != DUPLICATE
    scored = np.flatnonzero(counted & (m.pred_status != UNSCORED))
    hits = int(np.count_nonzero(m.pred_status == HIT))
    if not len(scored) or 2 * hits >= len(scored):
        return out  # most predictions are hits: they share names with the gold
    # Most predictions name a gold fact's subject: those alone (one small sort) leave too few
    # unshared for the warning, whatever the other names would share.
    subjects = member(p.subject_node[scored], g.subject_node)
    if 2 * (len(scored) - int(np.count_nonzero(subjects))) <= len(scored):
        return out
    entity = ~g.keys.literal
    names = distinct(
        np.concatenate(
            [g.subject_node, g.subject_bare, g.object_node[entity], g.object_bare[entity]]
        )
    )
    # A prediction shares a name when any of its ends' names is the gold's: each column is
    # asked only about the rows the ones before left unshared (most share their subject).
    shared = subjects
    theirs = ~p.keys.literal[scored]
    for column, entity_only in (
        (p.subject_node, False),
        (p.subject_bare, False),
        (p.object_node, True),
        (p.object_bare, True),
    ):
        ask = np.flatnonzero(~shared & theirs if entity_only else ~shared)
        shared[ask] = member(column[scored[ask]], names, ready=True)
    strangers = scored[~shared]
    if 2 * len(strangers) > len(scored):
        said = [fact_words(f) for f in p.rows.fetch(strangers[:2].tolist())]
        labelled = [fact_words(f) for f in g.rows.fetch(list(range(min(2, len(g)))))]
        out.append(
            f"nothing in common: {_share(len(strangers), len(scored))} scored predictions name "
            f"no entity the gold names, e.g. written {'; '.join(said)}, while the gold has "
            f"{'; '.join(labelled)}. Fix: write entity keys as the gold does (the name, or "
            "`Type:name` with the entity's own type), for the facts the labels cover"
        )
    return out
