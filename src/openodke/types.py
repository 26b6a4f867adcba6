"""The data model: documents, entities, evidence, facts, links and the graph.

Every model is a frozen pydantic model with ``extra="forbid"``: an unknown key in any JSON row is an
error, and stages return copies (``model_copy(update=...)``) instead of mutating.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from openodke.forms import normalise_value

__all__ = [
    "Chunk",
    "Document",
    "Entity",
    "EntityLink",
    "Evidence",
    "Fact",
    "GroundingVerdict",
    "KnowledgeGraph",
    "LinkKind",
    "Literal",
    "Modality",
    "Polarity",
    "Record",
    "Resolution",
    "SourceTier",
    "Span",
    "SpanOrigin",
    "Support",
    "normalise_value",
]

Literal = str | int | float | bool
"""A property's value: a string, number or bool."""


# Fresh ids are drawn 512 at a time: uuid.uuid4() reads os.urandom and builds a UUID per call,
# a third of the cost of reading a short Fact. The same 122 random bits and layout (uuid4 hex).
_IDS: list[str] = []
_ID_BATCH = 512


def _refill_ids() -> None:
    text = os.urandom(16 * _ID_BATCH).hex()
    _IDS.extend(
        f"{h[:12]}4{h[13:16]}{'89ab'[int(h[16], 16) & 3]}{h[17:]}"
        for h in (text[k : k + 32] for k in range(0, len(text), 32))
    )


os.register_at_fork(after_in_child=_IDS.clear)  # a forked child draws its own


def _new_id() -> str:
    while True:
        try:
            return _IDS.pop()
        except IndexError:
            _refill_ids()


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Record(BaseModel):
    """Base of every record: frozen, and strict about unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceTier(StrEnum):
    """How far a source is trusted; each tier has a fixed weight."""

    unverified = "unverified"
    community = "community"
    authoritative = "authoritative"
    curated = "curated"

    @property
    def weight(self) -> float:
        """The tier's fixed trust weight (0.2, 0.5, 0.8, 1.0)."""
        return _TIER_WEIGHTS[self]


_TIER_WEIGHTS = {
    SourceTier.unverified: 0.2,
    SourceTier.community: 0.5,
    SourceTier.authoritative: 0.8,
    SourceTier.curated: 1.0,
}


class Polarity(StrEnum):
    """Whether the text asserts, denies or partly asserts a fact; part of the signature."""

    asserted = "asserted"
    denied = "denied"
    partial = "partial"


class GroundingVerdict(StrEnum):
    """What grounding found. ``unchecked``: nothing asked, or the call failed."""

    unchecked = "unchecked"
    supported = "supported"
    contradicted = "contradicted"
    not_found = "not_found"


class SpanOrigin(StrEnum):
    """Who chose a span: the extractor, the span locator, or nobody (the whole text)."""

    cited = "cited"
    located = "located"
    context = "context"


class LinkKind(StrEnum):
    """A resolution link's decision."""

    same_as = "same_as"
    similar = "similar"
    different = "different"


class Modality(StrEnum):
    """How structured a document is."""

    unstructured = "unstructured"
    semi_structured = "semi_structured"
    structured = "structured"


class Document(Record):
    """One input text."""

    id: str = Field(default_factory=_new_id, description="Document id (uuid4 hex by default).")
    text: str = Field(description="The full text.")
    uri: str | None = None
    title: str | None = None
    modality: Modality = Modality.unstructured
    tier: SourceTier = SourceTier.unverified
    retrieved_at: datetime = Field(default_factory=_utc_now)
    metadata: dict[str, Any] = Field(default_factory=dict)


class Chunk(Record):
    """A window of a document: ``text == document.text[start:end]``."""

    doc_id: str
    start: int
    end: int
    text: str
    index: int = 0


class Span(Record):
    """Half-open character offsets into ``Document.text``, with an optional quote."""

    doc_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    quote: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} is before its start {self.start}")
        return self

    def resolve(self, doc: Document) -> str:
        """The text the span covers in ``doc``."""
        return doc.text[self.start : self.end]

    def is_faithful(self, doc: Document) -> bool:
        """True when the quote is absent or equals the text the span covers."""
        return self.quote is None or self.quote == self.resolve(doc)


class Evidence(Record):
    """Where a fact was read: a document, and the claim-bearing span when known."""

    doc_id: str
    span: Span | None = Field(default=None, description="The claim-bearing clause, or None.")
    mention: Span | None = Field(default=None, description="A narrower span for display only.")
    span_origin: SpanOrigin = SpanOrigin.cited
    uri: str | None = None
    tier: SourceTier = SourceTier.unverified
    retrieved_at: datetime | None = None


class Resolution(Record):
    """How an entity's identity was decided."""

    method: str = Field(description="caller, external_id or linker.")
    score: float | None = None
    linker: str | None = None


class Entity(Record):
    """A thing facts are about; ``key`` is its identity."""

    key: str = Field(description="Identity; our extractors use 'Type:case-folded name'.")
    type: str = "Thing"
    label: str | None = None
    aliases: tuple[str, ...] = ()
    external_id: str | None = None
    resolution: Resolution | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)

    @field_validator("key")
    @classmethod
    def _key_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("key is blank: an entity needs an identity")
        return value


class EntityLink(Record):
    """A proposed link between two entity keys; resolution never merges nodes."""

    source_key: str
    target_key: str
    kind: LinkKind = LinkKind.similar
    score: float | None = None
    evidence: tuple[Evidence, ...] = ()
    reason: str | None = None
    created_at: datetime | None = None


class Support(Record):
    """One independent source behind a fact."""

    source: str
    documents: tuple[str, ...] = ()
    tier: SourceTier = SourceTier.unverified
    retrieved_at: datetime | None = None


class Fact(Record):
    """One fact: an edge (``object_entity``) or a property (``object_value``), never both."""

    id: str = Field(default_factory=_new_id, description="Fresh per extraction; not identity.")
    subject: Entity
    predicate: str
    object_entity: Entity | None = None
    object_value: Literal | None = None
    polarity: Polarity = Polarity.asserted
    qualifiers: dict[str, Any] = Field(default_factory=dict)
    identity_keys: tuple[str, ...] = ()
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: tuple[Evidence, ...] = ()
    extractor: str = "unknown"
    confidence: float = 0.0
    verdict: GroundingVerdict = GroundingVerdict.unchecked
    support: int = 1
    supported_by: tuple[Support, ...] = ()
    retired_at: datetime | None = None

    @model_validator(mode="after")
    def _one_object(self) -> Fact:
        if (self.object_entity is None) == (self.object_value is None):
            raise ValueError("exactly one of object_entity and object_value must be set")
        return self

    @property
    def is_edge(self) -> bool:
        """True when the object is an entity."""
        return self.object_entity is not None

    @property
    def object_key(self) -> str:
        """The object as the signature has it: the entity key, or ``repr`` of the literal."""
        if self.object_entity is not None:
            return self.object_entity.key
        return repr(self.object_value)

    @property
    def scoped(self) -> tuple[tuple[str, str], ...]:
        """Sorted ``(key, repr(value))`` of the identity qualifiers present."""
        return tuple(
            sorted(
                (k, repr(self.qualifiers[k])) for k in self.identity_keys if k in self.qualifiers
            )
        )

    @property
    def signature(self) -> tuple[str, str, str, str, str, tuple[tuple[str, str], ...]]:
        """``(subject.key, subject.type, predicate, object, polarity, scoped)``: identity."""
        return (
            self.subject.key,
            self.subject.type,
            self.predicate,
            self.object_key,
            self.polarity.value,
            self.scoped,
        )

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """The documents this fact cites, in order, without repeats."""
        return tuple(dict.fromkeys(e.doc_id for e in self.evidence))


class KnowledgeGraph(Record):
    """Entities, facts and links, with the run's per-stage counts."""

    entities: tuple[Entity, ...] = ()
    facts: tuple[Fact, ...] = ()
    links: tuple[EntityLink, ...] = ()
    ontology_name: str | None = None
    created_at: datetime = Field(default_factory=_utc_now)
    stats: dict[str, Any] = Field(default_factory=dict)

    @property
    def edges(self) -> tuple[Fact, ...]:
        """The facts whose object is an entity."""
        return tuple(f for f in self.facts if f.is_edge)

    @property
    def properties(self) -> tuple[Fact, ...]:
        """The facts whose object is a literal."""
        return tuple(f for f in self.facts if not f.is_edge)

    def __len__(self) -> int:
        return len(self.facts)
