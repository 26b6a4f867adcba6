"""Plain-text tables for the judged sections: one row per run, columns padded to fit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openodke.eval.stages.stage_report import fmt

__all__ = ["table", "value_range"]


def value_range(value: Any) -> str:
    """``0.600 [0.550, 0.650]`` from anything with value, low and high (— where undefined)."""
    return f"{fmt(value.value)} [{fmt(value.low)}, {fmt(value.high)}]"


def table(
    head: str,
    names: Sequence[str],
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    foot: Sequence[str] = (),
) -> str:
    """``head``, a header line, one line per name, then the ``foot`` lines, indented by two."""
    name_width = max((len(n) for n in names), default=0)
    widths = [max(len(c), *(len(row[k]) for row in cells)) for k, c in enumerate(columns)]

    def line(first: str, row: Sequence[str]) -> str:
        body = "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
        return f"  {first.ljust(name_width)}  {body}".rstrip()

    lines = [head, line("", columns)]
    lines += [line(name, row) for name, row in zip(names, cells, strict=True)]
    lines += [f"  {text}" for text in foot]
    return "\n".join(lines)
