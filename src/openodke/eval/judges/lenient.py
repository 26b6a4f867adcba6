"""The lenient score: near misses a judge calls the gold fact in other words count as hits.

DECISIONS #39: printed beside the strict score, never replacing it; a pair counts only when the
judge says ``same`` in both orders; each gold fact and each prediction counts at most once (a
maximum one-to-one matching over the confirmed pairs of a document); provisional, and untrusted
until a calibration card on label set F meets the bar. A question asked by several rows is asked
once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.doc_ids import under_names
from openodke.eval.engine.matching import fact_key
from openodke.eval.judges.calls import CallTally, in_order
from openodke.eval.judges.cards import judge_line, trust_note
from openodke.eval.judges.claims import fact_words
from openodke.eval.judges.fact_judge import FACT_EQUIV, Answer, FactJudge, Verdict
from openodke.eval.judges.prefilter import SurfacePair, passage_for, surface_pairs
from openodke.eval.judges.render import table, value_range
from openodke.eval.judges.scored import DEFAULT_DRAWS, Draws, ScoredRow, moved, score_rows, texts_of
from openodke.eval.report.models import CalibrationLine, Lenient, LenientRow
from openodke.eval.stages.labels import GoldFact
from openodke.types import Document, Fact

__all__ = [
    "LenientOutcome",
    "LenientPair",
    "foot",
    "lenient",
    "lenient_score",
    "one_to_one",
    "render_lenient",
]


class LenientPair(BaseModel):
    """One line of the ``--lenient`` file: a near miss, both answers, and the decision."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_id: str = Field(description="The document both facts are in.")
    gold: Fact = Field(description="The missed gold fact.")
    prediction: Fact = Field(description="The unmatched prediction.")
    passage: str = Field(description="The gold fact's evidence sentences, as the judge read them.")
    answers: tuple[Answer, ...] = Field(description="The judge's answer in each order.")
    same: bool | None = Field(
        description="Same in both orders; null when a call failed (counts neither way)."
    )
    why: str = Field(description="What the answers add up to.")
    rows: tuple[str, ...] = Field(default=(), description="The rows this pair is a candidate of.")


@dataclass
class LenientOutcome:
    """What ``--lenient`` adds to a report: the section, the pairs file's rows, the table."""

    section: Lenient
    pairs: list[LenientPair]
    calibration: CalibrationLine
    tally: CallTally
    table: str
    notes: list[str] = field(default_factory=list)


def one_to_one(edges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """A maximum matching of (gold, prediction) edges: each end used at most once.

    Kuhn's augmenting paths, trying gold rows and their edges in the order given, so the result
    is deterministic.
    """
    adjacency: dict[int, list[int]] = {}
    for g, p in edges:
        adjacency.setdefault(g, []).append(p)
    owner: dict[int, int] = {}

    def augment(g: int, seen: set[int]) -> bool:
        for p in adjacency[g]:
            if p in seen:
                continue
            seen.add(p)
            if p not in owner or augment(owner[p], seen):
                owner[p] = g
                return True
        return False

    for g in adjacency:
        augment(g, set())
    return sorted((g, p) for p, g in owner.items())


def _question_key(doc_id: str, gold: Fact, prediction: Fact) -> tuple[str, str, str]:
    return (doc_id, fact_key(gold), fact_key(prediction))


def _prompt_key(judge: FactJudge, gold: Fact, prediction: Fact, passage: str) -> tuple[str, ...]:
    return (judge.relation(gold.predicate), fact_words(gold), fact_words(prediction), passage)


def lenient_score(
    rows: Iterable[Sequence[Any]],
    gold: Sequence[GoldFact],
    documents: Iterable[Document],
    judge: FactJudge,
    *,
    labelled: Sequence[str] | None = None,
    max_workers: int = 8,
    draws: Draws = DEFAULT_DRAWS,
    pairs_path: str | Path | None = None,
    cards: Sequence[str | Path] = (),
    allow_failures: float | None = None,
) -> LenientOutcome:
    """The lenient section for ``rows`` (``(name, facts[, usage])``), its pairs and its table.

    ``labelled`` names the labelled documents (default: ``documents``' ids). ProviderError (exit
    1) when every judge call failed; CallsFailed (exit 1) when more failed than the share
    ``allow_failures`` allows.
    """
    docs = list(documents)
    texts = texts_of(docs)
    scored = score_rows(rows, gold, list(labelled) if labelled is not None else list(texts), draws)
    if scored:  # every row has the same labelled documents: gold's, joined by id or stem
        texts = under_names(texts, scored[0].score.matching.documents)
    found: dict[tuple[str, str, str], tuple[Fact, Fact, str]] = {}
    candidates: list[list[tuple[SurfacePair, tuple[str, str, str]]]] = []
    for row in scored:
        mine = []
        for pair in surface_pairs(row.view):
            g, p = gold[pair.gold].fact, row.facts[pair.prediction]
            key = _question_key(pair.doc_id, g, p)
            found.setdefault(key, (g, p, pair.doc_id))
            mine.append((pair, key))
        candidates.append(mine)
    keys = list(found)
    passages = {k: passage_for(found[k][0], found[k][1], texts.get(found[k][2], "")) for k in keys}
    # One question per distinct prompt: two pairs that read the same (a sentence repeated in
    # two documents) get one answer.
    prompts: dict[tuple[str, ...], tuple[str, str, str]] = {}
    for k in keys:
        g, p, _ = found[k]
        prompts.setdefault(_prompt_key(judge, g, p, passages[k]), k)
    distinct = list(prompts.values())

    def ask(key: tuple[str, str, str]) -> Verdict:
        return judge.ask(found[key][0], found[key][1], passages[key])

    answers = in_order(ask, distinct, max_workers=max_workers, what="fact_equiv@1")
    verdicts = dict(zip(distinct, answers, strict=True))
    tally = CallTally("lenient judge (fact_equiv@1)")
    for verdict in verdicts.values():
        for answer in verdict.answers:
            tally.add(answer.error if answer.decision is None else None)
    tally.check(allow_failures)
    answered = {
        k: (
            verdicts[prompts[_prompt_key(judge, found[k][0], found[k][1], passages[k])]],
            passages[k],
        )
        for k in keys
    }

    section_rows: list[LenientRow] = []
    on_rows: dict[tuple[str, str, str], list[str]] = {key: [] for key in keys}
    for row, mine in zip(scored, candidates, strict=True):
        for _, key in mine:
            if row.name not in on_rows[key]:
                on_rows[key].append(row.name)
        section_rows.append(_row(row, mine, answered, draws))
    line = judge_line("ground", judge.model, FACT_EQUIV, cards=cards)
    pairs = [
        LenientPair(
            doc_id=found[key][2],
            gold=found[key][0],
            prediction=found[key][1],
            passage=answered[key][1],
            answers=answered[key][0].answers,
            same=answered[key][0].same,
            why=answered[key][0].why,
            rows=tuple(on_rows[key]),
        )
        for key in keys
    ]
    section = Lenient(
        judge={"model": judge.model, "prompt": FACT_EQUIV},
        calibrated=line.meets_bar,
        rows=section_rows,
        pairs=str(pairs_path) if pairs_path is not None else None,
    )
    notes = [n for n in (tally.note(),) if n]
    table = render_lenient(section, line, tally)
    return LenientOutcome(section, pairs, line, tally, table, notes)


def _row(
    row: ScoredRow,
    mine: list[tuple[SurfacePair, tuple[str, str, str]]],
    answered: dict[tuple[str, str, str], tuple[Verdict, str]],
    draws: Draws,
) -> LenientRow:
    confirmed = [(pair, key) for pair, key in mine if answered[key][0].same is True]
    by_doc: dict[int, list[tuple[int, int]]] = {}
    for pair, _ in confirmed:
        by_doc.setdefault(pair.doc, []).append((pair.gold, pair.prediction))
    hits = [d for d, edges in by_doc.items() for _ in one_to_one(edges)]
    return LenientRow(
        name=row.name,
        candidates=len(mine),
        same=len(confirmed),
        counted=len(hits),
        strict=row.strict.performance,
        lenient=moved(row.score, hits, draws),
    )


def lenient(
    rows: Iterable[Sequence[Any]],
    gold: Sequence[GoldFact],
    documents: Iterable[Document],
    judge: FactJudge,
    **options: Any,
) -> tuple[Lenient, list[LenientPair]]:
    """The lenient section and the judged pairs (``lenient_score`` has the options and table)."""
    outcome = lenient_score(rows, gold, documents, judge, **options)
    return outcome.section, outcome.pairs


def render_lenient(section: Lenient, line: CalibrationLine, tally: CallTally) -> str:
    """The table ``--lenient`` prints beside the strict score."""
    head = (
        "lenient score  (near misses the judge called the gold fact in other words, in both "
        "orders; provisional)"
    )
    columns = [
        "strict recall",
        "lenient recall",
        "strict f1",
        "lenient f1",
        "candidates",
        "same",
        "counted",
    ]
    cells = [
        [
            value_range(r.strict.recall),
            value_range(r.lenient.recall),
            value_range(r.strict.f1),
            value_range(r.lenient.f1),
            str(r.candidates),
            str(r.same),
            str(r.counted),
        ]
        for r in section.rows
    ]
    names = [r.name for r in section.rows]
    return table(head, names, columns, cells, foot(section.pairs, line, tally, "pairs"))


def foot(path: str | None, line: CalibrationLine, tally: CallTally, what: str) -> list[str]:
    foot = ["the strict score never changes; " + trust_note(line)]
    if tally.failed:
        foot.append(tally.note() or "")
    if path:
        foot.append(f"the {what}, with every answer: {path}")
    return foot
