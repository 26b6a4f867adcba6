"""``odke label make|read|convert``: label sheets a person ticks, the label rows they become,
and gold written as triples rows turned into GoldFact rows.

``make grounding|pair|fact FILE -o DIR`` writes ``sheet-001.md``, ... (``--per-sheet`` items
each); ``read DIR|SHEET -o OUT`` turns each item's one ticked box into a label row. An item with
no box or two boxes ticked is exit 2, ``sheet:line: ...``, one line per problem. ``convert
TRIPLES -o OUT`` writes the GoldFact rows triples rows state (read as predictions are read).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from openodke.cli import options as opt
from openodke.errors import InputError

if TYPE_CHECKING:
    from openodke.eval.judges.sheets import SheetItem
    from openodke.types import Fact

__all__ = ["convert", "make", "read", "register", "sheet_items"]


def register(label_app: typer.Typer) -> None:
    """Add ``make`` and ``read`` to the ``odke label`` group."""
    label_app.command(
        "make",
        help="Write label sheets (Markdown, one tick per item) for a person to fill.\n\n"
        "Example: odke label make grounding to-check.jsonl -o sheets/ --per-sheet 50",
    )(make)
    label_app.command(
        "read",
        help="Read filled sheets back as label rows (exit 2 on an item with no or two ticks).\n\n"
        "Example: odke label read sheets/ -o labels.jsonl",
    )(read)
    label_app.command(
        "convert",
        help="Turn gold written as triples rows into GoldFact rows, read as predictions are.\n\n"
        "Example: odke label convert gold-triples.jsonl --ontology ontology.json -o gold.jsonl",
    )(convert)


def _fact(value: Any, path: Path, line: int) -> Fact:
    from openodke.types import Fact

    try:
        return Fact.model_validate(value)
    except ValueError as error:
        first = str(error).splitlines()[1:2] or [str(error)]
        raise InputError(f"not a fact: {first[0].strip()}", path=str(path), line=line) from None


def sheet_items(kind: str, path: Path, texts: Any = None) -> list[SheetItem]:
    """The items a FILE of rows makes for ``kind``.

    grounding: ``{"text", "fact", "doc_id"?}`` rows (a GroundingLabel without its verdict), or
    Fact rows and ``{"fact", ...}`` rows with ``--documents``; pair: ``{"a", "b"}`` rows (pairs,
    links) or EntityLink rows; fact: the ``--lenient`` pairs file's rows.
    """
    from openodke.eval.judges.label_kinds import fact_item, pair_item
    from openodke.safeio import iter_json_lines

    items = []
    for line, row in iter_json_lines(path):
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=str(path), line=line)
        if kind == "grounding":
            items.append(_grounding(row, path, line, texts))
        elif kind == "pair":
            a, b = row.get("a", row.get("source_key")), row.get("b", row.get("target_key"))
            if not isinstance(a, str) or not isinstance(b, str):
                raise InputError('expected {"a": key, "b": key}', path=str(path), line=line)
            items.append(pair_item(a, b))
        else:
            missing = [k for k in ("doc_id", "gold", "prediction") if k not in row]
            if missing:
                raise InputError(
                    f"missing {missing[0]!r}: expected a --lenient pairs row",
                    path=str(path),
                    line=line,
                )
            items.append(
                fact_item(
                    str(row["doc_id"]),
                    _fact(row["gold"], path, line),
                    _fact(row["prediction"], path, line),
                    str(row.get("passage", "")),
                )
            )
    return items


def _grounding(row: dict[str, Any], path: Path, line: int, texts: Any) -> SheetItem:
    from openodke.eval.judges.label_kinds import grounding_item

    fact = _fact(row.get("fact", row), path, line)
    doc_id = row.get("doc_id") or (fact.doc_ids[0] if fact.doc_ids else None)
    if isinstance(row.get("text"), str):
        return grounding_item(fact, row["text"], doc_id)
    if texts is None:
        raise InputError("a row without its text needs --documents", path=str(path), line=line)
    from openodke.eval.judges.refusal_sources import passage_of

    for cited in ([doc_id] if doc_id else []) + list(fact.doc_ids):
        if cited in texts:
            return grounding_item(fact, passage_of(fact, texts[cited]), cited)
    raise InputError(f"document {doc_id} is not among --documents", path=str(path), line=line)


def make(
    kind: Annotated[str, typer.Argument(help="grounding, pair or fact.")],
    file: Annotated[Path, typer.Argument(help="The rows to label, one JSON object per line.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The folder the sheets go to.")],
    per_sheet: opt.PerSheet = 50,
    documents: opt.Documents = None,
) -> None:
    """Write label sheets of the rows in FILE."""
    from openodke.eval.judges.label_kinds import KINDS
    from openodke.eval.judges.sheets import write_sheets

    if kind not in KINDS:
        raise InputError(f"unknown kind {kind!r}; kinds are {', '.join(KINDS)}")
    texts = None
    if documents is not None:
        from openodke.documents import load_documents
        from openodke.eval.judges.inputs import TextLookup

        texts = TextLookup(load_documents(documents))
    items = sheet_items(kind, file, texts)
    titles = {"grounding": "Is the claim supported?", "pair": "Same thing?", "fact": "Same fact?"}
    paths = write_sheets(items, out, kind=kind, title=titles[kind], per_sheet=per_sheet)
    typer.echo(f"{len(items)} item(s) in {len(paths)} sheet(s) in {out}: tick one box per item")


def read(
    sheets: Annotated[Path, typer.Argument(help="A folder of sheets, or one sheet.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Where the label rows go (JSONL).")],
    as_json: opt.AsJson = False,
) -> None:
    """Read ticked sheets back as label rows."""
    from openodke.eval.engine.jsonl import atomic_write_text
    from openodke.eval.judges.label_kinds import BOXES, label_rows
    from openodke.eval.judges.sheets import read_sheets

    ticks = read_sheets(sheets, BOXES)
    rows = label_rows(ticks)
    atomic_write_text(out, "".join(row.model_dump_json() + "\n" for row in rows))
    counts = Counter(f"{t.kind}: {t.box}" for t in ticks)
    if as_json:
        typer.echo(
            json.dumps(
                {"labels": len(rows), "out": str(out), "ticks": dict(sorted(counts.items()))}
            )
        )
        return
    shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    typer.echo(f"{len(rows)} label row(s) to {out} ({shown})")


def convert(
    triples: Annotated[Path, typer.Argument(metavar="TRIPLES", help="Gold as triples rows.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Where the GoldFact rows go (JSONL).")],
    ontology: opt.Ontology = None,
    documents: opt.Documents = None,
) -> None:
    """Write the GoldFact rows TRIPLES states: each row read by the rules predictions are
    (``Type:name`` keys, the ontology's predicate names and ranges), in the document its ``doc``
    names (with --documents: by id, else file stem; else as written)."""
    from openodke.eval.engine.jsonl import atomic_write_text
    from openodke.eval.stages.gold_rows import gold_from_triples
    from openodke.ontology import Ontology

    onto = Ontology.load(ontology) if ontology is not None else None
    docs = []
    if documents is not None:
        from openodke.documents import load_documents

        docs = load_documents(documents)
    rows = gold_from_triples(triples, docs, onto)
    atomic_write_text(out, "".join(row.model_dump_json() + "\n" for row in rows))
    count = len({row.doc_id for row in rows})
    typer.echo(f"{len(rows)} gold row(s) in {count} document(s) to {out}")
