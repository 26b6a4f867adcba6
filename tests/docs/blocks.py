"""The code blocks of the documentation pages, and what running them must show.

The rules a page is written to (docs/contributing.md says the same to writers):

- A ```` ```console ```` block is run: each line starting with ``$ `` is a shell command
  (a line ending in ``\\`` continues on the next); the lines after it, up to the next ``$ ``,
  are its shown output.
- A ```` ```python ```` block without a title is run; the page's Python blocks share one
  interpreter, in order.
  A ```` ```text ```` block right after a Python block is that block's shown output.
- A block with ``title="path"`` (```` ```yaml title="odke.yaml" ````, a script
  ```` ```python title="my_extract.py" ````) is written to that path before the blocks after it
  run.
- ``<!-- no-test: why -->`` on the line before a fence skips that block (installing from PyPI,
  say); the reason is required.

Shown output is compared line by line, each line stripped and its spaces collapsed: every shown
line must appear in what ran, in the same order (other lines may come between). A line ``...``
stands for anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,})(?P<info>[^`]*)$")
_TITLE = re.compile(r'title="(?P<title>[^"]+)"')
_SKIP = re.compile(r"<!--\s*no-test:\s*(?P<why>[^>]*\S)\s*-->")


@dataclass
class Block:
    """One fenced block of a page."""

    language: str
    text: str
    line: int
    title: str | None = None
    skip: str | None = None
    shown: str | None = None  # for Python: the text block after it


@dataclass
class Command:
    """One ``$ `` command of a console block, with the output shown under it."""

    command: str
    shown: list[str] = field(default_factory=list)


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown page, in order, Python blocks paired with their output."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        fence, info = match["fence"], match["info"].strip()
        language = info.split()[0] if info else ""
        title = _TITLE.search(info)
        previous = lines[index - 1] if index else ""
        skip = _SKIP.search(previous)
        body: list[str] = []
        start = index + 1
        index += 1
        indent = len(match["indent"])
        while index < len(lines) and lines[index].strip() != fence:
            body.append(lines[index][indent:])
            index += 1
        index += 1
        found.append(
            Block(
                language=language,
                text="\n".join(body) + "\n",
                line=start,
                title=title["title"] if title else None,
                skip=skip["why"] if skip else None,
            )
        )
    paired: list[Block] = []
    for block in found:
        output_of_python = (
            block.language == "text"
            and block.title is None
            and bool(paired)
            and paired[-1].language == "python"
            and paired[-1].shown is None
        )
        if output_of_python:
            paired[-1].shown = block.text
            continue
        paired.append(block)
    return paired


def commands(text: str) -> list[Command]:
    """The ``$ `` commands of a console block with the output shown under each."""
    result: list[Command] = []
    pending: list[str] = []
    for line in text.splitlines():
        if pending:
            pending.append(line)
        elif line.startswith("$ "):
            pending = [line[2:]]
        elif result:
            result[-1].shown.append(line)
            continue
        else:
            continue
        if not pending[-1].endswith("\\"):
            result.append(Command(command="\n".join(pending)))
            pending = []
    if pending:
        result.append(Command(command="\n".join(pending)))
    return result


def _norm(line: str) -> str:
    return " ".join(line.split())


def missing_lines(shown: list[str], output: str) -> list[str]:
    """The shown lines not found, in order, in ``output`` (empty when everything was shown)."""
    want = [_norm(line) for line in shown if _norm(line) and _norm(line) not in ("...", "…")]
    got = [_norm(line) for line in output.splitlines()]
    position = 0
    for index, line in enumerate(want):
        try:
            position = got.index(line, position) + 1
        except ValueError:
            return want[index:]
    return []
