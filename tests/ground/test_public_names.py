"""The grounding, gate and calibration packages export what the spec and the lead import."""

from __future__ import annotations

import importlib

import pytest

NAMES = {
    "openodke.ground": ["LLMGrounder", "CheckedGrounder", "ground_graph", "span_check", "PROMPTS"],
    "openodke.gate": ["VerdictGate", "REFUSED_FILE", "write_refused", "read_refused"],
    "openodke.calibration": [
        "CalibrationCard",
        "UNCALIBRATED",
        "card_line",
        "find_card",
        "load_cards",
        "meets_bar",
        "calibration_entry",
    ],
}


@pytest.mark.parametrize(("module", "names"), NAMES.items())
def test_names_import_and_all_is_complete(module: str, names: list[str]) -> None:
    loaded = importlib.import_module(module)
    assert [n for n in names if n not in loaded.__all__] == []
    assert len(set(loaded.__all__)) == len(loaded.__all__)
    assert all(hasattr(loaded, n) for n in loaded.__all__)
