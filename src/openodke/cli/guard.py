"""Checks on a command line's paths made before any command runs: no output is an input.

Every command shares the same output options, so one table covers them all (and any command
added later that uses them): ``--report``, ``--items``, ``--track-record`` and ``odke eval
pipeline``'s ``--adjudicate`` and ``--lenient``, and ``--html`` (a page), name files;
``--out``/``-o`` name a file or a folder. Any other argument that names an existing file or
folder is an input. Refused, exit 2, before anything is read or written:

- an output that is one of the inputs (``--report`` equal to ``--labels``), also through a
  symlink or a hard link;
- an input inside an output folder (``-o out --facts out/facts.jsonl``: it would be replaced);
- two outputs at one path (``--report x --items x``);
- a file output that is an existing folder, or ends with ``/`` (``--report runs/``: it would
  otherwise be written as a file named ``runs``);
- an output given an empty path (``--report ""``: the current folder);
- an output that is a device, a FIFO or a socket (``--report /dev/null``: the rename that puts
  a finished file in place would replace the device itself, as root).

Options are read however they are spelled: ``--out DIR``, ``--out=DIR``, ``-o DIR``, ``-oDIR``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from openodke.errors import InputError

__all__ = ["FILE_OUTPUTS", "FOLDER_OUTPUTS", "check_paths"]

FILE_OUTPUTS = ("--report", "--items", "--track-record", "--adjudicate", "--lenient", "--html")
"""Options naming a file a command writes (or appends to)."""

FOLDER_OUTPUTS = ("--out", "-o")
"""Options naming a folder (or a file) a command writes."""


_FILE_NAMES = {
    "--report": "report.json",
    "--items": "items.jsonl",
    "--track-record": "track-record.jsonl",
}


@dataclass(frozen=True)
class _Path:
    flag: str
    value: str

    def label(self) -> str:
        return f"{self.flag} {self.value}" if self.flag else self.value


def _split(args: Sequence[str]) -> tuple[list[_Path], list[_Path]]:
    outputs: list[_Path] = []
    inputs: list[_Path] = []
    words = list(args)
    index = 0
    flag = ""
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            flag = ""
            continue
        name, equals, attached = word.partition("=")
        short = _attached_short(word)
        if short is not None:  # -oDIR: click reads the rest of the word as the value
            name, equals, attached = short
        if word.startswith("-") and len(word) > 1:
            if name in FILE_OUTPUTS or name in FOLDER_OUTPUTS:
                value = attached if equals else (words[index] if index < len(words) else None)
                if not equals:
                    index += 1
                if value is not None:
                    outputs.append(_Path(name, value))
                flag = ""
            else:
                flag = name
                if equals and attached and os.path.lexists(attached):
                    inputs.append(_Path(name, attached))
            continue
        if os.path.lexists(word):
            inputs.append(_Path(flag, word))
        flag = ""
    return outputs, inputs


def _attached_short(word: str) -> tuple[str, str, str] | None:
    """``("-o", "=", "DIR")`` for ``-oDIR`` or ``-o=DIR`` (click takes both: the value is the
    rest of the word, ``=`` included), else None."""
    for flag in FOLDER_OUTPUTS + FILE_OUTPUTS:
        if len(flag) == 2 and word.startswith(flag) and len(word) > 2:
            return flag, "=", word[2:]
    return None


def _special(path: str) -> str:
    """``a device``, ``a pipe (FIFO)`` or ``a socket`` when ``path`` (followed) is one, else ''."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    return "a socket" if stat.S_ISSOCK(mode) else ""


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    try:
        real, base = os.path.realpath(path), os.path.realpath(folder)
    except (OSError, ValueError):
        return False
    return real != base and real.startswith(base.rstrip(os.sep) + os.sep)


def check_paths(args: Sequence[str]) -> None:
    """InputError (exit 2) when an output of the command line is one of its inputs, lies
    around one, repeats another output, or is a folder where a file is written."""
    outputs, inputs = _split(args)
    for out in outputs:
        if not out.value.strip():  # Path("") is the current folder: it would be written over
            raise InputError(f"{out.flag} is given an empty path: name the file or folder")
        kind = _special(out.value)
        if kind:  # a rename over it replaces the device itself (/dev/null, as root)
            raise InputError(
                f"{out.flag} names {kind}, not a file: odke writes a whole file and renames it "
                "into place, which would replace it; drop the option to write nothing",
                path=out.value,
            )
    for index, out in enumerate(outputs):
        if out.flag in FILE_OUTPUTS and out.value.endswith(("/", os.sep)):
            raise InputError(
                f"ends with '/': {out.flag} names a file, not a folder "
                f"(say {out.value.rstrip('/' + os.sep) or '.'}/{_FILE_NAMES.get(out.flag, 'out.json')})",
                path=out.value,
            )
        if out.flag in FILE_OUTPUTS and os.path.isdir(out.value):
            raise InputError(f"is a folder, expected a file path ({out.flag})", path=out.value)
        for other in outputs[:index]:
            if _same(out.value, other.value):
                raise InputError(
                    f"{other.flag} and {out.flag} are the same path: give each its own",
                    path=out.value,
                )
        for given in inputs:
            if os.path.lexists(out.value) and _same(out.value, given.value):
                raise InputError(
                    f"{out.flag} would overwrite the input {given.label()}: "
                    "write the output somewhere else",
                    path=out.value,
                )
            if out.flag in FOLDER_OUTPUTS and _inside(given.value, out.value):
                raise InputError(
                    f"the input {given.label()} is inside the output folder {out.flag} "
                    f"{out.value}: it could be replaced; write the output somewhere else",
                    path=given.value,
                )
