"""Is the gold complete? Predictions the gold lacks, grounded three times against their text.

Each prediction scored a false positive (spurious, wrong value, wrong entity) that cites a
document we have is grounded ``runs`` (3) times, the i-th time by ``grounder(i)`` (an LLMGrounder
whose ground ModelSpec has ``repeat=i``, so the cache keeps three answers); supported ``needed``
(2) times, it is possibly missing from gold. The adjudicated precision counts those as hits
beside the strict precision, which never changes. A grounding that failed (``unchecked``) counts
neither way. A prediction in several rows is asked once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.doc_ids import under_names
from openodke.errors import InputError
from openodke.eval.engine.matching import SPURIOUS, WRONG_ENTITY, WRONG_VALUE, fact_key
from openodke.eval.judges.calls import CallTally, in_order
from openodke.eval.judges.cards import judge_line, trust_note
from openodke.eval.judges.claims import claim_text
from openodke.eval.judges.render import table, value_range
from openodke.eval.judges.scored import DEFAULT_DRAWS, Draws, ScoredRow, moved, score_rows
from openodke.eval.report.models import Adjudication, AdjudicationRow, CalibrationLine, Value
from openodke.eval.stages.labels import GoldFact
from openodke.llm.base import GROUND_MAX_TOKENS, LLMClient, ModelRoles, ModelSpec
from openodke.protocols import Grounder
from openodke.types import Document, Fact, GroundingVerdict

__all__ = [
    "RUNS",
    "NEEDED",
    "AdjudicatedItem",
    "AdjudicationOutcome",
    "adjudicate",
    "llm_grounders",
    "render_adjudication",
]

RUNS, NEEDED = 3, 2
Kind = Literal["spurious", "wrong_value", "wrong_entity"]
_KINDS: dict[int, Kind] = {
    SPURIOUS: "spurious",
    WRONG_VALUE: "wrong_value",
    WRONG_ENTITY: "wrong_entity",
}
AUDIT = (
    "possibly missing is a model's reading, not a person's: have a person tick a sample of the "
    "list (odke label make grounding) before counting it as gold"
)


class AdjudicatedItem(BaseModel):
    """One line of the ``--adjudicate`` list: a prediction the gold lacks, and every verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_id: str = Field(description="The document it was grounded against.")
    claim: str = Field(description="The prediction in words.")
    kind: Kind = Field(description="How the strict score counted it.")
    rows: tuple[str, ...] = Field(description="The rows that predicted it.")
    verdicts: tuple[str, ...] = Field(description="Each grounding's verdict; unchecked: it failed.")
    supported: int = Field(description="How many verdicts were supported.")
    possibly_missing_from_gold: bool = Field(description="Supported at least `needed` times.")
    fact: Fact


@dataclass
class AdjudicationOutcome:
    """What ``--adjudicate`` adds to a report: the section, the list's rows, the table."""

    section: Adjudication
    items: list[AdjudicatedItem]
    calibration: CalibrationLine
    tally: CallTally
    table: str
    notes: list[str] = field(default_factory=list)


GrounderSource = Grounder | Callable[[int], Grounder]


def _grounders(grounder: GrounderSource, runs: int) -> list[Grounder]:
    if hasattr(grounder, "ground") and not isinstance(grounder, type):
        return [grounder] * runs  # type: ignore[list-item]
    return [grounder(i) for i in range(runs)]  # type: ignore[operator]


def _judge_of(grounder: Any, model: str | None, prompt: str | None) -> tuple[str, str]:
    """The judge's model and prompt: as given, else as the grounder reports (``judges()``, its
    ``spec`` and ``prompt``), else its class name and ``ground.span@1``."""
    used = grounder.judges() if callable(getattr(grounder, "judges", None)) else []
    first = used[0] if used else {}
    inner = getattr(grounder, "inner", grounder)
    spec_model = getattr(getattr(inner, "spec", None), "model", None)
    found_prompt = getattr(inner, "prompt", None)
    found_prompt = getattr(found_prompt, "key", found_prompt)
    return (
        model
        or first.get("model")
        or (spec_model if isinstance(spec_model, str) else type(inner).__name__),
        prompt
        or first.get("prompt")
        or (found_prompt if isinstance(found_prompt, str) else "ground.span@1"),
    )


def llm_grounders(
    roles: ModelRoles | ModelSpec | str | None = None,
    *,
    client: LLMClient | None = None,
    **options: Any,
) -> Callable[[int], Grounder]:
    """``repeat -> Grounder``: the free checks, then an LLMGrounder whose ground ModelSpec has
    ``repeat`` set, so a cached client keeps each run's answer apart. ``options`` go to
    LLMGrounder (``locate``, ``claim_format``, ``context``, ...); one client serves every run."""
    from openodke.ground import CheckedGrounder, LLMGrounder
    from openodke.llm import client_for

    if isinstance(roles, ModelRoles):
        spec = roles.ground
    elif roles is None:
        spec = ModelRoles().ground
    else:
        spec = ModelSpec.parse(roles, max_tokens=GROUND_MAX_TOKENS)
    shared = client if client is not None else client_for(spec)

    def make(repeat: int) -> Grounder:
        repeated = spec.model_copy(update={"repeat": repeat})
        return CheckedGrounder(LLMGrounder(repeated, client=shared, **options))

    return make


def _ground_run(grounder: Any, pairs: list[tuple[Fact, Document]], max_workers: int) -> list[Fact]:
    """One run's groundings, in order: the grounder's own ``ground_all`` when it has one."""
    if callable(getattr(grounder, "ground_all", None)):
        return list(grounder.ground_all(pairs))
    return in_order(lambda pair: grounder.ground(*pair), pairs, max_workers=max_workers)


def adjudicate(
    rows: Iterable[Sequence[Any]],
    gold: Sequence[GoldFact],
    documents: Iterable[Document],
    grounder: GrounderSource,
    *,
    runs: int = RUNS,
    needed: int = NEEDED,
    labelled: Sequence[str] | None = None,
    max_workers: int = 8,
    draws: Draws = DEFAULT_DRAWS,
    list_path: str | Path | None = None,
    model: str | None = None,
    prompt: str | None = None,
    cards: Sequence[str | Path] = (),
    allow_failures: float | None = None,
) -> AdjudicationOutcome:
    """Ground each prediction the gold lacks ``runs`` times; the adjudication section and list.

    ``rows`` are ``(name, facts[, usage])``; ``grounder`` a Grounder, or ``repeat -> Grounder``.
    ``model`` and ``prompt`` name the judge for its calibration line (default: read off the
    grounder). ProviderError (exit 1) when every grounding failed; CallsFailed (exit 1) when more
    failed than the share ``allow_failures`` allows.
    """
    if not 1 <= needed <= runs:
        raise InputError(f"needed must be between 1 and runs ({runs}), got {needed}")
    docs = {doc.id: doc for doc in documents}
    scored = score_rows(rows, gold, list(labelled) if labelled is not None else list(docs), draws)
    if scored:  # every row has the same labelled documents: gold's, joined by id or stem
        docs = under_names(docs, scored[0].score.matching.documents)
    asked: dict[tuple[str, str], tuple[Fact, Kind, list[str]]] = {}
    for row in scored:
        for key, fact, kind in _not_in_gold(row, docs):
            entry = asked.setdefault(key, (fact, kind, []))
            if row.name not in entry[2]:
                entry[2].append(row.name)
    keys = list(asked)
    grounders = _grounders(grounder, runs)
    pairs = [(asked[key][0], docs[key[0]]) for key in keys]
    by_run = [
        [GroundingVerdict(f.verdict).value for f in _ground_run(g, pairs, max_workers)]
        for g in grounders
    ]
    tally = CallTally("adjudication grounder")
    for verdicts in by_run:
        for verdict in verdicts:
            tally.add("the grounding failed (unchecked)" if verdict == "unchecked" else None)
    tally.check(allow_failures)
    items = []
    for n, key in enumerate(keys):
        fact, kind, on = asked[key]
        mine = tuple(run[n] for run in by_run)
        supported = mine.count("supported")
        items.append(
            AdjudicatedItem(
                doc_id=key[0],
                claim=claim_text(fact),
                kind=kind,
                rows=tuple(on),
                verdicts=mine,
                supported=supported,
                possibly_missing_from_gold=supported >= needed,
                fact=fact,
            )
        )
    missing = {
        key for key, item in zip(keys, items, strict=True) if item.possibly_missing_from_gold
    }
    section = Adjudication(
        runs=runs,
        needed=needed,
        questions=len(keys),
        rows=[_row(row, docs, missing, draws) for row in scored],
        audit=AUDIT,
    )
    judge_model, judge_prompt = _judge_of(grounders[0], model, prompt)
    line = judge_line("ground", judge_model, judge_prompt, cards=cards)
    notes = [n for n in (tally.note(),) if n]
    text = render_adjudication(section, line, tally, list_path)
    return AdjudicationOutcome(section, items, line, tally, text, notes)


def _not_in_gold(
    row: ScoredRow, docs: dict[str, Document]
) -> list[tuple[tuple[str, str], Fact, Kind]]:
    """The row's false positives that cite a document we have: (key, fact, kind)."""
    m = row.score.matching
    out: list[tuple[tuple[str, str], Fact, Kind]] = []
    for j, (status, d) in enumerate(zip(m.pred_status.tolist(), m.pred_doc.tolist(), strict=True)):
        if status not in _KINDS or d < 0 or m.documents[d] not in docs:
            continue
        fact = row.facts[j]
        out.append(((str(m.documents[d]), fact_key(fact)), fact, _KINDS[status]))
    return out


def _row(
    row: ScoredRow, docs: dict[str, Document], missing: set[tuple[str, str]], draws: Draws
) -> AdjudicationRow:
    mine = _not_in_gold(row, docs)
    doc_index = {doc: d for d, doc in enumerate(row.score.matching.documents)}
    hits = [doc_index[key[0]] for key, _, _ in mine if key in missing]
    strict = row.strict.performance.precision
    return AdjudicationRow(
        name=row.name,
        not_in_gold=row.strict.counts.over_extraction if row.strict.counts else 0,
        asked=len(mine),
        possibly_missing=len(hits),
        strict=strict,
        adjudicated=Value(**moved(row.score, hits, draws, recall=False).precision.model_dump()),
    )


def render_adjudication(
    section: Adjudication,
    line: CalibrationLine,
    tally: CallTally,
    list_path: str | Path | None = None,
) -> str:
    """The table the spec shows under "Is the gold complete?", with the grounder's card line."""
    head = (
        f"gold adjudication  (each prediction the gold lacks grounded {section.runs} times; "
        f"supported in {section.needed} is possibly missing from gold)"
    )
    columns = ["strict", "adjudicated", "not in gold", "asked", "possibly missing"]
    cells = [
        [
            value_range(r.strict),
            value_range(r.adjudicated),
            str(r.not_in_gold),
            str(r.asked),
            str(r.possibly_missing),
        ]
        for r in section.rows
    ]
    tail = "the strict precision never changes"
    tail += f"; the list, with every verdict: {list_path}" if list_path else ""
    foot = [tail, "grounder " + trust_note(line).removeprefix("judge ")]
    if tally.failed:
        foot.append(tally.note() or "")
    return table(head, [r.name for r in section.rows], columns, cells, foot)
