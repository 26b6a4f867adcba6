"""Where refusals come from: ``odke ground`` output, a Validator's ``refused.jsonl``, bench sets.

- ``odke ground`` output (a ``facts.jsonl``, or its folder): facts stamped ``contradicted`` or
  ``not_found``, or carrying a free check's finding (``qualifiers["odke.check"]``).
- ``odke validate -o`` output (``refused.jsonl``, or its folder): every ``{"fact", "reason"}``.
- a bench set that ``odke bench run`` scored (a folder with ``dataset.json``): the triples of
  ``predictions/extraction-alone.jsonl`` that the gated row ``predictions/grounding.jsonl``
  lacks, with whether the set's gold holds each.
- a folder of any of these (``runs/cmp``): each one inside it.

Ground and validate output need the documents' texts (``--documents``); a bench set has its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.eval.engine.matching import fact_key
from openodke.eval.judges.claims import claim_text
from openodke.eval.judges.refusal_sample import Refusal, refusal_id
from openodke.safeio import iter_json_lines, load_jsonl, read_json
from openodke.types import Entity, Evidence, Fact, GroundingVerdict

__all__ = ["TEXT_LIMIT", "passage_of", "read_refusals"]

TEXT_LIMIT = 3000
"""Most characters of a document shown with a refusal that cites no span."""

_REASONS = {
    "contradicted": "grounding verdict contradicted: the passage says otherwise",
    "not_found": "grounding verdict not_found: the passage does not settle it",
}
_SENTENCE_END = re.compile(r"[.!?]\s|\n")


def passage_of(fact: Fact | None, text: str) -> str:
    """The sentences around the fact's first cited span, else the text (cut at TEXT_LIMIT)."""
    span = next((e.span for e in (fact.evidence if fact else ()) if e.span is not None), None)
    if span is not None and span.end <= len(text):
        starts = [m.end() for m in _SENTENCE_END.finditer(text, 0, span.start)]
        start = starts[-1] if starts else 0
        after = _SENTENCE_END.search(text, span.end)
        return text[start : after.end() if after else len(text)].strip()
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT].rstrip() + " …"


def _text(fact: Fact, texts: Mapping[str, str] | None, where: str) -> tuple[str | None, str]:
    if texts is None:
        raise InputError(f"reading refusals from {where} needs --documents for the texts")
    for doc_id in fact.doc_ids:
        if doc_id in texts:
            return doc_id, passage_of(fact, texts[doc_id])
    shown = fact.doc_ids[0] if fact.doc_ids else "(none)"
    raise InputError(f"fact {fact.id} cites {shown}, which is not among --documents", path=where)


def _refusal(
    fact: Fact, verdict: str, reason: str, source: str, texts: Mapping[str, str] | None
) -> Refusal:
    doc_id, text = _text(fact, texts, source)
    return Refusal(
        id=refusal_id(source, doc_id, fact_key(fact), verdict),
        claim=claim_text(fact),
        text=text,
        verdict=verdict,
        reason=reason,
        predicate=fact.predicate,
        gold=None,
        extractor=fact.extractor,
        doc_id=doc_id,
        source=source,
        fact=fact,
    )


def _from_ground(path: Path, texts: Mapping[str, str] | None) -> list[Refusal]:
    out = []
    for fact in load_jsonl(path, Fact):
        check = fact.qualifiers.get("odke.check")
        verdict = fact.verdict.value
        if verdict in _REASONS:
            reason = _REASONS[verdict] + (f" ({check})" if check else "")
        elif check is not None:
            verdict, reason = "check", str(check)
        else:
            continue
        out.append(_refusal(fact, verdict, reason, str(path), texts))
    return out


def _from_refused(path: Path, texts: Mapping[str, str] | None) -> list[Refusal]:
    out: list[Refusal] = []
    if path.stat().st_size == 0:
        return out  # odke validate writes an empty refused.jsonl when it refused nothing
    for line, row in iter_json_lines(path):
        if not isinstance(row, dict) or "fact" not in row:
            raise InputError('expected {"fact": ..., "reason": ...}', path=str(path), line=line)
        try:
            fact = Fact.model_validate(row["fact"])
        except ValueError as error:
            raise InputError(f"fact: {error}".splitlines()[0], path=str(path), line=line) from None
        reason = str(row.get("reason") or "refused")
        if fact.verdict in (GroundingVerdict.contradicted, GroundingVerdict.not_found):
            verdict = fact.verdict.value
        else:
            verdict = reason.split(":", 1)[0].strip() or "refused"
        out.append(_refusal(fact, verdict, reason, str(path), texts))
    return out


def _marked(path: Path, texts: Mapping[str, str] | None) -> list[Refusal]:
    """Facts the gate wrote but marked for review (below the grounder's bar): refusals too."""
    out = []
    for fact in load_jsonl(path, Fact):
        review = fact.qualifiers.get("odke.review")
        if review is not None:
            out.append(_refusal(fact, fact.verdict.value, f"marked: {review}", str(path), texts))
    return out


def _triples(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    rows: dict[str, list[tuple[str, str, str]]] = {}
    for line, row in iter_json_lines(path):
        if not isinstance(row, dict) or not isinstance(row.get("triples"), list):
            raise InputError(
                'expected {"id": ..., "triples": [[s, r, o], ...]}', path=str(path), line=line
            )
        mine = rows.setdefault(str(row["id"]), [])
        for triple in row["triples"]:
            if not isinstance(triple, list) or len(triple) != 3:
                raise InputError(
                    "a triple is [subject, relation, object]", path=str(path), line=line
                )
            mine.append((str(triple[0]), str(triple[1]), str(triple[2])))
    return rows


def _from_bench(folder: Path) -> list[Refusal]:
    from openodke.bench.load import align, load_bench  # the bench loader is heavy: only here

    bench = load_bench(folder)
    alone = folder / "predictions" / "extraction-alone.jsonl"
    gated = folder / "predictions" / "grounding.jsonl"
    if not alone.is_file() or not gated.is_file():
        raise InputError(
            "no predictions/extraction-alone.jsonl and grounding.jsonl: run odke bench run first",
            path=str(folder),
        )
    kept = {doc: {_form(t) for t in ts} for doc, ts in _triples(gated).items()}
    texts = {d.id: d.text for d in bench.documents}
    gold = {(g.doc_id, fact_key(g.fact)) for g in bench.gold}
    extractor = _extractor(folder)
    out = []
    for doc, triples in _triples(alone).items():
        for s, r, o in dict.fromkeys(triples):
            if _form((s, r, o)) in kept.get(doc, set()):
                continue
            fact = Fact(
                subject=Entity(key=s, label=s),
                predicate=r,
                object_entity=Entity(key=o, label=o),
                evidence=(Evidence(doc_id=doc),),
                extractor=extractor,
            )
            (aligned,), _ = align(bench, [fact])
            out.append(
                Refusal(
                    id=refusal_id(str(folder), doc, s, r, o),
                    claim=f"{s} — {r.replace('_', ' ')} — {o}.",
                    text=passage_of(None, texts.get(doc, "")),
                    verdict="refused",
                    reason="in the extraction but not in the grounded row",
                    predicate=aligned.predicate,
                    gold=(doc, fact_key(aligned)) in gold,
                    dataset=folder.name,
                    extractor=extractor,
                    doc_id=doc,
                    source=str(folder),
                    fact=aligned,
                )
            )
    return out


def _form(triple: tuple[str, str, str]) -> tuple[str, ...]:
    return tuple(" ".join(part.split()).casefold() for part in triple)


def _extractor(folder: Path) -> str:
    try:
        config: Any = read_json(folder / "odke.json", what="a run config")
        use = config["stages"]["extractor"]
        return str(use["use"] if isinstance(use, dict) else use)
    except (InputError, KeyError, TypeError, IndexError):
        return "llm"


def read_refusals(path: str | Path, texts: Mapping[str, str] | None = None) -> list[Refusal]:
    """Every refusal the run at ``path`` holds (see the module docstring for what it reads)."""
    target = Path(path)
    if target.is_file():
        return (
            _from_refused(target, texts)
            if target.name == "refused.jsonl"
            else _from_ground(target, texts)
        )
    if not target.is_dir():
        raise InputError(
            "no such run (a folder or a facts.jsonl / refused.jsonl)", path=str(target)
        )
    if (target / "dataset.json").is_file():
        return _from_bench(target)
    if (target / "refused.jsonl").is_file():
        marked = (
            _marked(target / "facts.jsonl", texts) if (target / "facts.jsonl").is_file() else []
        )
        return _from_refused(target / "refused.jsonl", texts) + marked
    if (target / "facts.jsonl").is_file():
        return _from_ground(target / "facts.jsonl", texts)
    inside = [p for p in sorted(target.iterdir()) if p.is_dir() and _is_run(p)]
    if not inside:
        raise InputError(
            "holds no run: no dataset.json, refused.jsonl or facts.jsonl", path=str(target)
        )
    return [row for p in inside for row in read_refusals(p, texts)]


def _is_run(folder: Path) -> bool:
    return any(
        (folder / name).is_file() for name in ("dataset.json", "refused.jsonl", "facts.jsonl")
    )
