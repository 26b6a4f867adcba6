"""Where a row loses facts: each missed gold fact in the first bucket its evidence fits.

``gold_view`` (alias ``diagnosis_view``) matches gold and predictions; ``diagnose`` buckets the
misses and splits the false positives (DECISIONS #38); ``Diagnosis.render()`` prints the spec's
table. Fixes are in :mod:`openodke.eval.diagnosis.fixes`.
"""

from typing import TYPE_CHECKING

from openodke._lazy import lazy_names

# A function named as its module: imported here, or importing the module would put the module
# where the function is expected (numpy is imported by the function, not the module).
from openodke.eval.diagnosis.saturation import Saturation, saturation

if TYPE_CHECKING:
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

_WHERE = {
    "ALIKE": "openodke.eval.diagnosis.buckets",
    "BUCKETS": "openodke.eval.diagnosis.models",
    "Bucket": "openodke.eval.diagnosis.models",
    "Diagnosis": "openodke.eval.diagnosis.models",
    "DiagnosisExample": "openodke.eval.diagnosis.models",
    "DiagnosisRow": "openodke.eval.diagnosis.models",
    "DiagnosisView": "openodke.eval.diagnosis.view",
    "Group": "openodke.eval.diagnosis.models",
    "LABELS": "openodke.eval.diagnosis.models",
    "Offered": "openodke.eval.diagnosis.models",
    "PRECISION_BUCKETS": "openodke.eval.diagnosis.models",
    "RECALL_BUCKETS": "openodke.eval.diagnosis.models",
    "Rate": "openodke.eval.diagnosis.models",
    "Replay": "openodke.eval.diagnosis.models",
    "SentenceEvidence": "openodke.eval.diagnosis.sentences",
    "alike": "openodke.eval.diagnosis.buckets",
    "config_from_trace": "openodke.eval.diagnosis.trace",
    "diagnose": "openodke.eval.diagnosis.buckets",
    "diagnosis_view": "openodke.eval.diagnosis.view",
    "evidence_from_bench": "openodke.eval.diagnosis.sentences",
    "evidence_from_redocred": "openodke.eval.diagnosis.sentences",
    "gold_view": "openodke.eval.diagnosis.view",
    "inverse_pairs": "openodke.eval.diagnosis.inputs",
    "name_key": "openodke.eval.diagnosis.sentences",
    "offered_from_config": "openodke.eval.diagnosis.trace",
    "offered_from_trace": "openodke.eval.diagnosis.trace",
    "render_diagnosis": "openodke.eval.diagnosis.render",
    "split_sentences": "openodke.eval.diagnosis.sentences",
}
"""Each public name's module: imported at first use, so a command that needs one helper (the
sentence splitter, ``name_key``) does not load the whole diagnosis and numpy (DECISIONS #225)."""


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

__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
