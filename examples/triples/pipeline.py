"""A stand-in extraction pipeline for ``odke eval pipeline``: no model, same output every run.

It replays what an extractor once wrote, kept in ``triples.jsonl`` beside this file: for each text
it is given, the rows recorded for that text (matched by file name: ``halden.txt`` -> the rows
whose ``doc`` is ``halden``). A text with no recorded rows gets none. Swap in your own extractor
by writing the same rows.

As a command (``{in}`` is a folder of ``<name>.txt``, ``{out}`` the JSONL file to write)::

    odke eval pipeline --cmd "python examples/triples/pipeline.py {in} {out}" ...

As a function, ``--run examples/triples/pipeline.py:run`` calls :func:`run` with the Documents.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RECORDED = Path(__file__).with_name("triples.jsonl")


def recorded() -> dict[str, list[dict[str, Any]]]:
    """The recorded rows, grouped by the document name they cite (``halden``)."""
    rows: dict[str, list[dict[str, Any]]] = {}
    with RECORDED.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                rows.setdefault(row["doc"], []).append(row)
    return rows


def _stem(name: str) -> str:
    """``texts/halden.txt`` -> ``halden``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base[: -len(".txt")] if base.endswith(".txt") else base


def run(documents: list[Any]) -> list[dict[str, Any]]:
    """The ``--run`` entry: the recorded rows of each Document, by its id's file name."""
    rows = recorded()
    return [row for doc in documents for row in rows.get(_stem(doc.id), [])]


def main(argv: list[str]) -> int:
    """``pipeline.py IN_DIR OUT_FILE``: write the rows for every ``IN_DIR/<name>.txt``."""
    if len(argv) != 2:
        print("usage: pipeline.py IN_DIR OUT_FILE", file=sys.stderr)
        return 2
    in_dir, out_file = Path(argv[0]), Path(argv[1])
    rows = recorded()
    with out_file.open("w", encoding="utf-8") as out:
        for text in sorted(in_dir.glob("*.txt")):
            for row in rows.get(text.stem, []):
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
