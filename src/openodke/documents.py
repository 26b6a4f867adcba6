"""Loading the documents a run or an evaluation reads: a folder of texts or Document JSONL."""

from __future__ import annotations

from pathlib import Path

from openodke.errors import InputError
from openodke.eval.jsonl import load_jsonl
from openodke.types import Document

__all__ = ["load_documents"]


def load_documents(path: str | Path) -> list[Document]:
    """Documents from a folder (a file's id is its path inside it: ``halden.txt``) or JSONL.

    Folders are read recursively in sorted order, skipping hidden files; every file must be UTF-8.
    """
    root = Path(path)
    if root.is_dir():
        documents = []
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            relative = file.relative_to(root)
            if any(part.startswith(".") for part in relative.parts):
                continue
            try:
                text = file.read_bytes().decode("utf-8-sig")
            except UnicodeDecodeError as error:
                raise InputError(
                    f"not UTF-8 (byte 0x{error.object[error.start]:02x} at offset {error.start})",
                    path=str(file),
                ) from None
            documents.append(Document(id=relative.as_posix(), text=text, uri=str(file)))
        if not documents:
            raise InputError("no documents in this folder", path=str(root))
        return documents
    if not root.exists():
        raise InputError("no such file or folder", path=str(root))
    documents = load_jsonl(root, Document)
    seen: set[str] = set()
    for number, doc in enumerate(documents, start=1):
        if doc.id in seen:
            raise InputError(f"document id {doc.id!r} appears twice", path=str(root), line=number)
        seen.add(doc.id)
    return documents
