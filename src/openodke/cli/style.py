"""Colour and emphasis for a terminal: warnings first, the headline row, the top fix, a verdict.

Only where stdout is a terminal and ``NO_COLOR`` is unset (https://no-color.org) and ``TERM``
is not ``dumb``; piped or redirected output is the plain text, byte for byte, since every
function here returns its input unchanged then. The text itself never changes: styling only
adds escape codes around whole lines, drawn by rich.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import cache

__all__ = [
    "colour",
    "findings",
    "first_warnings",
    "gate_line",
    "report_table",
    "stage_table",
    "verdict",
]


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


def _styled(text: str, rule: Callable[[int, str], str | None]) -> str:
    """``text`` with each line ``rule`` gives a style painted in it; unchanged when piped."""
    if not colour():
        return text
    out = []
    for i, line in enumerate(text.split("\n")):
        style = rule(i, line)
        out.append(_paint(line, style) if style else line)
    return "\n".join(out)


def _notes(line: str) -> str | None:
    return "yellow" if line.startswith("  • ") else None


def report_table(text: str, rows: int) -> str:
    """The rows table: the title bold, the first (headline) row bold cyan, the notes yellow."""
    # line 1 is the header, line 2 the first row
    return _styled(
        text,
        lambda i, line: "bold" if i == 0 else "bold cyan" if i == 2 and rows else _notes(line),
    )


def stage_table(text: str) -> str:
    """A stage's table: its title bold, the F1 line (the headline) bold cyan, notes yellow."""
    return _styled(
        text,
        lambda i, line: (
            "bold" if i == 0 else "bold cyan" if line.startswith("  f1 ") else _notes(line)
        ),
    )


def findings(text: str) -> str:
    """A findings table: its title bold, the top fix (rank 1) bold green."""
    return _styled(
        text,
        lambda i, line: (
            "bold" if i == 0 else "bold green" if line.startswith(("  1  ", "  1. ")) else None
        ),
    )


def verdict(text: str) -> str:
    """compare's table: the verdict line green (better), red (worse) or yellow."""

    def rule(_: int, line: str) -> str | None:
        words = line.split()
        if not words or words[0] != "verdict":
            return None
        word = words[1].rstrip(":") if len(words) > 1 else ""
        return {"better": "bold green", "worse": "bold red"}.get(word, "bold yellow")

    return _styled(text, rule)


def gate_line(line: str) -> str:
    """A ``gate: fail:`` line, in red."""
    return _paint(line, "bold red") if colour() else line
