"""Drawing refusals for a person to judge: equal shares across strata, predicates taking turns.

The strata are (dataset, extractor, verdict). ``n`` is shared equally among them (the remainder
to the first strata in sorted order); a stratum smaller than its share gives every row and its
leftover is shared among the strata that still have rows. Within a stratum the rows are shuffled
and each predicate takes a turn in the order it first appears, so a frequent predicate cannot
fill the share. One ``numpy.random.default_rng(seed)`` draws every stratum, in sorted order.
Every drawn row records its stratum's size, so the precision can weight strata by size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.eval.refusals import RefusalLabel
from openodke.types import Fact

__all__ = ["Refusal", "draw_refusals", "refusal_id", "shares", "strata_sizes"]

_LABEL_FIELDS = tuple(f for f in RefusalLabel.model_fields if f != "judgement")


class Refusal(BaseModel):
    """One refused claim, as ``refusals.jsonl`` keeps it: RefusalLabel's fields and its source."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Stable id: a hash of its source, document, claim and verdict.")
    claim: str
    text: str = Field(description="The passage it was checked against.")
    verdict: str = Field(description="contradicted, not_found, refused, or a schema misfit.")
    reason: str
    predicate: str
    gold: bool | None = Field(description="Whether gold holds the claim; null when there is none.")
    dataset: str | None = None
    extractor: str | None = None
    stratum: str | None = Field(default=None, description="Set when drawn.")
    stratum_size: int | None = Field(default=None, description="Set when drawn.")
    doc_id: str | None = None
    source: str = Field(description="The run it came from.")
    fact: Fact | None = None

    @property
    def stratum_key(self) -> str:
        """``dataset/extractor/verdict`` (``-`` for a missing part), as RefusalLabel's."""
        return "/".join(part or "-" for part in (self.dataset, self.extractor, self.verdict))

    def label_fields(self) -> dict[str, object]:
        """The fields a RefusalLabel has, but the judgement: a sheet item's payload."""
        data = self.model_dump(mode="json")
        return {k: data[k] for k in _LABEL_FIELDS}


def refusal_id(*parts: str | None) -> str:
    """A short stable id from the parts that make a refusal distinct."""
    joined = "\x1f".join(part or "" for part in parts)
    return "r" + hashlib.sha256(joined.encode("utf-8")).hexdigest()[:11]


def strata_sizes(rows: Sequence[Refusal]) -> dict[str, int]:
    """Stratum key → how many refusals it holds."""
    sizes: dict[str, int] = {}
    for row in rows:
        sizes[row.stratum_key] = sizes.get(row.stratum_key, 0) + 1
    return sizes


def shares(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many rows each stratum gives: equal shares, leftovers passed on, never over its size."""
    keys = sorted(sizes)
    taken = dict.fromkeys(keys, 0)
    left = n
    while left > 0:
        open_keys = [k for k in keys if taken[k] < sizes[k]]
        if not open_keys:
            break
        each, extra = divmod(left, len(open_keys))
        for i, k in enumerate(open_keys):
            want = each + (1 if i < extra else 0)
            give = min(want, sizes[k] - taken[k])
            taken[k] += give
            left -= give
    return taken


def _turns(rows: list[Refusal], share: int, rng: np.random.Generator) -> list[Refusal]:
    shuffled = [rows[int(i)] for i in rng.permutation(len(rows))]
    by_predicate: dict[str, list[Refusal]] = {}
    for row in shuffled:
        by_predicate.setdefault(row.predicate, []).append(row)
    queues = list(by_predicate.values())
    picked: list[Refusal] = []
    depth = 0
    while len(picked) < share:
        for queue in queues:
            if depth < len(queue) and len(picked) < share:
                picked.append(queue[depth])
        depth += 1
    return picked


def draw_refusals(rows: Sequence[Refusal], *, n: int = 100, seed: int | None = 0) -> list[Refusal]:
    """The sample to judge, each row carrying its stratum and the stratum's size."""
    if n < 1:
        raise InputError(f"--n must be at least 1, got {n}")
    seen: set[str] = set()
    for row in rows:
        if row.id in seen:
            raise InputError(f"two refusals share the id {row.id!r}")
        seen.add(row.id)
    sizes = strata_sizes(rows)
    rng = np.random.default_rng(seed)
    drawn: list[Refusal] = []
    for key, share in shares(sizes, n).items():
        mine = [r for r in rows if r.stratum_key == key]
        for row in _turns(mine, share, rng):
            drawn.append(row.model_copy(update={"stratum": key, "stratum_size": sizes[key]}))
    return drawn
