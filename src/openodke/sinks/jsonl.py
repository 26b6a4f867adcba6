"""JsonlSink: a graph as four files, each replaced atomically on every write."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from openodke.types import KnowledgeGraph

__all__ = ["FILES", "JsonlSink"]

FILES = ("facts.jsonl", "entities.jsonl", "links.jsonl", "manifest.json")
"""What a JsonlSink writes into its directory."""


class JsonlSink:
    """Write a KnowledgeGraph to ``directory`` as ``facts.jsonl``, ``entities.jsonl``,
    ``links.jsonl`` (one ``model_dump_json()`` per line) and ``manifest.json``.

    Each write replaces all four files: every file goes to a temp file in the same folder first,
    then each is renamed into place (``os.replace``), so a failed write leaves the previous files
    whole and writing the same graph twice changes nothing. The run adds its own manifest keys
    afterwards (``manifest_version``, ``config``, hashes, ...); the sink writes only what a bare
    graph holds.
    """

    name = "jsonl"

    def __init__(self, directory: str | Path, *, base_dir: str | Path | None = None) -> None:
        path = Path(directory)
        if base_dir is not None and not path.is_absolute():
            path = Path(base_dir) / path  # a run config's relative paths are its folder's
        self.directory = path

    def __repr__(self) -> str:
        return f"JsonlSink({str(self.directory)!r})"

    @staticmethod
    def manifest(graph: KnowledgeGraph) -> dict[str, Any]:
        """The sink's manifest keys: ontology, created_at, counts and the graph's stats."""
        dumped = graph.model_dump(mode="json", include={"created_at", "stats"})
        return {
            "ontology": graph.ontology_name,
            "created_at": dumped["created_at"],
            "entities": len(graph.entities),
            "facts": len(graph.facts),
            "edges": len(graph.edges),
            "properties": len(graph.properties),
            "links": len(graph.links),
            "stats": dumped["stats"],
        }

    def files(
        self, graph: KnowledgeGraph, extra: dict[str, Any] | None = None
    ) -> list[tuple[Path, str]]:
        """``(path, text)`` of the four files, manifest last; ``extra`` adds manifest keys after
        the sink's own (never replacing one), as a run adds its own."""
        manifest = self.manifest(graph)
        for key, value in (extra or {}).items():
            manifest.setdefault(key, value)
        return [
            (self.directory / "facts.jsonl", _lines(graph.facts)),
            (self.directory / "entities.jsonl", _lines(graph.entities)),
            (self.directory / "links.jsonl", _lines(graph.links)),
            (
                self.directory / "manifest.json",
                json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
            ),
        ]

    def write(self, graph: KnowledgeGraph) -> dict[str, Any]:
        """Write (replace) the four files; returns the manifest written."""
        from openodke.llm.redact import scrub_text

        files = self.files(graph)
        self.directory.mkdir(parents=True, exist_ok=True)
        temps: dict[str, str] = {}
        try:
            for path, text in files:
                fd, temps[path.name] = tempfile.mkstemp(
                    dir=self.directory, prefix=f".{path.name}.", suffix=".tmp"
                )
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(scrub_text(text))  # no key reaches a file (DECISIONS #144)
            # The manifest goes last, so a reader that sees the new manifest sees the new data.
            for name in FILES:
                os.replace(temps[name], self.directory / name)
                del temps[name]
        finally:
            for leftover in temps.values():
                Path(leftover).unlink(missing_ok=True)
        return self.manifest(graph)


def _lines(rows: tuple[BaseModel, ...]) -> str:
    return "".join(row.model_dump_json() + "\n" for row in rows)
