"""The resolve stage: do the predicted links join the keys the labels say are one thing?

Links are ``(a, b, kind)`` from any source: LinkRow, EntityLink (a sink's ``links.jsonl``) or a
plain tuple. ``same_as`` links are followed transitively (union-find); ``similar`` joins only with
``similar_as_same=True``; ``different`` never joins.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import ValidationError

from openodke.errors import InputError
from openodke.eval.engine.jsonl import validation_message
from openodke.eval.stages.labels import LinkRow, PairLabel
from openodke.eval.stages.stage_report import StageReport, f1_of, safe_div
from openodke.safeio import iter_json_lines
from openodke.types import EntityLink

__all__ = ["evaluate_resolution", "links_from_clusters", "load_links"]

LinkLike = LinkRow | EntityLink | tuple[str, str] | tuple[str, str, str]


class _UnionFind:
    """Disjoint sets over string keys (path halving, no ranks: the sets here are small)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        parent = self.parent.setdefault(key, key)
        while parent != key:
            grand = self.parent[parent]
            self.parent[key] = grand
            key, parent = grand, self.parent[grand]
        return key

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _as_triple(link: LinkLike) -> tuple[str, str, str]:
    if isinstance(link, LinkRow):
        return link.a, link.b, link.kind
    if isinstance(link, EntityLink):
        return link.source_key, link.target_key, link.kind.value
    if isinstance(link, tuple) and len(link) in (2, 3):
        kind = link[2] if len(link) == 3 else "same_as"
        kind = getattr(kind, "value", kind)
        if kind not in ("same_as", "similar", "different"):
            raise ValueError(f"link {link!r}: kind must be same_as, similar or different")
        return str(link[0]), str(link[1]), str(kind)
    raise TypeError(f"expected a LinkRow, EntityLink or (a, b, kind) tuple, got {link!r}")


def links_from_clusters(groups: Iterable[Iterable[str]]) -> list[LinkRow]:
    """Turn merged groups of keys into ``same_as`` links: a chain through each group, in order."""
    links: list[LinkRow] = []
    for group in groups:
        keys = list(dict.fromkeys(group))
        links += [LinkRow(a=a, b=b, kind="same_as") for a, b in zip(keys, keys[1:], strict=False)]
    return links


def load_links(path: str | Path) -> list[LinkRow]:
    """Read a links file: LinkRow rows ``{"a", "b", "kind"}`` or EntityLink rows (a sink's)."""
    links: list[LinkRow] = []
    for number, value in iter_json_lines(path):
        if not isinstance(value, dict):
            raise InputError(
                f"expected a JSON object, got {type(value).__name__}", path=str(path), line=number
            )
        try:
            if "source_key" in value or "target_key" in value:
                entity_link = EntityLink.model_validate(value)
                a, b, kind = _as_triple(entity_link)
                links.append(LinkRow(a=a, b=b, kind=kind))  # type: ignore[arg-type]
            else:
                links.append(LinkRow.model_validate(value))
        except ValidationError as error:
            raise InputError(validation_message(error), path=str(path), line=number) from None
    return links


def _clusters(keys: Sequence[str], forest: _UnionFind) -> dict[str, frozenset[str]]:
    """Each key's cluster, restricted to ``keys``."""
    members: dict[str, set[str]] = {}
    for key in keys:
        members.setdefault(forest.find(key), set()).add(key)
    return {key: frozenset(members[forest.find(key)]) for key in keys}


def evaluate_resolution(
    labels: Sequence[PairLabel],
    links: Iterable[LinkLike],
    *,
    similar_as_same: bool = False,
) -> StageReport:
    """Score predicted links against labelled pairs, pairwise and by B-cubed.

    Pairwise, per labelled pair: predicted same when the links join the two keys. tp = labelled
    same and joined, fp = labelled different and joined, fn = labelled same and not joined,
    tn = the rest; precision tp/(tp+fp), recall tp/(tp+fn), accuracy (tp+tn)/n.

    B-cubed (Bagga & Baldwin 1998) over the keys in the labels: gold clusters are the same=True
    pairs joined by union-find, predicted clusters the link components cut down to those keys;
    each key scores |C∩G|/|C| (precision) and |C∩G|/|G| (recall), averaged over keys.
    ``gold_clusters`` and ``predicted_clusters`` count clusters (singletons too) over those keys;
    ``links_same_as``, ``links_similar`` and ``links_different`` count the links given.
    """
    triples = [_as_triple(link) for link in links]
    kinds = Counter(kind for _, _, kind in triples)
    joining = {"same_as", "similar"} if similar_as_same else {"same_as"}
    predicted = _UnionFind()
    for a, b, kind in triples:
        if kind in joining:
            predicted.union(a, b)
    gold = _UnionFind()
    for pair in labels:
        gold.find(pair.a)  # every labelled key is a cluster, even alone
        gold.find(pair.b)
        if pair.same:
            gold.union(pair.a, pair.b)

    counts = Counter(
        (pair.same, predicted.find(pair.a) == predicted.find(pair.b)) for pair in labels
    )
    tp, fp = counts[(True, True)], counts[(False, True)]
    fn, tn = counts[(True, False)], counts[(False, False)]
    precision, recall = safe_div(tp, tp + fp), safe_div(tp, tp + fn)

    keys = list(dict.fromkeys(k for pair in labels for k in (pair.a, pair.b)))
    gold_of, predicted_of = _clusters(keys, gold), _clusters(keys, predicted)
    overlap = {k: len(gold_of[k] & predicted_of[k]) for k in keys}
    b_precision = safe_div(sum(overlap[k] / len(predicted_of[k]) for k in keys), len(keys))
    b_recall = safe_div(sum(overlap[k] / len(gold_of[k]) for k in keys), len(keys))

    notes = _notes(labels, gold, kinds, similar_as_same)
    return StageReport(
        stage="resolve",
        n=len(labels),
        metrics={
            "pairwise_precision": precision,
            "pairwise_recall": recall,
            "pairwise_f1": f1_of(precision, recall),
            "pairwise_accuracy": safe_div(tp + tn, len(labels)),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "bcubed_precision": b_precision,
            "bcubed_recall": b_recall,
            "bcubed_f1": f1_of(b_precision, b_recall),
            "gold_clusters": len(set(gold_of.values())) if keys else None,
            "predicted_clusters": len(set(predicted_of.values())) if keys else None,
            "links_same_as": kinds["same_as"],
            "links_similar": kinds["similar"],
            "links_different": kinds["different"],
        },
        confusion={
            "same": {"joined": tp, "apart": fn},
            "different": {"joined": fp, "apart": tn},
        }
        if labels
        else None,
        notes=tuple(notes),
    )


def _notes(
    labels: Sequence[PairLabel], gold: _UnionFind, kinds: Counter[str], similar_as_same: bool
) -> list[str]:
    notes: list[str] = []
    if not labels:
        notes.append("no labelled pair: every rate is undefined")
    if not kinds:
        notes.append("no links given: every key is its own cluster")
    if kinds["similar"] and not similar_as_same:
        notes.append(
            f"similar links, no decision and joining nothing: {kinds['similar']} "
            "(similar_as_same=True counts them as same_as)"
        )
    clash = [p for p in labels if not p.same and gold.find(p.a) == gold.find(p.b)]
    if clash:
        shown = ", ".join(f"{p.a}/{p.b}" for p in clash[:5])
        notes.append(
            f"pairs labelled different but joined by other same pairs: {len(clash)} ({shown}); "
            "the labels contradict themselves, and B-cubed follows the same pairs"
        )
    return notes
