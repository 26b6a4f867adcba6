"""The diagnosis's records: what the run was offered, each bucket, and the diagnosis itself.

The bucket ids, their order and their labels are the spec's (evaluate-a-pipeline.md, "Where does it
lose facts?"; DECISIONS #38). Recall-side buckets hold missed gold facts, precision-side buckets hold
false positives (and the gate's catches). A count of None means the run cannot measure the bucket:
it prints as —, never as 0.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BUCKETS",
    "Bucket",
    "Diagnosis",
    "DiagnosisExample",
    "DiagnosisRow",
    "Group",
    "LABELS",
    "Offered",
    "PRECISION_BUCKETS",
    "RECALL_BUCKETS",
    "Rate",
    "Replay",
    "render_diagnosis",
]

RECALL_BUCKETS: tuple[str, ...] = (
    "other_type_or_key",
    "never_offered",
    "refused",
    "wrong_relation",
    "inverse",
    "surface_form",
    "scored_apart",
    "cross_sentence",
    "saturation",
    "linked_other",
    "entity_missing",
    "not_linked",
)
"""The recall side's buckets, in the order a miss is tried against them."""

PRECISION_BUCKETS: tuple[str, ...] = ("refused_not_in_gold", "written_supported", "written_other")
"""The precision side's classes of false positive, in order."""

BUCKETS: tuple[str, ...] = RECALL_BUCKETS + PRECISION_BUCKETS
"""Every bucket id: the recall side, then the precision side."""

LABELS: dict[str, str] = {
    "other_type_or_key": "same fact, other type or key",
    "never_offered": "relation never offered",
    "refused": "refused by the Validator",
    "wrong_relation": "wrong relation",
    "inverse": "inverse direction",
    "surface_form": "surface form",
    "scored_apart": "same triple, scored apart",
    "cross_sentence": "cross-sentence",
    "saturation": "output saturation",
    "linked_other": "pair linked by another true relation",
    "entity_missing": "entity never extracted",
    "not_linked": "both seen but not linked",
    "refused_not_in_gold": "refused by the gate, not in gold",
    "written_supported": "written, supported by its passage",
    "written_other": "written, the rest",
}
"""Each bucket's printed label (surface form adds "(unconfirmed)" when no judge confirmed it)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Offered(BaseModel):
    """What the extractor was shown: per entity type, the relations its snippet offered.

    Build it by hand (``Offered(by_type={"Person": ("born_in", "employer")})``), from a run's
    ``stats.coverage`` or run config (:func:`openodke.eval.diagnosis.offered_from_trace`), or from
    an ontology with :meth:`from_ontology`. A type absent from ``by_type`` was offered nothing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    by_type: dict[str, tuple[str, ...]] = Field(
        description="Entity type -> the predicates its snippet offered."
    )
    snippet_limit: int | None = Field(
        default=None, description="The snippet limit the run used, when known."
    )
    types: tuple[str, ...] | None = Field(
        default=None, description="The extractor's `types`, when it named some (None: all)."
    )

    @classmethod
    def from_ontology(
        cls,
        ontology: object,
        *,
        types: list[str] | tuple[str, ...] | None = None,
        snippet_limit: int | None = 25,
    ) -> Offered:
        """What ``Ontology.offered(types, snippet_limit)`` shows each type, with no model call."""
        from openodke.ontology import Ontology

        if not isinstance(ontology, Ontology):
            raise TypeError("Offered.from_ontology needs an openodke.ontology.Ontology")
        return cls(
            by_type={k: tuple(v) for k, v in ontology.offered(types, snippet_limit).items()},
            snippet_limit=snippet_limit,
            types=tuple(types) if types is not None else None,
        )


class DiagnosisExample(_Frozen):
    """One missed gold fact (or, on the precision side, one false positive) shown as an example.

    ``gold`` is the fact at issue as ``subject · predicate · object`` (on the precision side, the
    false positive itself); ``nearest`` the closest prediction (precision side: the gold fact it
    was paired with), or None; ``why`` the reason it landed in its bucket.
    """

    doc_id: str
    gold: str
    nearest: str | None = None
    why: str | None = None


class DiagnosisRow(_Frozen):
    """One bucket as the EvalReport's ``diagnosis[]`` holds it."""

    row: str = Field(description="The row diagnosed (the last row scored).")
    side: Literal["recall", "precision"]
    bucket: str = Field(description="The bucket id.")
    label: str = Field(description="The bucket as printed.")
    count: int | None = Field(description="Misses (or false positives) here; null: cannot say.")
    share: float | None = Field(description="count over the side's measured total; null if none.")
    examples: list[DiagnosisExample] = Field(default_factory=list)
    note: str | None = Field(default=None, description="What the number cannot say, or why null.")


class Bucket(_Frozen):
    """One bucket of a Diagnosis."""

    bucket: str = Field(description="The bucket id.")
    side: Literal["recall", "precision"]
    label: str = Field(description="The bucket as printed.")
    count: int | None = Field(description="How many landed here; None when the run cannot say.")
    share: float | None = Field(description="count / the side's measured total.")
    examples: tuple[DiagnosisExample, ...] = ()
    note: str | None = None


class Rate(_Frozen):
    """A recall over some subset of the gold: ``hits`` of ``of``; None when ``of`` is 0."""

    hits: int
    of: int

    @property
    def value(self) -> float | None:
        """hits / of, or None when there is nothing to divide by."""
        return self.hits / self.of if self.of else None


class Replay(_Frozen):
    """A fix replayed exactly: the predictions with something added, rescored."""

    added: int = Field(description="Facts added to the predictions (new to them).")
    found: int = Field(description="Gold facts the addition turned into hits.")
    recall_before: float | None
    recall_after: float | None
    precision_before: float | None
    precision_after: float | None


class Group(_Frozen):
    """A bucket's misses grouped by type and predicate (or predicate alone), with a count."""

    name: str
    count: int


class Diagnosis(_Frozen):
    """Where one row loses facts: 12 recall buckets, 3 precision classes, and what fixes need.

    ``buckets`` holds all 15 buckets, recall side first, in the spec's order (so
    ``{b.bucket: b.count for b in found.buckets if b.count}`` shows both sides, as the spec's
    example prints). ``recall_side`` and ``precision_side`` split them.
    """

    row: str = Field(description="The row diagnosed.")
    gold: int = Field(description="Gold facts scored (repeats counted once).")
    hits: int = Field(description="Gold facts the row found.")
    misses: int = Field(description="Gold facts the row missed: the recall side's total.")
    false_positives: int = Field(description="Written predictions that are not in the gold.")
    buckets: tuple[Bucket, ...]
    confirmed: bool = Field(description="True when --lenient decisions decided surface forms.")
    rates: dict[str, Rate | None] = Field(
        description="Recall over subsets the fixes' expectations use: row, offered, "
        "same_sentence, short_documents (None: the run cannot say)."
    )
    replays: dict[str, Replay | None] = Field(
        description="Exact replays: refusals accepted (audit), the inverse step (inverses)."
    )
    groups: dict[str, tuple[Group, ...]] = Field(
        description="Per recall bucket, its misses by type · predicate (never_offered) or "
        "predicate, largest first (at most 5)."
    )
    offered_knobs: tuple[str, ...] = Field(
        default=(),
        description="The extractor knobs behind never-offered misses: snippet_limit, types.",
    )
    notes: tuple[str, ...] = ()

    @property
    def recall_side(self) -> tuple[Bucket, ...]:
        """The 12 recall buckets, in order."""
        return self.buckets[: len(RECALL_BUCKETS)]

    @property
    def precision_side(self) -> tuple[Bucket, ...]:
        """The 3 precision classes, in order."""
        return self.buckets[len(RECALL_BUCKETS) :]

    def bucket(self, bucket_id: str) -> Bucket:
        """The bucket with this id; KeyError when there is none."""
        for found in self.buckets:
            if found.bucket == bucket_id:
                return found
        raise KeyError(bucket_id)

    def rows(self) -> list[DiagnosisRow]:
        """The EvalReport's ``diagnosis[]`` rows, one per bucket."""
        return [
            DiagnosisRow(
                row=self.row,
                side=b.side,
                bucket=b.bucket,
                label=b.label,
                count=b.count,
                share=b.share,
                examples=list(b.examples),
                note=b.note,
            )
            for b in self.buckets
        ]

    def render(self) -> str:
        """The table ``odke eval pipeline`` prints (see :func:`render_diagnosis`)."""
        return render_diagnosis(self)


# The table (openodke.eval.diagnosis.render names it): here, beside what it prints.
def _count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _table(buckets: tuple[Bucket, ...], width: int) -> list[str]:
    return [
        f"  {b.label:<{width}}{_count(b.count):<8}{_share(b.share)}".rstrip()
        for b in buckets
        if b.count or b.bucket not in _SHOWN_WHEN_COUNTED
    ]


# Printed only when it holds a miss, so a run without near misses prints the spec's 11 rows
# (DECISIONS #110).
_SHOWN_WHEN_COUNTED = frozenset({"other_type_or_key"})


def render_diagnosis(diagnosis: Diagnosis) -> str:
    """The table (label, misses, share; — where the run cannot say), then examples and notes.

    The first lines are exactly the spec's: ``where it loses facts  (<row>: <n> misses)``, a
    header ``misses  share`` and one line per recall bucket (``same fact, other type or key``
    only when it holds a miss). Each example reads ``e.g. <label>:
    <doc>: <subject> · <predicate> · <object> (<why>)``. The false positives follow as a second
    table, then each bucket's note.
    """
    recall, precision = diagnosis.recall_side, diagnosis.precision_side
    width = max(len(b.label) for b in diagnosis.buckets) + 2
    width = max(width, 38)
    lines = [f"where it loses facts  ({diagnosis.row}: {diagnosis.misses:,} misses)"]
    lines.append(" " * (width + 2) + "misses  share")
    lines += _table(recall, width)
    examples = [
        f"  e.g. {b.label}: {e.doc_id}: {e.gold} ({e.why})"
        if e.why
        else f"  e.g. {b.label}: {e.doc_id}: {e.gold}"
        for b in recall
        for e in b.examples
    ]
    if examples:
        lines += ["", *examples]
    # The row's false positives are the facts it wrote; the gate's catches are counted beside
    # them, so the header adds up to the rows below it.
    refused = next((b.count for b in precision if b.bucket == "refused_not_in_gold"), None)
    head = f"{diagnosis.row}: {diagnosis.false_positives:,}"
    if refused:
        head += f" written, and {refused:,} refused by the gate, not in gold"
    lines += ["", f"false positives  ({head})"]
    lines += _table(precision, width)
    fp_examples = [
        f"  e.g. {b.label}: {e.doc_id}: {e.gold} ({e.why})" for b in precision for e in b.examples
    ]
    if fp_examples:
        lines += ["", *fp_examples]
    notes = [f"  • {b.label}: {b.note}" for b in diagnosis.buckets if b.note]
    notes += [f"  • {note}" for note in diagnosis.notes if note not in {b.note for b in recall}]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)
