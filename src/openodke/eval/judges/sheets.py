"""Label sheets: Markdown files of numbered items a person ticks, and reading them back.

A sheet starts with a marker line naming its kind; each item is a ``## N. <id>`` heading, its
text, one ``- [ ] <box>`` line per box, and an ``<!-- odke item {...} -->`` line holding what the
item was made from (so a sheet read back needs nothing beside it). Reading accepts ``[x]`` or
``[X]`` and requires exactly one ticked box per item; anything else is listed, one
``sheet:line: what is wrong`` per problem, as an InputError (exit 2).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.eval.engine.jsonl import write_outputs
from openodke.safeio import parse_json, read_text

__all__ = [
    "SHEET_GLOB",
    "SheetItem",
    "Ticked",
    "blockquote",
    "read_sheets",
    "sheet_files",
    "write_sheets",
]

SHEET_GLOB = "sheet-*.md"
_MARKER = re.compile(r"^<!-- odke label sheet: kind=(?P<kind>[a-z_]+) version=1 -->$")
_HEADING = re.compile(r"^## (?P<number>\d+)\. ")
_BOX = re.compile(r"^\s*[-*+]\s+\[(?P<tick>[^\]]?)\]\s*(?P<box>.*?)\s*$")
_PAYLOAD = re.compile(r"^<!-- odke item (?P<json>\{.*\}) -->$")


@dataclass(frozen=True)
class SheetItem:
    """One item to tick: its id, its Markdown body, its boxes and what it was made from."""

    id: str
    body: str
    boxes: tuple[str, ...]
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ticked:
    """One item read back: what it was made from, the box ticked, and where."""

    kind: str
    payload: dict[str, Any]
    box: str
    sheet: str
    line: int


def blockquote(text: str) -> str:
    """``text`` as a Markdown blockquote, every line prefixed (so it can hold no heading or box)."""
    return "\n".join(f"> {line}".rstrip() for line in (text.strip() or "(no text)").splitlines())


def _payload_line(payload: Mapping[str, Any]) -> str:
    # ">" escaped so no "-->" can end the comment early; still plain JSON.
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).replace(">", "\\u003e")
    return f"<!-- odke item {data} -->"


def _sheet_text(kind: str, title: str, items: Sequence[SheetItem], first: int, of: str) -> str:
    lines = [
        f"<!-- odke label sheet: kind={kind} version=1 -->",
        f"# {title}: {of}",
        "",
        "Tick exactly one box per item: change `[ ]` to `[x]`. Then read the sheets back with",
        "`odke label read <this folder> -o labels.jsonl`.",
    ]
    for number, item in enumerate(items, start=first):
        lines += ["", "---", "", f"## {number}. {item.id}", "", item.body.strip(), ""]
        lines += [f"- [ ] {box}" for box in item.boxes]
        lines += ["", _payload_line({"id": item.id, **item.payload})]
    return "\n".join(lines) + "\n"


def write_sheets(
    items: Sequence[SheetItem],
    out: str | Path,
    *,
    kind: str,
    title: str,
    per_sheet: int = 50,
    extra: Sequence[tuple[str | Path, str]] = (),
) -> list[Path]:
    """Write ``items`` as ``sheet-001.md``, ... in ``out``, ``per_sheet`` to a sheet, all at once.

    ``extra`` files (path, text) are written in the same step. InputError when ``out`` already
    holds sheets (ticks would be lost) or ``per_sheet`` is below 1.
    """
    if per_sheet < 1:
        raise InputError(f"--per-sheet must be at least 1, got {per_sheet}")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InputError("is a file, expected a folder for the sheets", path=str(folder))
    if folder.is_dir() and any(folder.glob(SHEET_GLOB)):
        raise InputError("already holds label sheets; choose another folder", path=str(folder))
    chunks = [items[k : k + per_sheet] for k in range(0, len(items), per_sheet)] or [[]]
    files: list[tuple[str | Path, str]] = []
    for s, chunk in enumerate(chunks, start=1):
        first = (s - 1) * per_sheet + 1
        last = first + len(chunk) - 1
        of = f"sheet {s} of {len(chunks)}, items {first}–{last}" if chunk else "no items"
        path = folder / f"sheet-{s:03d}.md"
        files.append((path, _sheet_text(kind, title, chunk, first, of)))
    write_outputs([*files, *extra])
    return [Path(p) for p, _ in files]


def sheet_files(path: str | Path) -> list[Path]:
    """The sheets a path names: the file itself, or a folder's ``sheet-*.md`` in order."""
    target = Path(path)
    if target.is_dir():
        found = sorted(target.glob(SHEET_GLOB))
        if not found:
            raise InputError("holds no label sheets (sheet-*.md)", path=str(target))
        return found
    if not target.is_file():
        raise InputError("no such sheet or folder", path=str(target))
    return [target]


def read_sheets(path: str | Path, boxes: Mapping[str, Sequence[str]]) -> list[Ticked]:
    """Every item of the sheets at ``path``, with its one ticked box.

    ``boxes`` maps each kind to its boxes. InputError listing every problem, one
    ``sheet:line: ...`` line each, when any item has no box or several ticked, or a sheet is not
    one ``odke label make`` wrote.
    """
    out: list[Ticked] = []
    problems: list[str] = []
    for sheet in sheet_files(path):
        out += _read_one(sheet, boxes, problems)
    if problems:
        more = f"\n({len(problems)} problems: fix each and read again)" if len(problems) > 1 else ""
        raise InputError("\n".join(problems) + more)
    return out


def _read_one(sheet: Path, boxes: Mapping[str, Sequence[str]], problems: list[str]) -> list[Ticked]:
    name = str(sheet)
    lines = read_text(sheet, what="a label sheet").splitlines()
    marker = _MARKER.match(lines[0].strip()) if lines else None
    if marker is None or marker["kind"] not in boxes:
        problems.append(f"{name}:1: not a label sheet odke label make wrote (no marker line)")
        return []
    kind = marker["kind"]
    allowed = {b.casefold(): b for b in boxes[kind]}
    out: list[Ticked] = []
    item: dict[str, Any] | None = None

    def close() -> None:
        if item is None:
            return
        where = f"{name}:{item['line']}: item {item['number']}"
        if item["payload"] is None:
            problems.append(f"{where} has lost its odke item line; make the sheets again")
        elif not item["ticks"]:
            problems.append(f"{where} has no box ticked; tick exactly one")
        elif len(item["ticks"]) > 1:
            second = item["ticks"][1][1]
            problems.append(
                f"{name}:{second}: item {item['number']} has {len(item['ticks'])} boxes ticked; "
                "tick exactly one"
            )
        else:
            box, line = item["ticks"][0]
            out.append(Ticked(kind, item["payload"], box, name, line))

    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        heading = _HEADING.match(text)
        if heading:
            close()
            item = {"number": int(heading["number"]), "line": number, "ticks": [], "payload": None}
            continue
        if item is None:
            continue
        box = _BOX.match(raw)
        if box:
            label = allowed.get(box["box"].casefold())
            if label is None:
                problems.append(
                    f"{name}:{number}: unknown box {box['box']!r}; boxes are {', '.join(boxes[kind])}"
                )
            elif box["tick"].strip():
                if box["tick"] not in ("x", "X"):
                    problems.append(f"{name}:{number}: tick with x, found [{box['tick']}]")
                else:
                    item["ticks"].append((label, number))
            continue
        payload = _PAYLOAD.match(text)
        if payload:
            try:
                item["payload"] = parse_json(payload["json"], path=name, line=number)
            except InputError:
                problems.append(
                    f"{name}:{number}: item {item['number']}'s odke item line is not JSON"
                )
                item["payload"] = {}
    close()
    return out
