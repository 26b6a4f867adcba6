"""Reading a run config file (YAML or JSON) with the line of every key, safely.

``read_source(path)`` returns the data and a :class:`LineMap`: the line each key and list item
starts on, so every problem found later can be reported as ``path:line: what is wrong``. YAML is
read with PyYAML's safe loader, composed first so the node tree gives the lines; JSON is read by
``json`` (its errors name their line) and composed by the same YAML reader for the lines.

Limits against hostile files (an "alias bomb" is a few lines that expand to billions of nodes):
the file may be at most ``MAX_BYTES``, use at most ``MAX_ALIASES`` aliases, and expand to at most
``MAX_NODES`` nodes; past any of them it is refused before anything is built from it. A key given
twice in one mapping is a problem too (YAML would silently keep the last).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from openodke.errors import InputError
from openodke.safeio import FileTooLarge, decode, load_yaml, parse_json, read_bytes

__all__ = ["MAX_ALIASES", "MAX_BYTES", "MAX_NODES", "LineMap", "Source", "read_source", "read_text"]

MAX_BYTES = 1_000_000
"""The largest run config read, in bytes."""

MAX_ALIASES = 100
"""The most YAML aliases (``*name``) a run config may use."""

MAX_NODES = 100_000
"""The most nodes a run config may expand to, aliases followed."""

Path_ = tuple[str | int, ...]


@dataclass
class LineMap:
    """The line (1-based) each key path starts on; the nearest enclosing path answers for the rest."""

    lines: dict[Path_, int] = field(default_factory=dict)

    def line(self, path: Path_ | list[str | int] = ()) -> int | None:
        """The line of ``path``, else of its nearest ancestor that has one (None when none does)."""
        key = tuple(path)
        while True:
            found = self.lines.get(key)
            if found is not None:
                return found
            if not key:
                return None
            key = key[:-1]

    def child(self, prefix: Path_) -> LineMap:
        """The lines under ``prefix``, with ``prefix`` cut from each path."""
        size = len(prefix)
        return LineMap({p[size:]: n for p, n in self.lines.items() if p[:size] == prefix})


@dataclass
class Source:
    """A config file's data, where it came from and the line of every key."""

    data: Any
    path: str
    lines: LineMap
    problems: list[InputError] = field(default_factory=list)


class _Budget:
    def __init__(self, path: str) -> None:
        self.path = path
        self.nodes = 0

    def visit(self, node: yaml.Node) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise InputError(
                f"expands to more than {MAX_NODES:,} values (aliases followed): refused",
                path=self.path,
                line=node.start_mark.line + 1,
            )


def _walk(
    node: yaml.Node,
    at: Path_,
    out: LineMap,
    budget: _Budget,
    duplicates: list[InputError],
    seen: set[int],
) -> None:
    budget.visit(node)
    if isinstance(node, yaml.MappingNode):
        keys: set[Any] = set()
        for key_node, value_node in node.value:
            budget.visit(key_node)
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
            line = key_node.start_mark.line + 1
            if key in keys and id(node) not in seen:
                duplicates.append(
                    InputError(f"{_dotted((*at, key))}: given twice", path=budget.path, line=line)
                )
            keys.add(key)
            out.lines.setdefault((*at, key), line)
            _walk(value_node, (*at, key), out, budget, duplicates, seen)
        seen.add(id(node))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            out.lines.setdefault((*at, index), item.start_mark.line + 1)
            _walk(item, (*at, index), out, budget, duplicates, seen)


def _dotted(path: Path_) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top)"


def _count_aliases(text: str, path: str) -> None:
    aliases = 0
    try:
        # LibYAML's parser when installed: the pure-Python one takes minutes on deep nesting
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise InputError(
                        f"uses more than {MAX_ALIASES} aliases: refused",
                        path=path,
                        line=event.start_mark.line + 1 if event.start_mark else None,
                    )
    except yaml.YAMLError:
        return  # composing reports it with its line


def _load(text: str, path: str) -> tuple[Any, yaml.Node | None]:
    """The data and the node tree, composed within openodke.safeio's bounds (nesting, aliases
    inside their own anchor, ``MAX_NODES`` once aliases are followed)."""
    _count_aliases(text, path)
    data, node = load_yaml(text, path=path, node=True, max_nodes=MAX_NODES)
    return data, node


def _lines(node: yaml.Node | None, path: str) -> tuple[LineMap, list[InputError]]:
    lines = LineMap()
    duplicates: list[InputError] = []
    if node is not None:
        lines.lines[()] = node.start_mark.line + 1
        _walk(node, (), lines, _Budget(path), duplicates, set())
    return lines, duplicates


def read_text(text: str, path: str, *, json_format: bool = False) -> Source:
    """A config's text read as JSON (``json_format``) or YAML, with its lines and duplicate keys."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise InputError(f"larger than {MAX_BYTES:,} bytes: not a run config", path=path)
    if json_format:
        data = parse_json(text, path=path)
        try:
            _, node = _load(text, path)
        except InputError:
            node = None  # valid JSON YAML cannot read (rare): the problems go without lines
        lines, duplicates = _lines(node, path)
        return Source(data, path, lines, duplicates)
    data, node = _load(text, path)  # composing refuses an alias bomb before anything is built
    lines, duplicates = _lines(node, path)
    return Source(data, path, lines, duplicates)


def read_source(path: str | Path) -> Source:
    """The run config at ``path`` (``.json`` as JSON, anything else as YAML) with its lines."""
    file = Path(path)
    if not os.path.lexists(file):
        raise InputError("no such run config", path=str(file))
    if file.is_dir():
        raise InputError("is a folder, expected a run config (odke.yaml)", path=str(file))
    try:
        raw = read_bytes(file, what="a run config (odke.yaml)", limit=MAX_BYTES)
    except FileTooLarge:
        raise InputError(
            f"larger than {MAX_BYTES:,} bytes: not a run config", path=str(file)
        ) from None
    text = decode(raw, path=str(file))
    return read_text(text, str(file), json_format=file.suffix.casefold() == ".json")


def iter_paths(data: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every key path in ``data`` (for tests and checks)."""
    yield at
    if isinstance(data, dict):
        for key, value in data.items():
            yield from iter_paths(value, (*at, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from iter_paths(value, (*at, index))
