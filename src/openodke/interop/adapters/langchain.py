"""LangChain graph documents (``GraphDocument`` dumps) as triples rows."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openodke.interop.adapters._records import Problem, as_index, read_records, scalar, why
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow
from openodke.types import Document

__all__ = ["iter_langchain_rows", "langchain_rows", "parse_repr", "read_langchain"]

_UNTYPED = {"", "node"}  # langchain's Node.type defaults to "Node": no type was given


def read_langchain(
    path: str | Path, documents: Iterable[Document] | DocumentIndex
) -> list[TripleRow]:
    """Read LangChain ``GraphDocument`` dumps (``LLMGraphTransformer`` output) as triples rows.

    The file holds ``graph_document.model_dump()`` objects: a JSON list, one object, or JSONL.
    LangChain's own ``dumpd`` envelope (``{"lc": 1, "type": "constructor", "kwargs": {...}}``) is
    unwrapped wherever it appears. ``langchain_core.load.dumps(graph_documents)`` cannot serialise
    a GraphDocument and writes ``{"lc": 1, "type": "not_implemented", "id": [..., "GraphDocument"],
    "repr": "GraphDocument(nodes=[Node(id='Ada', ...)], ...)"}``: the ``repr`` is read (parsed as
    a Python expression, never run: only calls, lists, dicts and literals are taken).

    Mapping:

    - each ``relationships[]`` entry is one row: ``source.id`` -> ``subject``, ``source.type`` ->
      ``subject_type``, ``type`` -> ``predicate`` (``WORKS_AT`` finds the ontology's
      ``works_at``: lookups ignore case), ``target.id`` -> ``object``, ``target.type`` ->
      ``object_type``, ``properties`` -> ``qualifiers``. A node type of ``Node`` (LangChain's
      default) counts as untyped;
    - each scalar in a node's ``properties`` is one more row: the node is the subject, the key
      the predicate and the value a literal (``object_type: "string"`` for text); a list gives a
      row per element;
    - the document is ``source``: matched by ``source.id``, ``metadata.id`` or
      ``metadata.source`` (a document id, a harness file name, or a source stem), else by
      ``page_content`` equal to a document's text, else by the one document containing it (a
      chunk). An unmatched graph keeps its first reference as ``doc``, so the harness drops and
      counts its rows;
    - LangChain records no spans, so every row cites its whole document (``context``);
      ``extractor`` is ``langchain``.
    """
    return langchain_rows(read_records(path), documents, path=path)


def langchain_rows(
    records: Iterable[tuple[int | None, Any]],
    documents: Iterable[Document] | DocumentIndex,
    *,
    path: str | Path = "returned documents",
) -> list[TripleRow]:
    """:func:`read_langchain` on records already read: ``(line, GraphDocument dict)`` pairs."""
    return list(iter_langchain_rows(records, documents, path=path))


def iter_langchain_rows(
    records: Iterable[tuple[int | None, Any]],
    documents: Iterable[Document] | DocumentIndex,
    *,
    path: str | Path = "returned documents",
) -> Iterator[TripleRow]:
    """:func:`langchain_rows` one row at a time, as the records are read."""
    index = as_index(documents)
    for number, (line, record) in enumerate(records, start=1):
        try:
            graph = _unwrap(record)
        except ValueError as error:
            raise Problem(str(error), path=path, line=line, number=number) from None
        if not isinstance(graph, dict) or "relationships" not in graph:
            raise Problem(
                "expected a GraphDocument object with 'nodes', 'relationships' and 'source'",
                path=path,
                line=line,
                number=number,
            )
        for field in ("nodes", "relationships"):
            if not isinstance(graph.get(field) or [], list):
                raise Problem(
                    f"{field} must be a list, got {type(graph[field]).__name__}",
                    path=path,
                    line=line,
                    number=number,
                )
        for position, node in enumerate(graph.get("nodes") or []):
            if isinstance(node, dict) and not isinstance(node.get("properties") or {}, dict):
                raise Problem(
                    f"nodes[{position}].properties must be an object",
                    path=path,
                    line=line,
                    number=number,
                )
        doc_ref = _document(graph.get("source"), index, number)
        for position, relation in enumerate(graph.get("relationships") or []):
            try:
                row = _relation_row(relation, doc_ref)
            except (AttributeError, KeyError, TypeError, ValueError, ValidationError) as error:
                raise Problem(
                    f"relationships[{position}]: {why(error)}", path=path, line=line, number=number
                ) from None
            yield row
        for node in graph.get("nodes") or []:
            if isinstance(node, dict):
                yield from _property_rows(node, doc_ref)


def _unwrap(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("lc") == 1 and value.get("type") == "constructor" and "kwargs" in value:
            return _unwrap(value["kwargs"])
        if value.get("lc") == 1 and value.get("type") == "not_implemented":
            return _not_implemented(value)
        return {key: _unwrap(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unwrap(item) for item in value]
    return value


def _type(node: dict[str, Any]) -> str | None:
    written = node.get("type")
    if not isinstance(written, str) or written.strip().casefold() in _UNTYPED:
        return None
    return written


def _name(node: Any) -> str:
    if not isinstance(node, dict) or "id" not in node:
        raise KeyError("id")
    name = node["id"]
    if isinstance(name, bool) or not isinstance(name, str | int):
        raise ValueError(f"node id must be a string or integer, got {name!r}")
    return str(name)


def _relation_row(relation: Any, doc_ref: str) -> TripleRow:
    if not isinstance(relation, dict):
        raise ValueError("expected an object")
    source, target = relation["source"], relation["target"]
    qualifiers = {k: v for k, v in (relation.get("properties") or {}).items() if v is not None}
    return TripleRow(
        doc=doc_ref,
        subject=_name(source),
        subject_type=_type(source),
        predicate=str(relation["type"]),
        object=_name(target),
        object_type=_type(target),
        qualifiers=qualifiers,
        extractor="langchain",
    )


def _property_rows(node: dict[str, Any], doc_ref: str) -> list[TripleRow]:
    rows: list[TripleRow] = []
    try:
        subject = _name(node)
    except (KeyError, ValueError):
        return rows
    for key, value in (node.get("properties") or {}).items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            literal = scalar(item)
            if literal is None or (isinstance(literal, str) and not literal.strip()):
                continue
            rows.append(
                TripleRow(
                    doc=doc_ref,
                    subject=subject,
                    subject_type=_type(node),
                    predicate=str(key),
                    object=literal,
                    object_type="string" if isinstance(literal, str) else None,
                    extractor="langchain",
                )
            )
    return rows


def _document(source: Any, index: DocumentIndex, number: int) -> str:
    """The id of the document a graph came from, or its best reference when none matches."""
    source = source if isinstance(source, dict) else {}
    metadata = source.get("metadata") if isinstance(source.get("metadata"), dict) else {}
    references = [
        str(ref)
        for ref in (source.get("id"), metadata.get("id"), metadata.get("source"))
        if isinstance(ref, str | int) and not isinstance(ref, bool) and str(ref)
    ]
    for reference in references:
        found = index.get(reference)
        if found is not None:
            return found.id
    text = source.get("page_content")
    if isinstance(text, str) and text:
        found = index.by_text(text) or index.containing(text)
        if found is not None:
            return found.id
    return references[0] if references else f"langchain graph {number} (no source document)"


def _not_implemented(envelope: dict[str, Any]) -> Any:
    """What ``dumps()`` wrote for an object it cannot serialise: its ``repr``, parsed."""
    ids = envelope.get("id") if isinstance(envelope.get("id"), list) else []
    name = str(ids[-1]) if ids else "object"
    text = envelope.get("repr")
    if name not in {"GraphDocument", "Node", "Relationship"} or not isinstance(text, str):
        raise ValueError(
            f"dumps() wrote a {name} it could not serialise; expected GraphDocuments "
            "(dump them with dumps() or model_dump())"
        )
    return _unwrap(parse_repr(text))


def parse_repr(text: str) -> Any:
    """A pydantic ``repr`` (``Node(id='Ada', type='Person', properties={})``) as plain data.

    Parsed with :mod:`ast`, never evaluated: a call becomes the dict of its keyword arguments,
    lists, tuples, dicts and literals are kept, and anything else (a name, an expression) is None.
    ValueError when the text is not a Python expression.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise ValueError(f"cannot read the repr dumps() wrote: {error.msg}") from None
    return _literal(tree.body)


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Call):
        return {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg is not None}
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _literal(key): _literal(value)
            for key, value in zip(node.keys, node.values, strict=True)
            if key is not None and isinstance(_literal(key), str | int | float | bool)
        }
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    return None
