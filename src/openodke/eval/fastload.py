"""The fast path for large extraction files: JSONL straight to match keys.

``odke eval extract`` on a million rows cannot afford a pydantic model per row, so this module
decodes lines with msgspec structs that mirror :class:`~openodke.types.Fact` and
:class:`~openodke.eval.labels.GoldFact` field for field (unknown keys forbidden), and reduces each
to a :class:`~openodke.eval.matching.MatchKey`. Any line the structs refuse sends the whole file
through the pydantic reader instead, which either accepts it (a coercion only pydantic makes) or
raises the usual ``path:line: what is wrong``. So the fast path never accepts what the models
refuse, and a test checks both paths give the same metrics.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

from openodke.eval.extract import KeyRows, PredictionKeyRows
from openodke.eval.jsonl import load_jsonl
from openodke.eval.labels import GoldFact
from openodke.eval.matching import fact_key
from openodke.types import Fact, normalise_value

__all__ = ["load_gold_keys", "load_prediction_keys"]

_Tier = Literal["unverified", "community", "authoritative", "curated"]
_Value = str | int | float | bool


class _Resolution(msgspec.Struct, forbid_unknown_fields=True):
    method: str
    score: float | None = None
    linker: str | None = None


class _Entity(msgspec.Struct, forbid_unknown_fields=True):
    key: str
    type: str = "Thing"
    label: str | None = None
    aliases: list[str] = []
    external_id: str | None = None
    resolution: _Resolution | None = None
    attributes: dict[str, Any] = {}


class _Span(msgspec.Struct, forbid_unknown_fields=True):
    doc_id: str
    start: int
    end: int
    quote: str | None = None


class _Evidence(msgspec.Struct, forbid_unknown_fields=True):
    doc_id: str
    span: _Span | None = None
    mention: _Span | None = None
    span_origin: Literal["cited", "located", "context"] = "cited"
    uri: str | None = None
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None


class _Support(msgspec.Struct, forbid_unknown_fields=True):
    source: str
    documents: list[str] = []
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None


class _Fact(msgspec.Struct, forbid_unknown_fields=True):
    subject: _Entity
    predicate: str
    id: str | None = None
    object_entity: _Entity | None = None
    object_value: _Value | None = None
    polarity: Literal["asserted", "denied", "partial"] = "asserted"
    qualifiers: dict[str, Any] = {}
    identity_keys: list[str] = []
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: list[_Evidence] = []
    extractor: str = "unknown"
    confidence: float = 0.0
    verdict: Literal["unchecked", "supported", "contradicted", "not_found"] = "unchecked"
    support: int = 1
    supported_by: list[_Support] = []
    retired_at: datetime | None = None


class _Gold(msgspec.Struct, forbid_unknown_fields=True):
    doc_id: str
    fact: _Fact


class _Refused(Exception):
    """A row the structs accept but the models would refuse."""


def _spans_ok(span: _Span | None) -> bool:
    return span is None or 0 <= span.start <= span.end


def _key(f: _Fact) -> str:
    """The same string :func:`~openodke.eval.matching.fact_key` builds, without the model."""
    if f.evidence and not all(_spans_ok(e.span) and _spans_ok(e.mention) for e in f.evidence):
        raise _Refused
    o = f.object_entity
    if o is not None:
        if f.object_value is not None:
            raise _Refused
        obj = "E" + o.key
    elif f.object_value is None:
        raise _Refused
    else:
        value = f.object_value
        obj = "L" + (str(value) if type(value) is int else normalise_value(value))
    scoped = ""
    if f.identity_keys:
        q = f.qualifiers
        pairs = tuple(sorted((k, repr(q[k])) for k in f.identity_keys if k in q))
        scoped = repr(pairs) if pairs else ""
    s = f.subject
    return f"{f.predicate}\x1f{s.key}\x1f{s.type}\x1f{obj}\x1f{f.polarity}\x1f{scoped}"


@contextmanager
def _no_gc() -> Iterator[None]:
    # Millions of small containers make the cyclic collector rescan the heap over and over;
    # nothing here builds a cycle, so it is paused while rows load.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _lines(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    return [line for line in raw.split(b"\n") if line.strip()]


def load_gold_keys(path: str | Path) -> KeyRows:
    """Each GoldFact line's document and key; the pydantic reader on any line refused here."""
    decode = msgspec.json.Decoder(_Gold).decode
    with _no_gc():
        try:
            docs: list[str] = []
            keys: list[str] = []
            for line in _lines(Path(path)):
                g = decode(line)
                docs.append(g.doc_id)
                keys.append(_key(g.fact))
            if keys:
                return KeyRows(docs, keys)
        except (msgspec.DecodeError, _Refused, UnicodeDecodeError, OSError):
            pass
        gold = load_jsonl(path, GoldFact)
        return KeyRows([row.doc_id for row in gold], [fact_key(row.fact) for row in gold])


def load_prediction_keys(path: str | Path) -> PredictionKeyRows:
    """Each Fact line's cited documents and key; the pydantic reader on any line refused here."""
    decode = msgspec.json.Decoder(_Fact).decode
    with _no_gc():
        try:
            cited: list[tuple[str, ...]] = []
            keys = []
            for line in _lines(Path(path)):
                f = decode(line)
                evidence = f.evidence
                if len(evidence) == 1:
                    cited.append((evidence[0].doc_id,))
                else:
                    cited.append(tuple(dict.fromkeys(e.doc_id for e in evidence)))
                keys.append(_key(f))
            if keys:
                return PredictionKeyRows(cited, keys)
        except (msgspec.DecodeError, _Refused, UnicodeDecodeError, OSError):
            pass
        facts = load_jsonl(path, Fact)
        return PredictionKeyRows([f.doc_ids for f in facts], [fact_key(f) for f in facts])
