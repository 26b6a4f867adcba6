"""Hostile inputs: the fixed corpus of issue 13's cases, and seeded random mutations of any file.

A mutation changes one target file (or the folder it names) of a case folder in place and says
what it did (:class:`Applied`): the line it broke, if any, and whether the run must drop root to
find the file unreadable. Formats: ``jsonl``, ``json``, ``yaml``, ``text`` and ``folder``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CORPUS",
    "Applied",
    "Mutation",
    "in_unsearchable_folder",
    "mutate_randomly",
    "sparse_line",
]


@dataclass(frozen=True)
class Applied:
    """What a mutation did to the case folder."""

    line: int | None = None
    """The JSONL line it broke (1-based), when it broke one line."""
    unprivileged: bool = False
    """The run must not be root (root reads a file with mode 000)."""


Mutator = Callable[[Path, str, random.Random], Applied]


@dataclass(frozen=True)
class Mutation:
    """One named way to break a file of the given formats."""

    name: str
    formats: frozenset[str]
    apply: Mutator


ALL = frozenset({"jsonl", "json", "yaml", "text"})
DATA = frozenset({"jsonl", "json", "yaml"})
FILES = ALL
FOLDERS = frozenset({"folder"})

DEEP = 1500
SURROGATE = "\\ud800"
BIG_INT = "7" * 4400


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _replace_line(path: Path, rng: random.Random, new: Callable[[str], str]) -> Applied:
    lines = _lines(path)
    filled = [i for i, line in enumerate(lines) if line.strip()] or [0]
    index = rng.choice(filled)
    if not lines:
        lines = [""]
    lines[index] = new(lines[index])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Applied(line=index + 1)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    holder = value
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = new
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


_RAW = "\x00RAW\x00"


def _with_raw(value: Any, rng: random.Random, raw: str, *, strings_only: bool = False) -> str:
    """``value`` as JSON with one of its values (a string one when ``strings_only``) replaced by
    the raw JSON text ``raw`` (text json.dumps cannot make, like a lone surrogate escape)."""
    paths = _paths(value)
    if strings_only:
        strings = [p for p in paths if p and isinstance(_get(value, p), str)]
        paths = strings or paths
    path = rng.choice([p for p in paths if p] or [()])
    return _dumps(_set(value, path, _RAW)).replace(json.dumps(_RAW), raw)


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _structured(raw: str, *, strings_only: bool = False) -> Mutator:
    """Put the raw JSON text ``raw`` at a random place of a row (JSONL) or of the file (JSON)."""

    def apply(path: Path, fmt: str, rng: random.Random) -> Applied:
        if fmt == "jsonl":
            return _replace_line(
                path, rng, lambda line: _with_raw(_load(line), rng, raw, strings_only=strings_only)
            )
        if fmt == "json":
            value = _load(path.read_text(encoding="utf-8"))
            path.write_text(_with_raw(value, rng, raw, strings_only=strings_only), "utf-8")
            return Applied()
        if fmt == "yaml":
            path.write_text(path.read_text("utf-8") + f"\nzz_fuzz: {raw}\n", "utf-8")
            return Applied()
        path.write_text(raw, encoding="utf-8")
        return Applied()

    return apply


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {"text": text}


def _whole(content: Callable[[str], str | bytes]) -> Mutator:
    def apply(path: Path, fmt: str, rng: random.Random) -> Applied:
        new = content(fmt)
        if isinstance(new, bytes):
            path.write_bytes(new)
        else:
            path.write_text(new, encoding="utf-8")
        return Applied()

    return apply


def _top_level(fmt: str) -> str:
    return {"yaml": "- 1\n- 2\n", "jsonl": "[1, 2]\n"}.get(fmt, "[1, 2]")


def _non_object_line(path: Path, fmt: str, rng: random.Random) -> Applied:
    if fmt != "jsonl":
        return _whole(_top_level)(path, fmt, rng)
    return _replace_line(path, rng, lambda _: rng.choice(['"text"', "3", "null", "[]", "true"]))


def _deep(path: Path, fmt: str, rng: random.Random) -> Applied:
    nest = "[" * DEEP + "]" * DEEP
    if fmt == "yaml":
        path.write_text(f"zz_fuzz: {nest}\n", "utf-8")
        return Applied()
    return _structured(nest)(path, fmt, rng)


def _two_on_a_line(path: Path, fmt: str, rng: random.Random) -> Applied:
    return _replace_line(path, rng, lambda line: line + line)


def _invalid_utf8(path: Path, fmt: str, rng: random.Random) -> Applied:
    data = path.read_bytes()
    cut = rng.randrange(len(data) + 1) if data else 0
    path.write_bytes(data[:cut] + b"\xff\xfe\x80" + data[cut:])
    return Applied()


def _truncate(path: Path, fmt: str, rng: random.Random) -> Applied:
    data = path.read_bytes()
    path.write_bytes(data[: rng.randrange(1, max(2, len(data)))])
    return Applied()


def _replace_with(make: Callable[[Path], None]) -> Mutator:
    def apply(path: Path, fmt: str, rng: random.Random) -> Applied:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        make(path)
        return Applied()

    return apply


def _unreadable(path: Path, fmt: str, rng: random.Random) -> Applied:
    os.chmod(path, 0)
    return Applied(unprivileged=True)


def _unreadable_inner(path: Path, fmt: str, rng: random.Random) -> Applied:
    files = sorted(p for p in path.rglob("*") if p.is_file()) or [path]
    os.chmod(rng.choice(files), 0)
    return Applied(unprivileged=True)


def in_unsearchable_folder(path: Path, fmt: str, rng: random.Random) -> Applied:
    """The file (or folder) moved into ``locked/`` beside it, which may not be searched (mode
    000), and a symlink left in its place: every ``stat`` of the path is denied (issue 22)."""
    locked = path.with_name(".locked")
    locked.mkdir()
    os.rename(path, locked / path.name)
    os.symlink(f".locked/{path.name}", path)
    os.chmod(locked, 0)
    return Applied(unprivileged=True)


def _loop(path: Path) -> None:
    other = path.with_name(path.name + ".loop")
    os.symlink(other.name, path)
    os.symlink(path.name, other)


def _folder_loop(path: Path, fmt: str, rng: random.Random) -> Applied:
    os.symlink("..", path / "again")
    return Applied()


def _empty_folder(path: Path, fmt: str, rng: random.Random) -> Applied:
    shutil.rmtree(path)
    path.mkdir()
    return Applied()


def _fifo_inside(path: Path, fmt: str, rng: random.Random) -> Applied:
    os.mkfifo(path / "pipe.txt")
    return Applied()


def _bad_name_inside(path: Path, fmt: str, rng: random.Random) -> Applied:
    name = os.fsencode(path) + b"/bad\xff\xfename.txt"
    with open(name, "wb") as handle:
        handle.write(b"Some text.")
    return Applied()


def _surrogate_id(path: Path, fmt: str, rng: random.Random) -> Applied:
    """A lone surrogate in an ``id``/``doc``/``doc_id`` value, where one exists."""
    if fmt != "jsonl":
        return _structured(f'"x{SURROGATE}"', strings_only=True)(path, fmt, rng)
    lines = _lines(path)
    for index, line in enumerate(lines):
        value = _load(line)
        if isinstance(value, dict):
            for key in ("id", "doc", "doc_id", "a"):
                if isinstance(value.get(key), str):
                    value[key] = _RAW
                    lines[index] = _dumps(value).replace(json.dumps(_RAW), f'"d{SURROGATE}"')
                    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                    return Applied(line=index + 1)
    return _structured(f'"x{SURROGATE}"', strings_only=True)(path, fmt, rng)


CORPUS: tuple[Mutation, ...] = (
    Mutation("nesting 1500 deep", DATA, _deep),
    Mutation("integer of 4400 digits", DATA, _structured(BIG_INT)),
    Mutation(
        "lone surrogate in a string", DATA, _structured(f'"a{SURROGATE}b"', strings_only=True)
    ),
    Mutation("lone surrogate in an id", DATA, _surrogate_id),
    Mutation("top level not an object", DATA, _non_object_line),
    Mutation("two objects on one line", frozenset({"jsonl"}), _two_on_a_line),
    Mutation("bytes not UTF-8", FILES, _invalid_utf8),
    Mutation("truncated", DATA, _truncate),
    Mutation("empty file", FILES, _whole(lambda fmt: b"")),
    Mutation("NaN and Infinity", frozenset({"jsonl", "json"}), _structured("NaN")),
    Mutation("null value", DATA, _structured("null")),
    Mutation("/dev/zero", FILES, _replace_with(lambda p: os.symlink("/dev/zero", p))),
    Mutation("a FIFO", FILES, _replace_with(lambda p: os.mkfifo(p))),
    Mutation("a folder", FILES, _replace_with(lambda p: p.mkdir())),
    Mutation("a symlink loop", FILES | FOLDERS, _replace_with(_loop)),
    Mutation("missing", FILES | FOLDERS, _replace_with(lambda p: None)),
    Mutation("unreadable", FILES | FOLDERS, _unreadable),
    Mutation("unreadable file inside", FOLDERS, _unreadable_inner),
    Mutation("inside an unsearchable folder", FILES | FOLDERS, in_unsearchable_folder),
    Mutation("empty folder", FOLDERS, _empty_folder),
    Mutation("folder inside itself", FOLDERS, _folder_loop),
    Mutation("a FIFO inside", FOLDERS, _fifo_inside),
    Mutation("a name not UTF-8 inside", FOLDERS, _bad_name_inside),
)
"""The fixed corpus: every case issue 13 lists, for every format it applies to."""


_HOSTILE = [
    "null", "true", "0", "-1", "1e308", "-1e400", "1.5", '""', '" "', '"\\u0000"', "[]", "{}",
    "[[]]", '{"": null}', '"x"', f'"{SURROGATE}"', BIG_INT[:30], '"\\ud83d\\ude00"',
    '"' + "x" * 5000 + '"', '{"schema_version": "9.9"}',
]  # fmt: skip


def mutate_randomly(path: Path, fmt: str, rng: random.Random) -> Applied:
    """One random mutation: a hostile value somewhere, a key dropped or added, bytes flipped,
    lines repeated or cut. Used by the hypothesis tests and the campaign."""
    if fmt == "folder":
        files = sorted(p for p in path.rglob("*") if p.is_file())
        if not files or rng.random() < 0.3:
            folder_cases = [m for m in CORPUS if "folder" in m.formats]
            return rng.choice(folder_cases).apply(path, fmt, rng)
        path, fmt = rng.choice(files), "text"
    choice = rng.random()
    if fmt in ("jsonl", "json") and choice < 0.55:
        return _structured(rng.choice(_HOSTILE))(path, fmt, rng)
    if fmt in ("jsonl", "json") and choice < 0.7:
        return _drop_or_add_key(path, fmt, rng)
    if fmt == "jsonl" and choice < 0.8:
        lines = _lines(path)
        index = rng.randrange(len(lines)) if lines else 0
        lines.insert(index, lines[index] if lines else "{}")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return Applied(line=index + 2)
    data = bytearray(path.read_bytes())
    for _ in range(rng.randint(1, 4)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    path.write_bytes(bytes(data))
    return Applied()


def _drop_or_add_key(path: Path, fmt: str, rng: random.Random) -> Applied:
    def change(value: Any) -> Any:
        holders = [p for p in _paths(value) if isinstance(_get(value, p), dict)]
        if not holders:
            return value
        holder = _get(value, rng.choice(holders))
        if holder and rng.random() < 0.5:
            holder.pop(rng.choice(list(holder)))
        else:
            holder[rng.choice(["zz", "id", "schema_version", "fact", "text"])] = rng.choice(
                [None, 3, "x", [], {}]
            )
        return value

    if fmt == "jsonl":
        return _replace_line(path, rng, lambda line: _dumps(change(_load(line))))
    path.write_text(_dumps(change(_load(path.read_text("utf-8")))), encoding="utf-8")
    return Applied()


def sparse_line(path: Path, size: int) -> None:
    """A file of ``size`` bytes that is one line: a JSON string opened and never closed, its
    middle a hole the file system does not store."""
    with open(path, "wb") as handle:
        handle.write(b'{"text": "')
        handle.seek(size - 1)
        handle.write(b"x")
