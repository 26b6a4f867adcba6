"""Record loaders: ``jsonl`` and ``csv`` files, one Document per record or per file.

With ``records: true`` (the default) each record is a Document with id ``<path>#L<line>``, the line
its record starts on. Its text is the ``columns`` rendered ``column: value``, one per line, in the
order given (every column, in file order, for a CSV without ``columns``; a JSONL row's ``text``
field without them); empty values are left out. The record's fields go to ``metadata``. With
``records: false`` the whole file is one Document, text unchanged.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.ontology.checks import did_you_mean
from openodke.safeio import max_line_bytes, parse_json
from openodke.stages.file_loader import FileLoader as _FileLoader
from openodke.stages.file_loader import document_id, read_text
from openodke.types import Document, Modality, SourceTier

__all__ = ["CsvLoader", "JsonlLoader", "render_record"]


def render_record(record: Mapping[str, Any], columns: Sequence[str]) -> str:
    """``column: value`` per line for each column with a non-empty value, in ``columns`` order."""
    lines = []
    for column in columns:
        value = record.get(column)
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{column}: {' '.join(str(shown).split())}")
    return "\n".join(lines)


class _RecordLoader(_FileLoader):
    default_modality = Modality.structured

    def __init__(
        self,
        *,
        records: bool = True,
        columns: Sequence[str] | None = None,
        tier: str | SourceTier = SourceTier.unverified,
        encoding: str = "utf-8",
        modality: str | Modality | None = None,
    ) -> None:
        super().__init__(tier=tier, encoding=encoding, modality=modality)
        if isinstance(columns, str):
            columns = [columns]
        self.records = records
        self.columns = tuple(columns) if columns is not None else None

    def _record(
        self, path: Path, base_dir: Path, line: int, text: str, fields: dict[str, Any]
    ) -> Document:
        title = fields.get("title") if isinstance(fields.get("title"), str) else None
        return self._document(
            path,
            base_dir,
            text,
            id=f"{document_id(path, base_dir)}#L{line}",
            title=title,
            metadata=fields,
        )


class JsonlLoader(_RecordLoader):
    """JSONL records (``jsonl``): a row's ``text``, or its ``columns`` rendered, per Document."""

    name = "jsonl"

    def load(self, path: Path, base_dir: Path) -> list[Document]:
        """One Document per non-blank line (or the file as one with ``records: false``)."""
        text = read_text(path, self.encoding)
        if not self.records:
            return [self._document(path, base_dir, text)]
        documents = []
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            if len(line) > max_line_bytes():
                raise InputError("line too long", path=str(path), line=number)
            row = parse_json(line, path=str(path), line=number)
            if not isinstance(row, dict):
                raise InputError(
                    f"expected a JSON object, got {type(row).__name__}", path=str(path), line=number
                )
            if self.columns is not None:
                body = render_record(row, self.columns)
            elif isinstance(row.get("text"), str):
                body = row["text"]
            else:
                raise InputError(
                    "no string 'text' field: set the loader's columns to render fields as text",
                    path=str(path),
                    line=number,
                )
            documents.append(self._record(path, base_dir, number, body, row))
        if not documents:
            raise InputError("empty file: expected one JSON object per line", path=str(path))
        return documents


class CsvLoader(_RecordLoader):
    """CSV records (``csv``): a header line, then one Document per record.

    ``delimiter`` (default ``,``); quoted fields may span lines, and a record's id names the line it
    starts on. A record with more fields than the header is an error at its line.
    """

    name = "csv"

    def __init__(
        self,
        *,
        records: bool = True,
        columns: Sequence[str] | None = None,
        delimiter: str = ",",
        tier: str | SourceTier = SourceTier.unverified,
        encoding: str = "utf-8",
        modality: str | Modality | None = None,
    ) -> None:
        super().__init__(
            records=records, columns=columns, tier=tier, encoding=encoding, modality=modality
        )
        if len(delimiter) != 1:
            raise InputError(f"delimiter: expected one character, got {delimiter!r}")
        self.delimiter = delimiter

    def load(self, path: Path, base_dir: Path) -> list[Document]:
        """One Document per record (or the file as one with ``records: false``)."""
        text = read_text(path, self.encoding)
        if not self.records:
            return [self._document(path, base_dir, text)]
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=self.delimiter, strict=True)
        try:
            header = [name.strip() for name in next(reader)]
        except StopIteration:
            raise InputError("empty file: expected a header line", path=str(path)) from None
        except csv.Error as error:
            raise InputError(f"bad CSV: {error}", path=str(path), line=1) from None
        columns = self.columns if self.columns is not None else tuple(header)
        for column in columns:
            if column not in header:
                hint = did_you_mean(column, header)
                raise InputError(f"columns: no column {column!r}{hint}", path=str(path), line=1)
        documents = []
        ended = reader.line_num
        while True:
            start = ended + 1
            try:
                values = next(reader)
            except StopIteration:
                break
            except csv.Error as error:
                raise InputError(f"bad CSV: {error}", path=str(path), line=start) from None
            ended = reader.line_num
            if not values or not any(v.strip() for v in values):
                continue
            if len(values) > len(header):
                raise InputError(
                    f"{len(values)} fields, but the header names {len(header)}",
                    path=str(path),
                    line=start,
                )
            fields = dict(zip(header, values, strict=False))
            body = render_record(fields, columns)
            documents.append(self._record(path, base_dir, start, body, fields))
        if not documents:
            raise InputError("no records under the header", path=str(path))
        return documents
