"""Every symbol the spec imports is importable from where the spec imports it."""

import importlib

import pytest

SPEC_IMPORTS = {
    "openodke": [
        "Document",
        "Entity",
        "Evidence",
        "Fact",
        "GroundingVerdict",
        "KnowledgeGraph",
        "Span",
        "Polarity",
        "SourceTier",
        "SpanOrigin",
        "LinkKind",
        "Chunk",
        "EntityLink",
    ],
    "openodke.eval": [
        "GoldFact",
        "GroundingLabel",
        "PairLabel",
        "LinkRow",
        "CalibrationLabel",
        "GateLabel",
        "ValidationPrediction",
        "RouteLabel",
        "RoutePrediction",
        "StageReport",
        "LABEL_FORMATS",
        "load_jsonl",
        "dump_jsonl",
        "describe",
        "evaluate_extraction",
        "run_extract",
        "evaluate_grounding",
        "grounding_ablation",
        "run_ground",
        "evaluate_spans",
        "load_facts",
        "evaluate_resolution",
        "links_from_clusters",
        "evaluate_calibration",
        "run_score",
        "evaluate_gate",
        "run_validate",
        "evaluate_routing",
        "run_route",
        "check_idempotency",
        "assert_idempotent",
        "jsonl_counts",
        "detection_limit",
        "mcnemar",
        "paired_bootstrap",
        "compare_items",
        "bootstrap_interval",
    ],
    "openodke.eval.eval_report": ["check_report", "extraction_rows", "from_stage", "read_report"],
    "openodke.eval.diagnosis": ["Offered", "diagnose", "gold_view", "diagnosis_view"],
    "openodke.eval.fixes": ["fixes"],
    "openodke.sinks": ["JsonlSink"],
}


@pytest.mark.parametrize(("module", "names"), SPEC_IMPORTS.items())
def test_spec_names_import(module, names):
    loaded = importlib.import_module(module)
    missing = [n for n in names if not hasattr(loaded, n)]
    assert not missing


@pytest.mark.parametrize("module", ["openodke", "openodke.eval"])
def test_all_is_complete_without_repeats(module):
    loaded = importlib.import_module(module)
    assert len(set(loaded.__all__)) == len(loaded.__all__)
    assert all(hasattr(loaded, n) for n in loaded.__all__)
