"""Extraction scoring: ``evaluate_extraction`` and ``run_extract``.

Each miss is a wrong value, a wrong entity, missing or spurious; a wrong value or entity is both a
false positive and a false negative. Matching lives in :mod:`openodke.eval.engine.matching`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.identity import Aligner, Identity
from openodke.eval.engine.key_table import KeyTable, join_sides
from openodke.eval.engine.matching import (
    DUPLICATE,
    HIT,
    MISSING,
    SPURIOUS,
    UNSCORED,
    WRONG_ENTITY,
    WRONG_VALUE,
    Matching,
    match_keys,
)
from openodke.eval.engine.near import NearMisses, near_misses
from openodke.eval.stages.stage_report import StageReport, safe_div

if TYPE_CHECKING:  # the models load where Facts are built: scoring files needs none of them
    from openodke.eval.stages.labels import GoldFact
    from openodke.types import Document, Fact

__all__ = [
    "ExtractionScore",
    "evaluate_extraction",
    "f1_from_counts",
    "run_extract",
    "run_facts",
    "score_facts",
    "score_keys",
    "small_set",
]


def f1_from_counts(tp: int, fp: int, fn: int) -> float | None:
    """2·tp / (2·tp + fp + fn): the harmonic mean of P and R, None only when all three are 0."""
    return safe_div(2 * tp, 2 * tp + fp + fn)


def _scores(c: dict[str, int]) -> dict[str, float | None]:
    return {
        "precision": safe_div(c["tp"], c["tp"] + c["fp"]),
        "recall": safe_div(c["tp"], c["tp"] + c["fn"]),
        "f1": f1_from_counts(c["tp"], c["fp"], c["fn"]),
    }


@dataclass
class ExtractionScore:
    """A matching and what follows from it: per-document counts and the StageReport.

    ``gold`` and ``predicted`` are the columns it was matched from (what the diagnosis reads),
    their keys compared as ``aligner`` compares them (:mod:`~openodke.eval.engine.identity`).
    """

    matching: Matching
    n_predicted: int
    gold: FactColumns | None = None
    predicted: FactColumns | None = None
    aligner: Aligner | None = None

    @cached_property
    def near(self) -> NearMisses:
        """Misses a prediction would match but for a type, a key's form, a predicate's case or a
        document id's form (:mod:`~openodke.eval.engine.near`)."""
        if self.gold is None or self.predicted is None:
            raise ValueError("this score holds no columns: score it with score_keys")
        return near_misses(self.matching, self.gold, self.predicted)

    @cached_property
    def warnings(self) -> tuple[str, ...]:
        """What is said before any table: most predictions share nothing with the gold, and
        the near misses (:func:`~openodke.eval.stages.first_warnings.first_warnings`)."""
        from openodke.eval.stages.first_warnings import warnings_of

        return tuple(warnings_of(self))

    def document_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """tp, fp, fn per document of ``matching.documents`` (uncited errors excluded)."""
        m = self.matching
        n = len(m.documents)
        scored = m.gold_status != DUPLICATE
        tp = np.bincount(m.gold_doc[m.gold_status == HIT], minlength=n)
        fn = np.bincount(m.gold_doc[scored & (m.gold_status != HIT)], minlength=n)
        wrong = (m.pred_status == SPURIOUS) | (m.pred_status == WRONG_VALUE)
        wrong |= m.pred_status == WRONG_ENTITY
        fp = np.bincount(m.pred_doc[wrong & (m.pred_doc >= 0)], minlength=n)
        return tp, fp, fn

    def per_document(self) -> dict[str, list[int]]:
        """doc id → [tp, fp, fn] for every labelled document."""
        tp, fp, fn = self.document_counts()
        return {
            doc: [int(a), int(b), int(c)]
            for doc, a, b, c in zip(self.matching.documents, tp, fp, fn, strict=True)
        }

    @property
    def uncited(self) -> int:
        """Predictions that cite no document."""
        m = self.matching
        return int(np.count_nonzero((m.pred_doc < 0) & (m.pred_status != UNSCORED)))

    @property
    def uncited_fp(self) -> int:
        """False positives citing no document: in every bootstrap draw, in no document's row."""
        m = self.matching
        wrong = np.isin(m.pred_status, (SPURIOUS, WRONG_VALUE, WRONG_ENTITY))
        return int(np.count_nonzero(wrong & (m.pred_doc < 0)))

    @property
    def unscored(self) -> int:
        """Predictions citing only unlabelled documents (a fact citing a labelled one as well is
        scored there)."""
        unscored = self.matching.pred_status == UNSCORED
        if self.predicted is None or self.predicted.source is None:
            return int(np.count_nonzero(unscored))
        source = self.predicted.source
        scored = np.zeros(self.predicted.facts, dtype=bool)
        scored[source[~unscored]] = True
        return int(np.count_nonzero(~scored[source[unscored]]))

    @property
    def spread(self) -> int:
        """Facts citing several documents, each scored in every one it cites."""
        p = self.predicted
        if p is None or p.source is None:
            return 0
        return int(np.count_nonzero(np.bincount(p.source) > 1))

    @property
    def citing(self) -> int:
        """Predictions citing a document (a fact citing several counted once)."""
        m = self.matching
        rows = np.flatnonzero((m.pred_doc >= 0) | (m.pred_status == UNSCORED))
        if self.predicted is None or self.predicted.source is None:
            return len(rows)
        return len(np.unique(self.predicted.source[rows]))

    def unlabelled_warning(self) -> str | None:
        """The warning when most predictions that cite a document (more than half) cite none the
        labels name, even by file stem: how many, two ids from each side, and the fix."""
        m = self.matching
        unscored = self.unscored
        citing = self.citing
        if unscored * 2 <= citing:
            return None
        theirs = ""
        if self.predicted is not None:
            docs = self.predicted.docs
            rows = np.flatnonzero(m.pred_status == UNSCORED)
            distinct = dict.fromkeys(docs.names[h] for h in docs.hashes[rows[:1000]].tolist())
            theirs = f"they cite {_listed(list(distinct))}; "
        ours = (
            f"the labels name {_listed(m.documents)}" if m.documents else "no document is labelled"
        )
        return (
            f"{unscored:,} of {citing:,} predictions citing a document cite none the labels "
            f"name, even by file stem ({theirs}{ours}): they are not scored; name documents "
            "as the labels do"
        )

    def stem_note(self) -> str | None:
        """The note naming the document ids joined by file stem rather than by id."""
        joined = dict((other, name) for name, other in self.matching.joined)
        if not joined:
            return None
        other, name = next(iter(joined.items()))
        count = len(joined)
        return (
            f"{count:,} document id{'' if count == 1 else 's'} joined a labelled document by "
            f"letter case or file stem, none having {'its' if count == 1 else 'their'} id "
            f"(e.g. {name!r} ↔ {other!r})"
        )

    def report(self, stage: str = "extract") -> StageReport:
        """The StageReport: micro P/R/F1, miss kinds, and a per-predicate breakdown."""
        m = self.matching
        row_predicate, predicates = m.rows.predicate_ids()
        names = {n: i for i, n in enumerate(predicates)}
        width = max(len(names), 1)
        ng = len(m.gold_status)

        def table(rows: np.ndarray, status: np.ndarray) -> np.ndarray:
            codes = rows * 7 + status
            return np.bincount(codes, minlength=7 * width).reshape(width, 7)

        g = table(row_predicate[:ng], m.gold_status)
        p = table(row_predicate[ng:], m.pred_status)
        breakdown: dict[str, dict[str, object]] = {}
        for name in sorted(names):
            gr, pr = g[names[name]], p[names[name]]
            c = {
                "tp": int(gr[HIT]),
                "fp": int(pr[WRONG_VALUE] + pr[WRONG_ENTITY] + pr[SPURIOUS]),
                "fn": int(gr[WRONG_VALUE] + gr[WRONG_ENTITY] + gr[MISSING]),
                "wrong_value": int(gr[WRONG_VALUE]),
                "wrong_entity": int(gr[WRONG_ENTITY]),
                "missing": int(gr[MISSING]),
                "spurious": int(pr[SPURIOUS]),
            }
            if not any(c.values()):
                continue  # only duplicates or unscored rows: nothing was scored here
            support = int(gr[HIT] + gr[WRONG_VALUE] + gr[WRONG_ENTITY] + gr[MISSING])
            breakdown[name] = {**_scores(c), **c, "support": support}
        total = m.counts()
        f1s = [row["f1"] for row in breakdown.values() if row["f1"] is not None]
        metrics: dict[str, float | int | None] = {
            **_scores(total),
            "macro_f1": float(np.mean(f1s)) if f1s else None,  # type: ignore[arg-type]
            **total,
            "predicates": len(breakdown),
        }
        return StageReport(
            stage=stage,
            n=int(np.count_nonzero(m.gold_status != DUPLICATE)),
            metrics=metrics,
            breakdown=breakdown,
            notes=tuple(self._notes(breakdown)),
        )

    def _notes(self, breakdown: dict[str, dict[str, object]]) -> list[str]:
        m = self.matching
        warning = self.unlabelled_warning()
        if self.gold is not None and self.predicted is not None:
            notes = list(self.warnings)  # the unlabelled warning among them
        else:
            notes = [warning] if warning is not None else []
        zero = [p for p, row in breakdown.items() if row["f1"] == 0.0]
        if zero:
            shown = ", ".join(zero[:12])
            more = f" and {len(zero) - 12} more" if len(zero) > 12 else ""
            notes.append(f"F1 is zero for: {shown}{more}")
        if len(m.gold_status) == 0:
            notes.append("no gold facts: recall is undefined")
        if self.n_predicted == 0:
            notes.append("no predictions: precision is undefined")
        if self.unscored and warning is None:
            notes.append(
                f"{self.unscored} prediction(s) cite only unlabelled documents and were not scored"
            )
        stem = self.stem_note()
        if stem is not None:
            notes.append(stem)
        if self.spread:
            notes.append(
                f"{self.spread} prediction(s) cite several documents: each is scored in every "
                "document it cites, against that document's gold"
            )
        if self.uncited:
            notes.append(
                f"{self.uncited} prediction(s) cite no document: matched against gold left "
                f"over anywhere; {self.uncited_fp} of them are false positives"
            )
        dup_gold = int(np.count_nonzero(m.gold_status == DUPLICATE))
        dup_pred = int(np.count_nonzero(m.pred_status == DUPLICATE))
        if dup_gold or dup_pred:
            notes.append(
                f"duplicates counted once: {dup_gold} gold row(s), {dup_pred} prediction(s)"
            )
        return notes


def _listed(ids: Sequence[str]) -> str:
    """The first two ids, quoted: ``'a', 'b'``."""
    return ", ".join(repr(i) for i in ids[:2])


def score_keys(
    gold: FactColumns,
    predicted: FactColumns,
    documents: Iterable[str] | None = None,
    identity: Identity | None = None,
) -> ExtractionScore:
    """Match gold and predicted columns: the one entry point of every extraction score.

    ``identity`` says how ends compare (default: names as users mean them, untyped ends match
    any type, declared types must agree; :mod:`~openodke.eval.engine.identity`).
    """
    aligner = Aligner(gold, identity or Identity(), documents, predicted)
    given = gold
    gold = replace(gold, keys=aligner.gold_keys)
    raw = predicted.per_document()  # a fact citing several documents scores in each
    predicted = replace(raw, keys=aligner.keys(raw.keys, raw.docs, raw.types, raw))
    aligner.let_go()  # aligned: its gold-wide tables are not held through matching or after
    held = _holders(given, gold, raw, predicted, aligner)
    join_sides(gold.keys, predicted.keys, held)  # matching's table of every row, not a copy
    matching = match_keys(gold.docs, gold.keys, predicted.docs, predicted.keys, aligner.doc_ids)
    _held_once(((given, gold), (raw, predicted)))  # before labels are read: the peak of a score
    status = matching.pred_status
    scored = int(np.count_nonzero((status != DUPLICATE) & (status != UNSCORED)))
    if aligner.relabel(int(np.count_nonzero(status == HIT)), scored):
        # Most predictions missed: perhaps keys share nothing and labels do (DECISIONS 127).
        again = aligner.keys_by_labels(raw.keys, raw.docs, raw.types, raw)
        aligner.let_go()  # worked out again for the labels: let go again
        if again is not None and not np.array_equal(again.key, predicted.keys.key):
            predicted = replace(raw, keys=again)
            join_sides(gold.keys, again, [*held, predicted, again])
            matching = match_keys(gold.docs, gold.keys, raw.docs, again, aligner.doc_ids)
            _held_once(((given, gold), (raw, predicted)))
    return ExtractionScore(matching, predicted.facts, gold, predicted, aligner)


def _holders(*objects: object) -> list[object]:
    """``objects``, the key tables of the columns among them, and an aligner's columns and key
    tables: what reads a side's key columns when matching starts."""
    found: dict[int, object] = {}
    for obj in objects:
        inner = [v for v in vars(obj).values() if isinstance(v, FactColumns | KeyTable)]
        for item in (obj, *inner):
            found.setdefault(id(item), item)
            if isinstance(item, FactColumns):
                found.setdefault(id(item.keys), item.keys)
    return list(found.values())


def _held_once(sides: Iterable[tuple[FactColumns, FactColumns]]) -> None:
    """Each side as given reads the arrays holding the same values as its aligned keys' from
    them (the aligner keeps the gold as given), and so do the aligned columns' nodes: one copy
    of each is held, from the first matching on (so not beside the labels' reading too)."""
    for side, aligned in sides:
        side.share_equal(aligned.keys)
        aligned.share_equal(aligned.keys)


def score_facts(
    gold: Sequence[GoldFact],
    predicted: Sequence[Fact],
    documents: Iterable[str] | None = None,
    identity: Identity | None = None,
) -> ExtractionScore:
    """Match GoldFacts with predicted Facts (their columns, as the CLI builds from files)."""
    return score_keys(
        FactColumns.of_gold(gold), FactColumns.of_facts(predicted), documents, identity
    )


def evaluate_extraction(
    gold: Sequence[GoldFact],
    predicted: Sequence[Fact],
    *,
    documents: Iterable[str] | None = None,
    identity: Identity | None = None,
) -> StageReport:
    """Score predicted facts against gold, per document.

    ``documents`` names the labelled documents when some have no gold fact (default: the gold's
    documents). A prediction scores in each labelled document it cites; one citing none is
    matched last against gold left over anywhere; one citing only unlabelled documents is noted.
    ``identity`` says how entities compare (``Identity(match="names")``, a ``type_map``, an
    ontology's type names).
    """
    return score_facts(gold, predicted, documents, identity).report()


def with_source(fact: Fact, doc_id: str) -> Fact:
    """``fact`` citing ``doc_id`` as context when it cites nothing."""
    from openodke.types import Evidence, SpanOrigin

    if fact.evidence:
        return fact
    evidence = (Evidence(doc_id=doc_id, span_origin=SpanOrigin.context),)
    return fact.model_copy(update={"evidence": evidence})


def run_extract(
    extractor: object,
    gold: Sequence[GoldFact],
    documents: Sequence[Document],
) -> StageReport:
    """Run ``extractor.extract(document)`` (or a callable) over ``documents`` and score it.

    Facts that cite nothing are taken to cite the document they came from. An error the
    extractor raises is a PipelineError naming the document (exit 1).
    """
    facts = run_facts(extractor, documents)
    return evaluate_extraction(gold, facts, documents=[d.id for d in documents])


def run_facts(extractor: object, documents: Sequence[Document]) -> list[Fact]:
    """Every fact ``extractor`` gives for ``documents``, each citing its document at least."""
    from openodke.protocols import bind_stage, call_stage

    call = bind_stage(extractor, "extract")
    return [
        with_source(fact, doc.id)
        for doc in documents
        for fact in call_stage(call, doc, where=f"document {doc.id}")
    ]


def small_set(score: ExtractionScore) -> str | None:
    """The note for a set too small or too concentrated for its ranges (``small_set_note``,
    DECISIONS #41, 161), else None: the informative units are the documents holding a gold or
    predicted fact, the effective ones Kish's count over each document's gold + predicted facts."""
    from openodke.eval.stats.intervals import effective_documents, small_set_note

    tp, fp, fn = score.document_counts()
    weights = 2 * np.asarray(tp) + np.asarray(fp) + np.asarray(fn)
    informative = int(np.count_nonzero(weights))
    return small_set_note(
        informative, total=len(score.matching.documents), effective=effective_documents(weights)
    )
