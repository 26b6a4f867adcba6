"""The Evaluator: label formats, stage evaluators, reports and statistics.

Each name is imported with its module when first asked for (PEP 562): ``odke eval extract`` reaches
``openodke.eval.engine`` without loading every evaluator, the ablation runner and the model layer
(whose meter, the cost stage's evaluator, loads httpx).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openodke._lazy import lazy_names

if TYPE_CHECKING:
    from openodke.eval.ablation import run_ablation
    from openodke.eval.compare import Comparison, compare_items, compare_runs
    from openodke.eval.engine.identity import Identity, read_type_map
    from openodke.eval.engine.items import DocItem, RightWrongItem, read_items
    from openodke.eval.engine.jsonl import dump_jsonl, load_jsonl
    from openodke.eval.pipeline.api import evaluate_pipeline
    from openodke.eval.refusals import RefusalLabel, report_refusals
    from openodke.eval.stages.extract import evaluate_extraction, run_extract
    from openodke.eval.stages.gate import evaluate_gate, run_validate
    from openodke.eval.stages.gold_rows import read_gold
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
    from openodke.llm.cost import CostMeter, CostReport, compare_costs

__all__ = [
    "LABEL_FORMATS",
    "CalibrationLabel",
    "Comparison",
    "CostMeter",
    "CostReport",
    "DocItem",
    "GateLabel",
    "GoldFact",
    "Identity",
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
    "compare_runs",
    "describe",
    "detection_limit",
    "dump_jsonl",
    "evaluate_calibration",
    "evaluate_extraction",
    "evaluate_gate",
    "evaluate_grounding",
    "evaluate_pipeline",
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
    "read_gold",
    "read_items",
    "read_type_map",
    "report_refusals",
    "run_ablation",
    "run_extract",
    "run_ground",
    "run_route",
    "run_score",
    "run_validate",
]

_HOMES: dict[str, str] = {
    "run_ablation": "openodke.eval.ablation",
    "Comparison": "openodke.eval.compare",
    "compare_items": "openodke.eval.compare",
    "compare_runs": "openodke.eval.compare",
    "evaluate_pipeline": "openodke.eval.pipeline.api",
    "Identity": "openodke.eval.engine.identity",
    "read_type_map": "openodke.eval.engine.identity",
    "DocItem": "openodke.eval.engine.items",
    "RightWrongItem": "openodke.eval.engine.items",
    "read_items": "openodke.eval.engine.items",
    "read_gold": "openodke.eval.stages.gold_rows",
    "dump_jsonl": "openodke.eval.engine.jsonl",
    "load_jsonl": "openodke.eval.engine.jsonl",
    "RefusalLabel": "openodke.eval.refusals",
    "report_refusals": "openodke.eval.refusals",
    "evaluate_extraction": "openodke.eval.stages.extract",
    "run_extract": "openodke.eval.stages.extract",
    "evaluate_gate": "openodke.eval.stages.gate",
    "run_validate": "openodke.eval.stages.gate",
    "evaluate_grounding": "openodke.eval.stages.ground",
    "grounding_ablation": "openodke.eval.stages.ground",
    "run_ground": "openodke.eval.stages.ground",
    "LABEL_FORMATS": "openodke.eval.stages.labels",
    "CalibrationLabel": "openodke.eval.stages.labels",
    "GateLabel": "openodke.eval.stages.labels",
    "GoldFact": "openodke.eval.stages.labels",
    "GroundingLabel": "openodke.eval.stages.labels",
    "LinkRow": "openodke.eval.stages.labels",
    "PairLabel": "openodke.eval.stages.labels",
    "RouteLabel": "openodke.eval.stages.labels",
    "RoutePrediction": "openodke.eval.stages.labels",
    "ValidationPrediction": "openodke.eval.stages.labels",
    "describe": "openodke.eval.stages.labels",
    "evaluate_resolution": "openodke.eval.stages.resolve",
    "links_from_clusters": "openodke.eval.stages.resolve",
    "evaluate_routing": "openodke.eval.stages.route",
    "run_route": "openodke.eval.stages.route",
    "evaluate_calibration": "openodke.eval.stages.score",
    "run_score": "openodke.eval.stages.score",
    "assert_idempotent": "openodke.eval.stages.sink",
    "check_idempotency": "openodke.eval.stages.sink",
    "jsonl_counts": "openodke.eval.stages.sink",
    "evaluate_spans": "openodke.eval.stages.spans",
    "load_facts": "openodke.eval.stages.spans",
    "StageReport": "openodke.eval.stages.stage_report",
    "Interval": "openodke.eval.stats",
    "McNemar": "openodke.eval.stats",
    "Paired": "openodke.eval.stats",
    "bootstrap_interval": "openodke.eval.stats",
    "detection_limit": "openodke.eval.stats",
    "mcnemar": "openodke.eval.stats",
    "paired_bootstrap": "openodke.eval.stats",
    "CostMeter": "openodke.llm.cost",
    "CostReport": "openodke.llm.cost",
    "compare_costs": "openodke.llm.cost",
}
"""Where each public name lives."""

__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__)
