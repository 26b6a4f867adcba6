"""Is a near miss the gold fact in other words? ``FactJudge``, the pre-filter and ``lenient``.

The spec's path for the lenient score (evaluate-a-pipeline.md, "Surface forms: the lenient
score"); the code lives in :mod:`openodke.eval.judges`.
"""

from openodke.eval.judges.fact_judge import FACT_EQUIV, Answer, FactJudge, Verdict
from openodke.eval.judges.lenient import LenientOutcome, LenientPair, lenient, lenient_score
from openodke.eval.judges.prefilter import (
    SurfacePair,
    candidate,
    passage_for,
    surface_pair,
    surface_pairs,
)

__all__ = [
    "FACT_EQUIV",
    "Answer",
    "FactJudge",
    "LenientOutcome",
    "LenientPair",
    "SurfacePair",
    "Verdict",
    "candidate",
    "lenient",
    "lenient_score",
    "passage_for",
    "surface_pair",
    "surface_pairs",
]
