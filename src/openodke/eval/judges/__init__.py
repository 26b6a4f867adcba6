"""Judges and labels: second opinions on gold, numbers without gold, and sheets people tick.

- ``lenient_score`` / ``lenient`` (:mod:`openodke.eval.equivalence`): near misses a FactJudge
  calls the gold fact in other words.
- ``adjudicate``: predictions the gold lacks, grounded three times.
- ``judged_precision`` (PPI), ``pooled_recall``: precision and recall without gold.
- ``read_refusals``, ``draw_refusals``: what a grounder refused, sampled for a person.
- ``write_sheets``, ``read_sheets``, ``label_rows``: Markdown label sheets and their rows.
"""

from openodke.eval.judges.adjudicate import AdjudicatedItem, AdjudicationOutcome, adjudicate
from openodke.eval.judges.cards import UNCALIBRATED, judge_line
from openodke.eval.judges.fact_judge import FACT_EQUIV, FactJudge
from openodke.eval.judges.label_kinds import (
    BOXES,
    KINDS,
    FactPairLabel,
    fact_item,
    grounding_item,
    label_rows,
    pair_item,
    refusal_item,
)
from openodke.eval.judges.lenient import LenientOutcome, LenientPair, lenient, lenient_score
from openodke.eval.judges.pool import pooled_recall
from openodke.eval.judges.ppi import ppi_mean, wilson
from openodke.eval.judges.precision import by_predicate, draw, judged_precision
from openodke.eval.judges.refusal_sample import Refusal, draw_refusals, strata_sizes
from openodke.eval.judges.refusal_sources import read_refusals
from openodke.eval.judges.scored import Draws
from openodke.eval.judges.sheets import SheetItem, Ticked, read_sheets, sheet_files, write_sheets

__all__ = [
    "BOXES",
    "FACT_EQUIV",
    "KINDS",
    "UNCALIBRATED",
    "AdjudicatedItem",
    "AdjudicationOutcome",
    "Draws",
    "FactJudge",
    "FactPairLabel",
    "LenientOutcome",
    "LenientPair",
    "Refusal",
    "SheetItem",
    "Ticked",
    "adjudicate",
    "by_predicate",
    "draw",
    "draw_refusals",
    "fact_item",
    "grounding_item",
    "judge_line",
    "judged_precision",
    "label_rows",
    "lenient",
    "lenient_score",
    "pair_item",
    "pooled_recall",
    "ppi_mean",
    "read_refusals",
    "read_sheets",
    "refusal_item",
    "sheet_files",
    "strata_sizes",
    "wilson",
    "write_sheets",
]
