"""The verdict gate: which facts are written, refused, flagged as conflicts or marked for review.

``VerdictGate`` decides from each fact's grounding verdict and free-check findings, under the
calibration bar (DECISIONS #54); ``write_refused`` writes ``refused.jsonl`` (``REFUSED_FILE``).
"""

from openodke.gate.refused import (
    REFUSED_FILE,
    RefusedFact,
    read_refused,
    refused_lines,
    write_refused,
)
from openodke.gate.verdict import (
    CONFLICT,
    CONTRADICTED,
    NOT_FOUND,
    REVIEW,
    GateResult,
    VerdictGate,
    mark,
    reason_kind,
)

__all__ = [
    "CONFLICT",
    "CONTRADICTED",
    "NOT_FOUND",
    "REFUSED_FILE",
    "REVIEW",
    "GateResult",
    "RefusedFact",
    "VerdictGate",
    "mark",
    "reason_kind",
    "read_refused",
    "refused_lines",
    "write_refused",
]
