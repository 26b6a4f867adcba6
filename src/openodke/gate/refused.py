"""``refused.jsonl``: one ``{"fact": <Fact>, "reason": "<gate reason>"}`` line per refused fact."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.errors import InputError
from openodke.ground.files import write_files
from openodke.safeio import iter_lines, parse_json
from openodke.types import Fact

__all__ = ["REFUSED_FILE", "RefusedFact", "read_refused", "refused_lines", "write_refused"]

REFUSED_FILE = "refused.jsonl"
"""The file name of a run's refused facts, beside its ``facts.jsonl``."""


class RefusedFact(BaseModel):
    """One refused fact and the gate's reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact: Fact
    reason: str = Field(
        description="The gate's reason, e.g. 'grounding verdict contradicted: ...'."
    )


def _target(path: str | Path) -> Path:
    target = Path(path)
    return target / REFUSED_FILE if target.is_dir() else target


def refused_lines(refused: Iterable[tuple[Fact, str] | RefusedFact]) -> str:
    """The JSONL text: one ``{"fact", "reason"}`` object per line."""
    rows = (
        r if isinstance(r, RefusedFact) else RefusedFact(fact=r[0], reason=r[1]) for r in refused
    )
    return "".join(row.model_dump_json() + "\n" for row in rows)


def write_refused(path: str | Path, refused: Iterable[tuple[Fact, str] | RefusedFact]) -> Path:
    """Write ``refused.jsonl`` atomically (``path`` a file, or a folder to put it in); returns it."""
    target = _target(path)
    write_files([(target, refused_lines(refused))])
    return target


def read_refused(path: str | Path) -> list[RefusedFact]:
    """Read a ``refused.jsonl`` (or the one in a folder); InputError at ``path:line`` on a bad line."""
    target = _target(path)
    rows: list[RefusedFact] = []
    name = str(target)
    for number, line in iter_lines(name, what="refused.jsonl"):
        try:
            rows.append(RefusedFact.model_validate(parse_json(line, path=name, line=number)))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "row"
            raise InputError(f"{where}: {first['msg']}", path=str(target), line=number) from None
    return rows
