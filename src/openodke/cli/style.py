"""Colour and emphasis for a terminal: warnings first, the headline row, the top fix, a verdict.

Only where stdout is a terminal and ``NO_COLOR`` is unset (https://no-color.org) and ``TERM``
is not ``dumb``; piped or redirected output is the plain text, byte for byte, since every
function here returns its input unchanged then. The text itself never changes: styling only
adds escape codes around whole lines, drawn by rich.
"""

from __future__ import annotations

import os
import sys
from functools import cache

__all__ = ["colour", "findings", "first_warnings", "gate_line", "report_table", "verdict"]


def colour() -> bool:
    """True when stdout is a terminal that should get colour."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


@cache
def _console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(
        force_terminal=True, color_system="standard", highlight=False, width=1 << 16, soft_wrap=True
    )


def _paint(line: str, style: str) -> str:
    from rich.text import Text

    console = _console()
    with console.capture() as captured:
        console.print(Text(line, style=style), end="")
    return str(captured.get())


def first_warnings(lines: list[str] | tuple[str, ...]) -> list[str]:
    """What is said before any table, in bold yellow."""
    if not colour():
        return list(lines)
    return [_paint(line, "bold yellow") if line else line for line in lines]


def report_table(text: str, rows: int) -> str:
    """The rows table: the title bold, the first (headline) row bold, notes' bullets dim."""
    if not colour():
        return text
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if i == 0:
            out.append(_paint(line, "bold"))
        elif i == 2 and rows:  # line 1 is the header, line 2 the first row
            out.append(_paint(line, "bold cyan"))
        elif line.startswith("  • "):
            out.append(_paint(line, "yellow"))
        else:
            out.append(line)
    return "\n".join(out)


def findings(text: str) -> str:
    """A findings table: its title bold, the top fix (rank 1) bold green."""
    if not colour():
        return text
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if i == 0:
            out.append(_paint(line, "bold"))
        elif line.startswith("  1  ") or line.startswith("  1. "):
            out.append(_paint(line, "bold green"))
        else:
            out.append(line)
    return "\n".join(out)


def verdict(text: str) -> str:
    """compare's table: the verdict line green (better), red (worse) or yellow."""
    if not colour():
        return text
    out = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("verdict"):
            words = stripped.split()
            word = words[1].rstrip(":") if len(words) > 1 else ""
            style = {"better": "bold green", "worse": "bold red"}.get(word, "bold yellow")
            out.append(_paint(line, style))
        else:
            out.append(line)
    return "\n".join(out)


def gate_line(line: str) -> str:
    """A ``gate: fail:`` line, in red."""
    return _paint(line, "bold red") if colour() else line
