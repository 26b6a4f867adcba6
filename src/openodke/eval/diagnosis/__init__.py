"""Where a row loses facts: each missed gold fact in the first bucket its evidence fits.

``gold_view`` (alias ``diagnosis_view``) matches gold and predictions; ``diagnose`` buckets the
misses and splits the false positives (DECISIONS #38); ``Diagnosis.render()`` prints the spec's
table. Fixes are in :mod:`openodke.eval.diagnosis.fixes`.
"""

from openodke.eval.diagnosis.buckets import ALIKE, alike, diagnose
from openodke.eval.diagnosis.inputs import inverse_pairs
from openodke.eval.diagnosis.models import (
    BUCKETS,
    LABELS,
    PRECISION_BUCKETS,
    RECALL_BUCKETS,
    Bucket,
    Diagnosis,
    DiagnosisExample,
    DiagnosisRow,
    Group,
    Offered,
    Rate,
    Replay,
)
from openodke.eval.diagnosis.render import render_diagnosis
from openodke.eval.diagnosis.saturation import Saturation, saturation
from openodke.eval.diagnosis.sentences import (
    SentenceEvidence,
    evidence_from_bench,
    evidence_from_redocred,
    name_key,
    split_sentences,
)
from openodke.eval.diagnosis.trace import (
    config_from_trace,
    offered_from_config,
    offered_from_trace,
)
from openodke.eval.diagnosis.view import DiagnosisView, diagnosis_view, gold_view

__all__ = [
    "ALIKE",
    "BUCKETS",
    "Bucket",
    "Diagnosis",
    "DiagnosisExample",
    "DiagnosisRow",
    "DiagnosisView",
    "Group",
    "LABELS",
    "Offered",
    "PRECISION_BUCKETS",
    "RECALL_BUCKETS",
    "Rate",
    "Replay",
    "Saturation",
    "SentenceEvidence",
    "alike",
    "config_from_trace",
    "diagnose",
    "diagnosis_view",
    "evidence_from_bench",
    "evidence_from_redocred",
    "gold_view",
    "inverse_pairs",
    "name_key",
    "offered_from_config",
    "offered_from_trace",
    "render_diagnosis",
    "saturation",
    "split_sentences",
]
