"""Loading the documents a run or an evaluation reads: a folder of texts or Document JSONL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

from openodke.errors import InputError
from openodke.safeio import decode, iter_lines, load_jsonl, read_bytes, walk_files
from openodke.types import Document, Modality, SourceTier

__all__ = ["load_documents"]

_Modality = Literal["unstructured", "semi_structured", "structured"]
_Tier = Literal["unverified", "community", "authoritative", "curated"]


class _Document(msgspec.Struct, forbid_unknown_fields=True):
    """Document's fields, for reading large JSONL without a model per row."""

    text: str
    id: str | None = None
    uri: str | None = None
    title: str | None = None
    modality: _Modality = "unstructured"
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None
    metadata: dict[str, Any] = {}


def _fast_jsonl(path: Path) -> list[Document] | None:
    """Document JSONL decoded by msgspec a line at a time, or None: then the model reader names
    the bad line. Lines are read in bounded pieces (a line past the limit is refused)."""
    decode_line = msgspec.json.Decoder(_Document).decode
    rows: list[_Document] = []
    for _, line in iter_lines(path, what="Document JSONL or a folder of texts"):
        try:
            rows.append(decode_line(line))
        except (msgspec.DecodeError, ValueError, RecursionError):
            return None
    if not rows:
        return None
    now = datetime.now(UTC)
    return [
        Document.model_construct(
            id=r.id if r.id is not None else uuid.uuid4().hex,
            text=r.text,
            uri=r.uri,
            title=r.title,
            modality=Modality(r.modality),
            tier=SourceTier(r.tier),
            retrieved_at=r.retrieved_at if r.retrieved_at is not None else now,
            metadata=r.metadata,
        )
        for r in rows
    ]


def load_documents(path: str | Path) -> list[Document]:
    """Documents from a folder (a file's id is its path inside it: ``halden.txt``) or JSONL.

    Folders are read recursively in sorted order, skipping hidden files; every file must be UTF-8
    and a regular file, and every subfolder readable (:func:`openodke.safeio.walk_files`).
    """
    root = Path(path)
    if root.is_dir():
        documents = []
        for file in walk_files(root, what="texts"):
            relative = file.relative_to(root)
            text = decode(read_bytes(file, what="a text file"), path=str(file))
            documents.append(Document(id=relative.as_posix(), text=text, uri=str(file)))
        if not documents:
            raise InputError("no documents in this folder", path=str(root))
        return documents
    if not root.exists() and not root.is_symlink():
        raise InputError("no such file or folder", path=str(root))
    documents = _fast_jsonl(root) or load_jsonl(root, Document)
    seen: set[str] = set()
    for number, doc in enumerate(documents, start=1):
        if doc.id in seen:
            raise InputError(f"document id {doc.id!r} appears twice", path=str(root), line=number)
        seen.add(doc.id)
    return documents
