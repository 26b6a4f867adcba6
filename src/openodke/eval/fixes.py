"""``openodke.eval.fixes``, the path the spec imports: the fixes live in
:mod:`openodke.eval.diagnosis.fixes`, beside the diagnosis they read.
"""

from openodke.eval.diagnosis.fixes import (
    FIXES,
    Fix,
    FixRecall,
    FixSpec,
    fixes,
    reference_rates,
    render_fixes,
)

__all__ = ["FIXES", "Fix", "FixRecall", "FixSpec", "fixes", "reference_rates", "render_fixes"]
