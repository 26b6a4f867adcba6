"""Triples rows: the plain format any pipeline can write, and how a row becomes a Fact.

A row names a document, a subject, a predicate and an object, and optionally where the text says
it (offsets, a quote) and the types of its ends. ``read_triples`` reads a JSONL file of them with
``path:line`` errors; ``to_fact`` turns one into a Fact by the rules in the module docstring of
``to_fact``. The JSON Schema, ``triples.schema.json`` beside this module, is generated from
:class:`TripleRow` (``write_triples_schema()`` rewrites it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from openodke.errors import InputError
from openodke.eval.engine.jsonl import atomic_write_text, validation_message
from openodke.ontology import LITERAL_TYPES, Ontology
from openodke.ontology.checks import did_you_mean
from openodke.safeio import first_line, open_regular, parse_json
from openodke.safeio.files import iter_line_spans
from openodke.types import (
    Document,
    Entity,
    Evidence,
    Fact,
    GroundingVerdict,
    Polarity,
    Span,
    SpanOrigin,
)

__all__ = [
    "DEFAULT_CONFIDENCE",
    "EVIDENCE_KINDS",
    "SCHEMA_PATH",
    "TRIPLES_SCHEMA_VERSION",
    "EvidenceKind",
    "TripleRow",
    "entity_key",
    "evidence_kind",
    "is_fact_rows",
    "iter_triples",
    "iter_triples_at",
    "read_triples",
    "to_fact",
    "triples_at",
    "triples_json_schema",
    "unknown_fields",
    "write_triples_schema",
]

TRIPLES_SCHEMA_VERSION = "1.0"
"""The triples row format's version."""

DEFAULT_CONFIDENCE = 0.5
"""The stage prior a row without ``confidence`` gets."""

SCHEMA_PATH = Path(__file__).with_name("triples.schema.json")
"""Where the committed JSON Schema of TripleRow lives."""

EvidenceKind = Literal["cited", "quoted", "quote_not_found", "context"]
EVIDENCE_KINDS: tuple[str, ...] = ("cited", "quoted", "quote_not_found", "context")
"""What a row's evidence is: offsets, a quote found, a quote not found, or neither."""

Scalar = str | int | float | bool


class TripleRow(BaseModel):
    """One triple a pipeline wrote, with where it read it."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="TripleRow")

    schema_version: str = Field(
        default=TRIPLES_SCHEMA_VERSION,
        pattern=r"^1\.[0-9]+$",
        description="The format's version: 1.x.",
    )
    doc: str = Field(
        min_length=1,
        description="A Document id, or a loaded file's name without suffix (texts/halden.txt -> halden).",
    )
    subject: str = Field(min_length=1, description="The subject's name as written.")
    predicate: str = Field(
        min_length=1,
        description="Matched to the ontology's names, aliases and labels, case ignored.",
    )
    object: Scalar = Field(
        description="A name (an entity) or a literal: string, number or bool.",
    )
    subject_type: str | None = Field(default=None, description="Matched case-insensitively.")
    object_type: str | None = Field(
        default=None,
        description="A type name, or a literal type (string, text, integer, number, float, boolean, date, datetime, quantity).",
    )
    start: int | None = Field(
        default=None, ge=0, description="Character offset where the evidence starts; with `end`."
    )
    end: int | None = Field(
        default=None, ge=0, description="Character offset where it ends (exclusive); with `start`."
    )
    quote: str | None = Field(
        default=None,
        description="The words stating it; searched exactly when there are no offsets.",
    )
    polarity: Polarity = Field(
        default=Polarity.asserted, description="asserted, denied or partial."
    )
    qualifiers: dict[str, Any] = Field(default_factory=dict, description="Qualifier key -> value.")
    confidence: float | None = Field(
        default=None, ge=0.0, le=1.0, description="0 to 1; unset takes the stage prior (0.5)."
    )
    extractor: str | None = Field(default=None, description="What produced the row.")
    id: str | None = Field(default=None, description="A fact id; a fresh one when unset.")

    @field_validator("doc", mode="before")
    @classmethod
    def _doc_text(cls, value: Any) -> Any:
        # A numeric document id is still an id.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("object")
    @classmethod
    def _object_not_blank(cls, value: Scalar) -> Scalar:
        if isinstance(value, str) and not value.strip():
            raise ValueError("object is blank")
        return value

    @model_validator(mode="after")
    def _offsets(self) -> TripleRow:
        if (self.start is None) != (self.end is None):
            given = "start" if self.start is not None else "end"
            raise ValueError(f"start and end come together: only {given} is given")
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")
        return self


def triples_json_schema() -> dict[str, Any]:
    """The JSON Schema of a triples row, as generated from :class:`TripleRow`."""
    schema = TripleRow.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def write_triples_schema(path: str | Path = SCHEMA_PATH) -> None:
    """Write the generated schema (sorted keys, two-space indent, final newline)."""
    atomic_write_text(path, json.dumps(triples_json_schema(), indent=2, sort_keys=True) + "\n")


_FIELDS = tuple(TripleRow.model_fields)
_KNOWN = frozenset(_FIELDS)  # `TripleRow.model_fields` is a pydantic property: 1 us a read
_REQUIRED = tuple(name for name, field in TripleRow.model_fields.items() if field.is_required())
_OPTIONAL = tuple(name for name in _FIELDS if name not in _REQUIRED)


def unknown_fields(row: dict[str, Any]) -> str | None:
    """What is wrong with a row's unknown keys, naming the fields a row takes; None when none.

    ``subj: unknown field (did you mean 'subject'?); a triples row has doc, subject, predicate,
    object and optionally subject_type, ...``
    """
    unknown = [key for key in row if key not in _KNOWN]
    if not unknown:
        return None
    problems = [f"{key}: unknown field{did_you_mean(str(key), _FIELDS)}" for key in unknown]
    wanted = (
        f"a triples row has {', '.join(_REQUIRED)} and optionally {', '.join(_OPTIONAL)} "
        "(odke eval pipeline --describe)"
    )
    return "; ".join([*problems, wanted])


def read_triples(path: str | Path) -> list[TripleRow]:
    """Read a triples JSONL file; InputError at ``path:line`` on any bad row.

    An unknown field is named with a did-you-mean (``obj: unknown field (did you mean
    'object'?)``); blank lines are skipped; an empty file is an error.
    """
    return list(iter_triples(path))


def iter_triples(path: str | Path) -> Iterator[TripleRow]:
    """The rows of a triples JSONL file one at a time (:func:`read_triples`'s checks), so a
    reader that turns each into something else holds one line, not the file."""
    for _, row in iter_triples_at(path):
        yield row


def iter_triples_at(path: str | Path) -> Iterator[tuple[int, TripleRow]]:
    """:func:`iter_triples` with the byte offset each row's line starts at, so a row can be
    read again from the file (:func:`triples_at`) instead of being kept."""
    name = str(path)
    # Rows repeat their documents, predicates and types, and name the same fields: one copy of
    # each is kept (a 100 MB file reads in well under 1 GB; bench/triples_memory.py).
    fields_sets: dict[frozenset[str], set[str]] = {}
    seen = False
    for number, offset, raw in iter_line_spans(path):
        seen = True
        row = _row(parse_json(raw, path=name, line=number), name, number)
        given = row.__pydantic_fields_set__
        # frozen rows never change their set; a copy (model_copy) copies it before adding to it
        object.__setattr__(
            row, "__pydantic_fields_set__", fields_sets.setdefault(frozenset(given), given)
        )
        yield offset, row
    if not seen:
        raise InputError("empty file: expected one JSON object per line", path=name)


def triples_at(path: str | Path, offsets: Iterable[int]) -> list[TripleRow]:
    """The rows whose lines start at ``offsets`` (from :func:`iter_triples_at`), read again."""
    name = str(path)
    out = []
    with open_regular(path) as handle:
        for offset in offsets:
            handle.seek(offset)
            raw = handle.readline().rstrip(b"\r\n")
            out.append(_row(parse_json(raw, path=name), name, None))
    return out


def _row(value: Any, name: str, number: int | None) -> TripleRow:
    """A parsed line as a TripleRow; InputError at ``name:number``."""
    if not isinstance(value, dict):
        raise InputError(
            f"expected a JSON object, got {type(value).__name__}", path=name, line=number
        )
    unknown = unknown_fields(value)
    if unknown is not None:
        raise InputError(unknown, path=name, line=number)
    for key in _REPEATED:
        if isinstance(value.get(key), str):
            value[key] = sys.intern(value[key])
    try:
        return TripleRow.model_validate(value)
    except ValidationError as error:
        message = validation_message(error).replace("Value error, ", "")
        raise InputError(message, path=name, line=number) from None


_REPEATED = ("doc", "predicate", "subject_type", "object_type", "extractor", "schema_version")


def is_fact_rows(path: str | Path) -> bool:
    """True when the file's first non-blank line is a JSON object with a dict ``subject``.

    Such a file holds Fact rows (a sink's ``facts.jsonl``), not triples rows. A file that cannot be
    read or parsed is not Fact rows; reading it as triples then names the problem.
    """
    try:
        line = first_line(path, _FIRST_LINE)
        if line is None:
            return False
        value = json.loads(line.decode("utf-8"))
    except (InputError, OSError, RecursionError, ValueError):
        return False
    return isinstance(value, dict) and isinstance(value.get("subject"), dict)


_FIRST_LINE = 1 << 20  # a first line longer than this is not taken for a Fact row


def entity_key(type_name: str, name: str) -> str:
    """Our entity key: ``Type:case-folded name`` with whitespace collapsed."""
    return f"{type_name}:{' '.join(name.split()).casefold()}"


def evidence_kind(row: TripleRow, doc: Document | None) -> EvidenceKind:
    """How a row cites its text: ``cited`` (offsets), ``quoted`` (a quote found in the text),
    ``quote_not_found``, or ``context`` (neither: the whole text). Without the document a quote
    cannot be searched, so a quote alone counts as ``context``."""
    if row.start is not None:
        return "cited"
    if row.quote is not None and doc is not None:
        return "quoted" if row.quote in doc.text else "quote_not_found"
    return "context"


def _evidence(row: TripleRow, doc: Document | None) -> tuple[Evidence, bool]:
    """The row's Evidence, and whether its quote was searched and not found."""
    doc_id = doc.id if doc is not None else row.doc
    source = {}
    if doc is not None:
        source = {"uri": doc.uri, "tier": doc.tier, "retrieved_at": doc.retrieved_at}
    kind = evidence_kind(row, doc)
    span: Span | None = None
    origin = SpanOrigin.cited
    if kind == "cited":
        assert row.start is not None and row.end is not None
        span = Span(doc_id=doc_id, start=row.start, end=row.end, quote=row.quote)
    elif kind == "quoted":
        assert doc is not None and row.quote is not None
        start = doc.text.find(row.quote)
        span = Span(doc_id=doc_id, start=start, end=start + len(row.quote), quote=row.quote)
    else:
        origin = SpanOrigin.context
        if doc is not None:
            span = Span(doc_id=doc_id, start=0, end=len(doc.text))
    evidence = Evidence(doc_id=doc_id, span=span, span_origin=origin, **source)
    return evidence, kind == "quote_not_found"


def _type_name(ontology: Ontology | None, written: str) -> str:
    if ontology is not None:
        found = ontology.entity_type(written)
        if found is not None:
            return found.name
    return written.strip()


def _literal_type(written: str | None) -> bool:
    return written is not None and written.strip().casefold() in LITERAL_TYPES


def to_fact(
    row: TripleRow,
    doc: Document | None = None,
    ontology: Ontology | None = None,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    extractor: str = "triples",
) -> Fact:
    """The Fact a triples row states.

    - **Predicate**: with an ontology, a name, alias or label (case ignored, ``_`` = space)
      becomes the predicate's name; an unknown predicate is kept as written, for the gate.
    - **Subject type**: ``subject_type`` (an ontology type, case ignored, else as written); with
      none, the predicate's domain when it has exactly one type; else ``Thing``.
    - **Object**: with a known predicate its range decides: a literal range makes a property, a
      type an edge whose object type is ``object_type`` when given (it may be a subtype), else the
      range. Otherwise numbers and bools are literals, and a string is an entity unless
      ``object_type`` is a literal type; an untyped entity is ``Thing``.
    - **Entities** are keyed ``Type:case-folded name`` and labelled with the name as written.
    - **Evidence** (see :func:`evidence_kind`): offsets make a cited span (the free span check
      verifies it and its quote); a quote alone is searched exactly and becomes a cited span where
      found, and a quote not found stamps the verdict ``not_found`` with the finding in
      ``qualifiers["odke.check"]``; neither makes a ``context`` span of the whole text. Without
      ``doc`` the row's ``doc`` is the evidence's document and no span is made but a cited one.
    - ``confidence`` unset takes ``confidence`` (the stage prior, 0.5); ``extractor`` unset takes
      ``extractor``; ``id`` unset gets a fresh one. Identity keys come from the ontology.
    """
    pred = ontology.predicate(row.predicate) if ontology is not None else None
    predicate = pred.name if pred is not None else row.predicate.strip()

    if row.subject_type is not None:
        subject_type = _type_name(ontology, row.subject_type)
    elif pred is not None and len(pred.domain) == 1:
        subject_type = pred.domain[0]
    else:
        subject_type = "Thing"
    subject_name = row.subject.strip()
    subject = Entity(
        key=entity_key(subject_type, subject_name), type=subject_type, label=subject_name
    )

    value = row.object
    if pred is not None and ontology is not None:
        is_edge = not ontology.is_literal(pred.range)
    else:
        is_edge = isinstance(value, str) and not _literal_type(row.object_type)
    object_entity: Entity | None = None
    object_value: Any = None
    if is_edge:
        if row.object_type is not None and not _literal_type(row.object_type):
            object_type = _type_name(ontology, row.object_type)
        elif pred is not None:
            object_type = pred.range
        else:
            object_type = "Thing"
        name = str(value).strip()
        object_entity = Entity(key=entity_key(object_type, name), type=object_type, label=name)
    else:
        object_value = value

    evidence, quote_missing = _evidence(row, doc)
    qualifiers = dict(row.qualifiers)
    verdict = GroundingVerdict.unchecked
    if quote_missing:
        verdict = GroundingVerdict.not_found
        qualifiers["odke.check"] = f"quote not found in the document: {row.quote!r}"
    fields: dict[str, Any] = {}
    if row.id is not None:
        fields["id"] = row.id
    return Fact(
        subject=subject,
        predicate=predicate,
        object_entity=object_entity,
        object_value=object_value,
        polarity=row.polarity,
        qualifiers=qualifiers,
        identity_keys=ontology.identity_keys(predicate) if ontology is not None else (),
        evidence=(evidence,),
        extractor=row.extractor or extractor,
        confidence=confidence if row.confidence is None else row.confidence,
        verdict=verdict,
        **fields,
    )
