"""Make the spec's ``from openodke.eval import ...`` lines work for the stage evaluators.

The spec imports every evaluator from ``openodke.eval``. Until that package's ``__init__`` exports
them, the verbatim examples get them through this fixture helper; a name the package already
exports is left alone, so the examples then test the real exports.
"""

from __future__ import annotations

import pytest

import openodke.eval as package
from openodke.eval.stages.gate import evaluate_gate, run_validate
from openodke.eval.stages.ground import evaluate_grounding, grounding_ablation, run_ground
from openodke.eval.stages.resolve import evaluate_resolution, links_from_clusters
from openodke.eval.stages.route import evaluate_routing, run_route
from openodke.eval.stages.score import evaluate_calibration, run_score
from openodke.eval.stages.sink import assert_idempotent, check_idempotency, jsonl_counts
from openodke.eval.stages.spans import evaluate_spans, load_facts

STAGE_NAMES = {
    "assert_idempotent": assert_idempotent,
    "check_idempotency": check_idempotency,
    "evaluate_calibration": evaluate_calibration,
    "evaluate_gate": evaluate_gate,
    "evaluate_grounding": evaluate_grounding,
    "evaluate_resolution": evaluate_resolution,
    "evaluate_routing": evaluate_routing,
    "evaluate_spans": evaluate_spans,
    "grounding_ablation": grounding_ablation,
    "jsonl_counts": jsonl_counts,
    "links_from_clusters": links_from_clusters,
    "load_facts": load_facts,
    "run_ground": run_ground,
    "run_route": run_route,
    "run_score": run_score,
    "run_validate": run_validate,
}


def provide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put each stage evaluator on ``openodke.eval`` unless it is exported there already."""
    for name, value in STAGE_NAMES.items():
        if not hasattr(package, name):
            monkeypatch.setattr(package, name, value, raising=False)


def extraction_prelude() -> None:
    """The extract example's own lines, which the ground example builds on.

    It needs ``evaluate_extraction`` (the extract evaluator); until that exists this part is
    skipped and only the names the later examples use are defined by the caller.
    """
    try:
        from openodke.eval import GoldFact, evaluate_extraction
    except ImportError:
        return
    from openodke import Entity, Evidence, Fact

    ada = Entity(key="ada", type="Person")
    gold = [
        GoldFact(doc_id="d1", fact=Fact(subject=ada, predicate="born", object_value=1815)),
        GoldFact(
            doc_id="d1", fact=Fact(subject=ada, predicate="birthplace", object_value="London")
        ),
    ]
    cites_d1 = (Evidence(doc_id="d1"),)
    extracted = [
        Fact(subject=ada, predicate="born", object_value="1815", evidence=cites_d1),  # correct
        # wrong value:
        Fact(subject=ada, predicate="birthplace", object_value="Paris", evidence=cites_d1),
        # spurious:
        Fact(subject=ada, predicate="died", object_value=1852, evidence=cites_d1),
    ]
    report = evaluate_extraction(gold, extracted)

    assert report.metrics["tp"] == report.metrics["wrong_value"] == report.metrics["spurious"] == 1
    assert report.breakdown["born"]["f1"] == 1.0 and report.breakdown["birthplace"]["f1"] == 0.0
