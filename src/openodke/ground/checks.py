"""The free checks: what can be said about a fact without asking a model.

**The span check** verifies each citation of the document against its text: offsets inside the
text, and a quote equal to the text the offsets cover. A quote found elsewhere in the text moves
the span onto it; a quote found nowhere in the text makes the fact ``not_found`` (the only verdict
a free check gives); offsets outside the text drop the span (the whole text stands in). Every
finding is written to ``qualifiers["odke.check"]``; a fact with no finding is left as it came.

**The schema checks** (with an ontology) ask whether the predicate is known and whether the
subject's type fits its domain and the object its range. A misfit keeps its verdict and is
written to ``qualifiers["odke.check"]`` as ``schema: predicate ...``, ``schema: domain ...`` or
``schema: range ...``, the reason ``VerdictGate(schema=True)`` refuses it with. An untyped end
(``Thing``) fits anything.

Findings are joined by ``"; "`` when there are several.
"""

from __future__ import annotations

from openodke.ontology import Ontology
from openodke.types import Document, Evidence, Fact, GroundingVerdict, Span, SpanOrigin

__all__ = [
    "CHECK",
    "QUOTE_NOT_FOUND",
    "SCHEMA",
    "SCHEMA_KINDS",
    "add_findings",
    "findings",
    "is_free_not_found",
    "schema_check",
    "schema_kind",
    "schema_misfits",
    "span_check",
]

CHECK = "odke.check"
"""The qualifier a free check writes its findings to."""

QUOTE_NOT_FOUND = "quote not found in the document"
"""How a quote found nowhere in the text is written (the same words the triples reader uses)."""

SCHEMA = "schema: "
"""How a schema finding starts; the gate refuses with the finding as its reason."""

SCHEMA_KINDS = ("predicate", "domain", "range")
"""The schema misfits, in the order they are checked."""

_UNTYPED = "Thing"


def findings(fact: Fact) -> list[str]:
    """The findings in ``qualifiers["odke.check"]``, one string each."""
    value = fact.qualifiers.get(CHECK)
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [part for part in str(value).split("; ") if part]


def add_findings(fact: Fact, new: list[str], **update: object) -> Fact:
    """A copy of ``fact`` with ``new`` findings appended (repeats skipped) and ``update`` applied."""
    if not new and not update:
        return fact
    fields = dict(update)
    if new:
        have = findings(fact)
        merged = have + [f for f in new if f not in have]
        fields["qualifiers"] = {**fact.qualifiers, CHECK: "; ".join(merged)}
    return fact.model_copy(update=fields)


def is_free_not_found(fact: Fact) -> bool:
    """True when the fact's ``not_found`` came from a free check (a quote not in its text)."""
    return fact.verdict is GroundingVerdict.not_found and any(
        f.startswith(QUOTE_NOT_FOUND) for f in findings(fact)
    )


def _check_one(ev: Evidence, document: Document) -> tuple[Evidence, list[str], bool]:
    span = ev.span
    if span is None or ev.doc_id != document.id:
        return ev, [], False
    text = document.text
    notes: list[str] = []
    inside = span.end <= len(text)
    if span.quote is not None and (not inside or text[span.start : span.end] != span.quote):
        at = text.find(span.quote) if span.quote else -1
        if at < 0:
            return ev, [f"{QUOTE_NOT_FOUND}: {span.quote!r}"], True
        moved = Span(doc_id=span.doc_id, start=at, end=at + len(span.quote), quote=span.quote)
        notes.append(
            f"span: the quote is at {at}-{moved.end}, not at the cited {span.start}-{span.end}"
        )
        return ev.model_copy(update={"span": moved}), notes, False
    if not inside:
        notes.append(
            f"span: {span.start}-{span.end} is outside the text ({len(text)} characters), "
            "so the whole text stands in"
        )
        whole = Span(doc_id=span.doc_id, start=0, end=len(text))
        return (
            ev.model_copy(update={"span": whole, "span_origin": SpanOrigin.context}),
            notes,
            False,
        )
    return ev, notes, False


def span_check(fact: Fact, document: Document) -> Fact:
    """The fact with its citations of ``document`` verified (see the module docstring).

    It becomes ``not_found`` when every citation of the document that carries a quote has a quote
    the text does not hold and no citation of it is good; a verdict already given is kept.
    """
    evidence: list[Evidence] = []
    notes: list[str] = []
    missing = good = 0
    for ev in fact.evidence:
        checked, found, quote_missing = _check_one(ev, document)
        evidence.append(checked)
        notes += found
        if quote_missing:
            missing += 1
        elif ev.doc_id == document.id and ev.span is not None:
            good += 1
    if not notes:
        return fact
    update: dict[str, object] = {"evidence": tuple(evidence)}
    if missing and not good and fact.verdict is GroundingVerdict.unchecked:
        update["verdict"] = GroundingVerdict.not_found
    return add_findings(fact, notes, **update)


def schema_misfits(fact: Fact, ontology: Ontology) -> list[str]:
    """Each way the fact misfits the ontology, as ``schema: predicate|domain|range ...``."""
    pred = ontology.predicate(fact.predicate)
    if pred is None:
        return [f"{SCHEMA}predicate {fact.predicate!r} is not in the ontology"]
    misfits: list[str] = []
    subject_type = fact.subject.type
    if subject_type != _UNTYPED and not ontology.covers(pred, subject_type):
        takes = " or ".join(pred.domain)
        misfits.append(f"{SCHEMA}domain of {pred.name} is {takes}, not {subject_type}")
    if fact.object_entity is not None:
        object_type = fact.object_entity.type
        if ontology.is_literal(pred.range):
            misfits.append(
                f"{SCHEMA}range of {pred.name} is {pred.range}, not an entity ({object_type})"
            )
        elif object_type != _UNTYPED and not ontology.fits_range(pred, object_type):
            misfits.append(f"{SCHEMA}range of {pred.name} is {pred.range}, not {object_type}")
    elif not ontology.is_literal(pred.range):
        misfits.append(f"{SCHEMA}range of {pred.name} is {pred.range}, not a value")
    return misfits


def schema_kind(finding: str) -> str | None:
    """``predicate``, ``domain`` or ``range`` for a schema finding; None for any other."""
    if not finding.startswith(SCHEMA):
        return None
    word = finding[len(SCHEMA) :].split(" ", 1)[0]
    return word if word in SCHEMA_KINDS else None


def schema_check(fact: Fact, ontology: Ontology) -> Fact:
    """The fact with its schema misfits written to ``odke.check``; its verdict kept."""
    return add_findings(fact, schema_misfits(fact, ontology))
