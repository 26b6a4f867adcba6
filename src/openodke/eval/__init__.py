"""The Evaluator: label formats, stage evaluators, reports and statistics."""

from openodke.eval.extract import evaluate_extraction, run_extract
from openodke.eval.jsonl import dump_jsonl, load_jsonl
from openodke.eval.labels import (
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
from openodke.eval.stage_report import StageReport

__all__ = [
    "LABEL_FORMATS",
    "CalibrationLabel",
    "GateLabel",
    "GoldFact",
    "GroundingLabel",
    "LinkRow",
    "PairLabel",
    "RouteLabel",
    "RoutePrediction",
    "StageReport",
    "ValidationPrediction",
    "describe",
    "evaluate_extraction",
    "dump_jsonl",
    "load_jsonl",
    "run_extract",
]
