"""The diagnosis as ``odke eval pipeline`` prints it: the spec's table, examples, false positives."""

from __future__ import annotations

from openodke.eval.diagnosis.models import Bucket, Diagnosis

__all__ = ["render_diagnosis"]


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
