"""What every file loader shares: a document's id from its path, a file's text, and the options
``tier``, ``encoding`` and ``modality`` (:class:`FileLoader`). Below both ``loaders`` (text,
Markdown, folders) and ``records`` (CSV, JSONL), so neither imports the other to get them."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from openodke.errors import InputError
from openodke.safeio import read_bytes
from openodke.types import Document, Modality, SourceTier

E = TypeVar("E", bound=Enum)

__all__ = ["FileLoader", "document_id", "read_text"]


def document_id(path: Path, base_dir: Path) -> str:
    """``path`` relative to ``base_dir`` with ``/`` separators (``../x.txt`` when outside it)."""
    try:
        relative = path.resolve().relative_to(base_dir.resolve())
        return relative.as_posix()
    except ValueError:
        return Path(os.path.relpath(path.resolve(), base_dir.resolve())).as_posix()


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The file decoded with ``encoding`` (UTF-8 drops a byte-order mark); InputError otherwise."""
    if path.is_dir():
        raise InputError("is a folder: use the directory loader", path=str(path))
    raw = read_bytes(path, what="a document file")
    codec = "utf-8-sig" if encoding.replace("_", "-").casefold() in {"utf-8", "utf8"} else encoding
    try:
        return raw.decode(codec)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}", path=str(path)) from None
    except UnicodeDecodeError as error:
        byte = error.object[error.start]
        raise InputError(
            f"not {encoding} (byte 0x{byte:02x} at offset {error.start}); set the loader's encoding",
            path=str(path),
        ) from None


class FileLoader:
    """Options every loader shares: ``tier``, ``encoding``, ``modality``."""

    name = "file"
    default_modality = Modality.unstructured

    def __init__(
        self,
        *,
        tier: str | SourceTier = SourceTier.unverified,
        encoding: str = "utf-8",
        modality: str | Modality | None = None,
    ) -> None:
        self.tier = _choice(SourceTier, tier, "tier")
        self.encoding = encoding
        self.modality = (
            self.default_modality if modality is None else _choice(Modality, modality, "modality")
        )
        self.warnings: list[str] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tier={self.tier.value!r}, modality={self.modality.value!r})"

    def _document(self, path: Path, base_dir: Path, text: str, **fields: Any) -> Document:
        return Document(
            id=fields.pop("id", None) or document_id(path, base_dir),
            text=text,
            uri=str(path),
            modality=self.modality,
            tier=self.tier,
            **fields,
        )


def _choice(kind: type[E], value: str | E, field: str) -> E:
    """``value`` as a member of the enum ``kind``; a bad one is an InputError naming the choices."""
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(member.value) for member in kind)
        raise InputError(f"{field}: {value!r} is not one of {choices}") from None
