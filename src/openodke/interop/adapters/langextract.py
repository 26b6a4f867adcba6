"""LangExtract annotated documents (``lx.io.save_annotated_documents`` JSONL) as triples rows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openodke.interop.adapters._records import Problem, as_index, read_records, scalar, why
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow
from openodke.types import Document

__all__ = ["iter_langextract_rows", "langextract_rows", "read_langextract"]

SUBJECT_KEYS = ("subject", "source", "head")
OBJECT_KEYS = ("object", "target", "tail")
PREDICATE_KEYS = ("predicate", "relation", "relationship", "type")
_TYPE_KEYS = ("subject_type", "object_type")
_UNTYPED_GROUPS = frozenset({"relationship", "relation", "group", ""})


def read_langextract(
    path: str | Path, documents: Iterable[Document] | DocumentIndex
) -> list[TripleRow]:
    """Read LangExtract's annotated-document JSONL as triples rows.

    Each line is ``annotated_document_to_dict(doc)``: ``document_id``, ``text`` and
    ``extractions`` (``extraction_class``, ``extraction_text``, ``char_interval``
    ``{start_pos, end_pos}``, ``alignment_status``, ``attributes``, ...). LangExtract extracts
    classed spans, not triples, so the mapping is:

    - **a relation extraction**, one whose ``attributes`` name both ends (``subject`` /
      ``source`` / ``head`` and ``object`` / ``target`` / ``tail``), is one row: those ends, the
      predicate from ``predicate`` / ``relation`` / ``relationship`` / ``type`` or else the
      ``extraction_class``; ``subject_type`` and ``object_type`` attributes type the ends, and
      any other attribute becomes a qualifier;
    - **an entity extraction** (any other) is the subject: ``extraction_text`` its name,
      ``extraction_class`` its type, and each attribute a property row (key -> predicate, value
      -> a ``string`` literal; a list gives a row per value; with an ontology the predicate's
      range still decides edge or property). An entity with no attributes states no triple and
      gives no row;
    - **evidence**: ``char_interval`` becomes the row's ``start``/``end`` (a cited span), with
      ``extraction_text`` as the quote when the text at those offsets is exactly it (a fuzzy
      alignment cites the offsets alone). Offsets are into the annotated ``text``; when that text
      is a part of the matched document found once in it, they are shifted, and when it cannot be
      placed they are dropped and the quote is searched instead. An extraction with no
      ``char_interval`` cites its ``extraction_text`` as a quote, searched exactly;
    - **a group** (LangExtract's documented relationship pattern: extractions linked by an
      attribute whose name ends in ``_group``, ``medication_group: "Aspirin"``): the group's value
      names its head, the member whose ``extraction_text`` is that value (case and spaces
      ignored), typed by its ``extraction_class``; with no such member the value itself, typed by
      the attribute's prefix (``medication``; none for ``relationship_group``). Every other member
      is one row: the head, the member's ``extraction_class`` as the predicate (``dosage``), its
      ``extraction_text`` as the object, cited where the member is. The group attribute is no
      property; a member's other attributes are its properties as above;
    - **the document**: ``document_id`` as a document id, harness file name or source stem, else
      ``text`` equal to (or found once in) a document's text. An unmatched line keeps its
      ``document_id`` as ``doc``, so the harness drops and counts its rows. ``extractor`` is
      ``langextract``.
    """
    return langextract_rows(read_records(path), documents, path=path)


def langextract_rows(
    records: Iterable[tuple[int | None, Any]],
    documents: Iterable[Document] | DocumentIndex,
    *,
    path: str | Path = "returned documents",
) -> list[TripleRow]:
    """:func:`read_langextract` on records already read: ``(line, annotated document dict)``."""
    return list(iter_langextract_rows(records, documents, path=path))


def iter_langextract_rows(
    records: Iterable[tuple[int | None, Any]],
    documents: Iterable[Document] | DocumentIndex,
    *,
    path: str | Path = "returned documents",
) -> Iterator[TripleRow]:
    """:func:`langextract_rows` one row at a time, as the records are read."""
    index = as_index(documents)
    for number, (line, record) in enumerate(records, start=1):
        if not isinstance(record, dict) or not isinstance(record.get("extractions", []), list):
            raise Problem(
                "expected an annotated document with 'document_id', 'text' and 'extractions'",
                path=path,
                line=line,
                number=number,
            )
        doc_ref, shift = _document(record, index, number)
        text = record.get("text") if isinstance(record.get("text"), str) else None
        extractions = record.get("extractions") or []
        for position, extraction in enumerate(extractions):
            try:
                found = _rows(extraction, doc_ref, text, shift)
            except (KeyError, TypeError, ValueError, ValidationError) as error:
                raise Problem(
                    f"extractions[{position}]: {why(error)}", path=path, line=line, number=number
                ) from None
            yield from found
        yield from _group_rows(extractions, doc_ref, text, shift)


def _group_key(key: str) -> bool:
    """An attribute that links extractions: ``medication_group``, ``relationship_group``."""
    return key.casefold().endswith("_group")


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _group_rows(
    extractions: list[Any], doc_ref: str, text: str | None, shift: int | None
) -> list[TripleRow]:
    """A row from each group's head to each other member (the docstring's "a group")."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for extraction in extractions:
        attributes = extraction.get("attributes") if isinstance(extraction, dict) else None
        for key, value in (attributes or {}).items():
            if _group_key(key) and isinstance(value, str | int) and str(value).strip():
                groups.setdefault((key, str(value).strip()), []).append(extraction)
    rows: list[TripleRow] = []
    for (key, value), members in groups.items():
        head = next((m for m in members if _same(str(m["extraction_text"]), value)), None)
        if head is not None:
            name, kind = str(head["extraction_text"]), str(head["extraction_class"])
        else:
            prefix = key[: -len("_group")].strip("_")
            name, kind = value, prefix if prefix.casefold() not in _UNTYPED_GROUPS else ""
        for member in members:
            if member is head:
                continue
            start, end, quote = _interval(member, text, shift)
            rows.append(
                TripleRow(
                    doc=doc_ref,
                    subject=name,
                    subject_type=kind or None,
                    predicate=str(member["extraction_class"]),
                    object=str(member["extraction_text"]),
                    start=start,
                    end=end,
                    quote=quote,
                    extractor="langextract",
                )
            )
    return rows


def _document(record: dict[str, Any], index: DocumentIndex, number: int) -> tuple[str, int | None]:
    """The row ``doc``, and the offset shift (None: the offsets cannot be placed)."""
    text = record.get("text") if isinstance(record.get("text"), str) else None
    reference = record.get("document_id")
    reference = str(reference) if isinstance(reference, str | int) and reference != "" else None
    doc = index.get(reference) if reference is not None else None
    if doc is None and text:
        doc = index.by_text(text) or index.containing(text)
    if doc is None:
        return reference or f"langextract document {number} (no document_id)", None
    if text is None or doc.text == text:
        return doc.id, 0
    start = doc.text.find(text)
    if start >= 0 and doc.text.find(text, start + 1) < 0:
        return doc.id, start
    return doc.id, None


def _interval(
    extraction: dict[str, Any], text: str | None, shift: int | None
) -> tuple[int | None, int | None, str | None]:
    """``(start, end, quote)`` for a row: offsets when usable, the quote when it is exact."""
    quote = extraction["extraction_text"]
    interval = extraction.get("char_interval")
    if not isinstance(interval, dict):
        return None, None, quote
    start, end = interval.get("start_pos"), interval.get("end_pos")
    if not isinstance(start, int) or not isinstance(end, int) or shift is None:
        return None, None, quote
    exact = text is not None and text[start:end] == quote
    return start + shift, end + shift, quote if exact else None


def _rows(extraction: Any, doc_ref: str, text: str | None, shift: int | None) -> list[TripleRow]:
    if not isinstance(extraction, dict):
        raise ValueError("expected an object")
    kind = str(extraction["extraction_class"])
    name = str(extraction["extraction_text"])
    attributes = extraction.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise ValueError("attributes must be an object")
    start, end, quote = _interval(extraction, text, shift)
    cite = {"doc": doc_ref, "start": start, "end": end, "quote": quote, "extractor": "langextract"}

    subject = _first(attributes, SUBJECT_KEYS)
    obj = _first(attributes, OBJECT_KEYS)
    if subject is not None and obj is not None:
        predicate = _first(attributes, PREDICATE_KEYS) or kind
        used = {*SUBJECT_KEYS, *OBJECT_KEYS, *PREDICATE_KEYS, *_TYPE_KEYS}
        qualifiers = {
            k: v
            for k, v in attributes.items()
            if k not in used and v is not None and not _group_key(k)
        }
        return [
            TripleRow(
                subject=str(subject),
                predicate=str(predicate),
                object=obj,
                subject_type=_text(attributes.get("subject_type")),
                object_type=_text(attributes.get("object_type")),
                qualifiers=qualifiers,
                **cite,
            )
        ]

    rows: list[TripleRow] = []
    for key, value in attributes.items():
        if _group_key(key):
            continue
        for item in value if isinstance(value, list) else [value]:
            literal = scalar(item)
            if literal is None or (isinstance(literal, str) and not literal.strip()):
                continue
            rows.append(
                TripleRow(
                    subject=name,
                    subject_type=kind,
                    predicate=str(key),
                    object=literal,
                    object_type="string" if isinstance(literal, str) else None,
                    **cite,
                )
            )
    return rows


def _first(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | int | float | bool | None:
    for key in keys:
        value = scalar(attributes.get(key))
        if value is not None and not (isinstance(value, str) and not value.strip()):
            return value
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
