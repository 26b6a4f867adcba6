"""Which format a label file is in, told from its first line (no models imported: the scorer asks
before it starts reading)."""

from __future__ import annotations

import json
from pathlib import Path

from openodke.safeio.files import first_line

__all__ = ["is_triples_file"]

_FIRST_LINE = 1 << 20  # bytes of the first line read to tell the format


def is_triples_file(path: str | Path) -> bool:
    """True when the first non-blank line is a triples row: an object with a string ``doc`` and
    ``subject`` (a GoldFact row has ``doc_id`` and ``fact``). Unreadable: False (the GoldFact
    reader then names the problem)."""
    try:
        line = first_line(path, _FIRST_LINE)  # a block at a time: 64 MB of blank lines took 80 s
        if line is None:
            return False
        row = json.loads(line.decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # InputError is a ValueError (a FIFO, ...)
        return False
    return (
        isinstance(row, dict)
        and isinstance(row.get("doc"), str)
        and isinstance(row.get("subject"), str)
        and "fact" not in row
    )
