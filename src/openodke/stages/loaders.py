"""Loaders: input files as Documents (``text``, ``markdown``, ``directory``; records in ``records``).

A document's id is its file's path relative to the run config's folder (``corpus/notes/a.txt``),
plus ``#L<line>`` for a CSV or JSONL record (the line the record starts on: a CSV's first record,
under its header, is ``#L2``). Ids repeated across a run's inputs get ``~2``, ``~3`` in order
(:func:`unique_ids`). Every loader takes ``tier``, ``encoding`` (utf-8, a byte-order mark
dropped) and ``modality``; text is kept exactly as decoded, so offsets count every character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.safeio import walk_files
from openodke.stages.file_loader import FileLoader as _FileLoader
from openodke.stages.file_loader import document_id, read_text
from openodke.types import Document, Modality, SourceTier

__all__ = [
    "NOT_BUILT_SUFFIXES",
    "DirectoryLoader",
    "MarkdownLoader",
    "TextLoader",
    "document_id",
    "read_text",
    "unique_ids",
]

NOT_BUILT_SUFFIXES: dict[str, str] = {
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".doc": "docx",
}
"""Suffixes whose loaders are out of scope: a directory skips such files with a warning."""

_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def unique_ids(documents: Iterable[Document]) -> list[Document]:
    """The documents with repeated ids made unique: the second ``x`` is ``x~2``, then ``x~3``."""
    taken: set[str] = set()
    last: dict[str, int] = {}
    out: list[Document] = []
    for doc in documents:
        new_id = doc.id
        if new_id in taken:
            n = last.get(doc.id, 1)
            while new_id in taken:
                n += 1
                new_id = f"{doc.id}~{n}"
            last[doc.id] = n
            doc = doc.model_copy(update={"id": new_id})
        taken.add(new_id)
        out.append(doc)
    return out


class TextLoader(_FileLoader):
    """One Document per file, the text as decoded (``text``)."""

    name = "text"

    def load(self, path: Path, base_dir: Path) -> list[Document]:
        """The file as one unstructured Document."""
        return [self._document(path, base_dir, read_text(path, self.encoding))]


class MarkdownLoader(_FileLoader):
    """One Document per Markdown file (``markdown``): text unchanged, title from the first heading.

    Markup is kept so offsets stay the file's; a fact sheet of ``Label: value`` lines reads as
    semi-structured (the default modality here).
    """

    name = "markdown"
    default_modality = Modality.semi_structured

    def load(self, path: Path, base_dir: Path) -> list[Document]:
        """The file as one Document titled by its first ``#`` heading, if any."""
        text = read_text(path, self.encoding)
        heading = _HEADING.search(text)
        title = heading.group(1).strip() if heading else None
        return [self._document(path, base_dir, text, title=title)]


class DirectoryLoader(_FileLoader):
    """Every file under a folder matching ``pattern`` (``directory``), each by its suffix's loader.

    ``.md``/``.markdown`` go to ``markdown``, ``.jsonl`` to ``jsonl``, ``.csv`` to ``csv`` (``.tsv``
    with a tab delimiter), anything else to ``text``. Hidden files and folders are skipped, files
    are read in sorted order, and HTML, PDF and DOCX files (their loaders are not built) are skipped
    with a warning. The other options are passed to each file's loader.
    """

    name = "directory"

    def __init__(
        self,
        *,
        pattern: str = "**/*",
        tier: str | SourceTier = SourceTier.unverified,
        encoding: str = "utf-8",
        modality: str | Modality | None = None,
        records: bool = True,
        columns: Sequence[str] | None = None,
        delimiter: str | None = None,
    ) -> None:
        super().__init__(tier=tier, encoding=encoding, modality=modality)
        self.pattern = pattern
        self._given_modality = modality
        self.records = records
        self.columns = columns
        self.delimiter = delimiter

    def _loader_for(self, suffix: str) -> Any:
        from openodke.stages.records import CsvLoader, JsonlLoader

        shared: dict[str, Any] = {
            "tier": self.tier,
            "encoding": self.encoding,
            "modality": self._given_modality,
        }
        if suffix in {".md", ".markdown"}:
            return MarkdownLoader(**shared)
        if suffix == ".jsonl":
            return JsonlLoader(records=self.records, columns=self.columns, **shared)
        if suffix in {".csv", ".tsv"}:
            delimiter = self.delimiter or ("\t" if suffix == ".tsv" else ",")
            return CsvLoader(
                records=self.records, columns=self.columns, delimiter=delimiter, **shared
            )
        return TextLoader(**shared)

    def load(self, path: Path, base_dir: Path) -> list[Document]:
        """The documents of every matching file, in sorted path order."""
        if not path.is_dir():
            what = "no such folder" if not path.exists() else "is a file, expected a folder"
            raise InputError(what, path=str(path))
        documents: list[Document] = []
        matched = set(path.glob(self.pattern))
        for file in walk_files(path, what="documents"):
            if file not in matched:
                continue
            relative = file.relative_to(path)
            if any(part.startswith(".") for part in relative.parts):
                continue
            suffix = file.suffix.casefold()
            if suffix in NOT_BUILT_SUFFIXES:
                kind = NOT_BUILT_SUFFIXES[suffix]
                self.warnings.append(f"{file}: the {kind} loader is not built; skipped")
                continue
            documents.extend(self._loader_for(suffix).load(file, base_dir))
        if not documents:
            raise InputError(f"no documents match {self.pattern!r} in this folder", path=str(path))
        return documents
