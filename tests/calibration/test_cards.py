"""Calibration cards: the model, loading, lookup by judge, the bar and the card line (#54).

The cards under ``cards/`` are test fixtures: made-up numbers for made-up measurements, never
shipped. The Wilson intervals in them are rounded to two decimals like the spec's example.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.calibration import (
    UNCALIBRATED,
    CalibrationCard,
    calibration_entry,
    card_line,
    find_card,
    load_cards,
    meets_bar,
    package_cards,
    read_cards,
)
from openodke.errors import InputError

HERE = Path(__file__).parent / "cards"
SPEC_CARD = {
    "judge": {"model": "ollama/qwen2.5:7b", "prompt": "ground.span@1"},
    "label_set": "G",
    "split": "gate",
    "n": 400,
    "agreement": {"value": 0.93, "low": 0.90, "high": 0.95},
    "kappa": 0.84,
    "measured_at": "2025-06-01T00:00:00Z",
}


def card(**changes: object) -> CalibrationCard:
    data = json.loads(json.dumps(SPEC_CARD))
    for key, value in changes.items():
        if key in ("low", "value", "high"):
            data["agreement"][key] = value
        else:
            data[key] = value
    return CalibrationCard.model_validate(data)


def test_the_spec_card_line_exactly() -> None:
    assert card_line(card()) == (
        "ground.span@1 on ollama/qwen2.5:7b: agreement 0.93 [0.90, 0.95] (Wilson 95%), "
        "kappa 0.84, n 400, G/gate, 2025-06-01"
    )
    assert card_line(None) == UNCALIBRATED == "UNCALIBRATED"
    assert "kappa —" in card_line(card(kappa=None))


def test_a_card_round_trips_as_the_spec_writes_it() -> None:
    assert json.loads(card().model_dump_json()) == {
        **SPEC_CARD,
        "agreement": {"value": 0.93, "low": 0.9, "high": 0.95},
    }


@pytest.mark.parametrize(
    ("changes", "meets"),
    [
        ({}, True),
        ({"n": 100}, True),
        ({"n": 99}, False),
        ({"low": 0.899, "value": 0.92}, False),
        ({"low": 0.90, "value": 0.90}, True),
    ],
)
def test_the_bar_is_n_100_and_agreement_low_090(changes: dict[str, object], meets: bool) -> None:
    assert meets_bar(card(**changes)) is meets


def test_no_card_is_below_the_bar() -> None:
    assert meets_bar(None) is False


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"label_set": "X"}, "label_set"),
        ({"split": "test"}, "split"),
        ({"n": 0}, "n"),
        ({"low": 0.96}, "agreement"),
        ({"measured_at": "2025-06-01T00:00:00"}, "measured_at"),  # no time zone
        ({"judge": {"model": "m", "prompt": "ground.span"}}, "judge.prompt"),  # no @version
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_cards_name_the_file_and_field(
    tmp_path: Path, changes: dict[str, object], problem: str
) -> None:
    data = json.loads(json.dumps(SPEC_CARD))
    for key, value in changes.items():
        if key == "low":
            data["agreement"]["low"] = value
        else:
            data[key] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_cards(path)
    assert str(error.value).startswith(f"{path}: {problem}")


def test_not_json_and_missing_paths_are_input_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{\n  nope", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{broken}:2: not a JSON calibration card"):
        read_cards(broken)
    with pytest.raises(InputError, match="no such calibration card"):
        read_cards(tmp_path / "absent.json")


def test_a_folder_reads_every_json_file_in_name_order() -> None:
    cards = read_cards(HERE)
    assert [(c.judge.model, c.split) for c in cards] == [
        ("ollama/qwen2.5:7b", "dev"),
        ("ollama/qwen2.5:3b", "gate"),
        ("ollama/qwen2.5:7b", "gate"),
    ]


def test_the_latest_measured_card_of_the_exact_judge_counts() -> None:
    cards = load_cards([HERE])
    found = find_card(cards, "ollama/qwen2.5:7b", "ground.span@1")
    assert found is not None and found.split == "gate" and meets_bar(found)
    assert find_card(cards, "ollama/qwen2.5:7b", "ground.paper@1") is None
    assert find_card(cards, "qwen2.5:7b", "ground.span@1") is None  # exact model string
    small = find_card(cards, "ollama/qwen2.5:3b", "ground.span@1")
    assert small is not None and not meets_bar(small)  # n 99


def test_the_report_entry_per_judge() -> None:
    cards = load_cards([HERE / "qwen-7b-span.json"])
    assert calibration_entry("ground", "ollama/qwen2.5:7b", "ground.span@1", cards) == {
        "role": "ground",
        "model": "ollama/qwen2.5:7b",
        "prompt": "ground.span@1",
        "line": card_line(card()),
        "meets_bar": True,
    }
    assert (
        calibration_entry("ground", "anthropic/x", "ground.span@1", cards)["line"] == UNCALIBRATED
    )


def test_no_card_ships_for_a_model_we_have_not_measured() -> None:
    assert package_cards() == []
    assert load_cards() == []
