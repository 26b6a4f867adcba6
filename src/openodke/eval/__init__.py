"""The Evaluator: label formats, stage evaluators, reports and statistics."""

from typing import Any

from openodke.eval.ablation import run_ablation
from openodke.eval.compare import Comparison, compare_items
from openodke.eval.engine.items import DocItem, RightWrongItem, read_items
from openodke.eval.engine.jsonl import dump_jsonl, load_jsonl
from openodke.eval.refusals import RefusalLabel, report_refusals
from openodke.eval.stages.extract import evaluate_extraction, run_extract
from openodke.eval.stages.gate import evaluate_gate, run_validate
from openodke.eval.stages.ground import evaluate_grounding, grounding_ablation, run_ground
from openodke.eval.stages.labels import (
    LABEL_FORMATS,
    CalibrationLabel,
    GateLabel,
    GoldFact,
    GroundingLabel,
    LinkRow,
    PairLabel,
    RouteLabel,
    RoutePrediction,
    ValidationPrediction,
    describe,
)
from openodke.eval.stages.resolve import evaluate_resolution, links_from_clusters
from openodke.eval.stages.route import evaluate_routing, run_route
from openodke.eval.stages.score import evaluate_calibration, run_score
from openodke.eval.stages.sink import assert_idempotent, check_idempotency, jsonl_counts
from openodke.eval.stages.spans import evaluate_spans, load_facts
from openodke.eval.stages.stage_report import StageReport
from openodke.eval.stats import (
    Interval,
    McNemar,
    Paired,
    bootstrap_interval,
    detection_limit,
    mcnemar,
    paired_bootstrap,
)

__all__ = [
    "LABEL_FORMATS",
    "CalibrationLabel",
    "Comparison",
    "CostMeter",
    "CostReport",
    "DocItem",
    "GateLabel",
    "GoldFact",
    "GroundingLabel",
    "Interval",
    "LinkRow",
    "McNemar",
    "PairLabel",
    "Paired",
    "RefusalLabel",
    "RightWrongItem",
    "RouteLabel",
    "RoutePrediction",
    "StageReport",
    "ValidationPrediction",
    "assert_idempotent",
    "bootstrap_interval",
    "check_idempotency",
    "compare_costs",
    "compare_items",
    "describe",
    "detection_limit",
    "dump_jsonl",
    "evaluate_calibration",
    "evaluate_extraction",
    "evaluate_gate",
    "evaluate_grounding",
    "evaluate_resolution",
    "evaluate_routing",
    "evaluate_spans",
    "grounding_ablation",
    "jsonl_counts",
    "links_from_clusters",
    "load_facts",
    "load_jsonl",
    "mcnemar",
    "paired_bootstrap",
    "read_items",
    "report_refusals",
    "run_ablation",
    "run_extract",
    "run_ground",
    "run_route",
    "run_score",
    "run_validate",
]


# The cost stage's evaluator is the model layer's meter; it loads httpx, so it is imported when
# first asked for, not by every ``odke eval`` command.
_COST_NAMES = frozenset({"CostMeter", "CostReport", "compare_costs"})


def __getattr__(name: str) -> Any:
    if name in _COST_NAMES:
        from openodke.llm import cost

        return getattr(cost, name)
    raise AttributeError(f"module 'openodke.eval' has no attribute {name!r}")
