"""``odke eval ablation``: the table, --describe, --json, and a failed document (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.run.conftest import e2e  # noqa: F401 - a fixture, used by name


def test_the_table_and_the_notes(odke, e2e: Path) -> None:  # noqa: F811
    result = odke(
        "eval", "ablation", "--config", str(e2e / "odke.yaml"), "--labels", str(e2e / "gold.jsonl")
    )
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "  extraction alone      0.889   0.889  0.889  32   4   4     36            3" in out
    assert "  + grounding           0.889   0.889  0.889  32   4   4     36           39" in out
    assert "  + corroboration       0.944   0.944  0.944  34   2   2     30           39" in out
    assert "  • refusing not_found as well would keep 19 of 32 true facts" in out
    assert not (e2e / "out").exists()


def test_json_and_describe(odke, e2e: Path) -> None:  # noqa: F811
    result = odke(
        "eval",
        "ablation",
        "--config",
        str(e2e / "odke.yaml"),
        "--labels",
        str(e2e / "gold.jsonl"),
        "--json",
    )
    data = json.loads(result.stdout)
    assert data["stage"] == "ablation" and data["breakdown"]["+ grounding"]["model_calls"] == 39
    described = odke("eval", "ablation", "--describe")
    assert described.exit_code == 0 and described.stdout.startswith("ablation: a run config")


def test_a_failed_grounding_call_exits_1_naming_each_document(odke, e2e: Path) -> None:  # noqa: F811
    recorded = e2e / "recorded" / "ground.json"
    answers = json.loads(recorded.read_text())
    kept = [a for a in answers if "Mirefield" not in a["match"] and "Pellwick" not in a["match"]]
    recorded.write_text(json.dumps(kept))
    result = odke(
        "eval", "ablation", "--config", str(e2e / "odke.yaml"), "--labels", str(e2e / "gold.jsonl")
    )
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: 4 documents failed: corpus/register.csv#L3 (a grounding call failed and left its "
        "facts unchecked); corpus/register.csv#L4 ("
    )
    assert (
        "corpus/notes/mirefield.txt" in result.stderr
        and "corpus/notes/pellwick.txt" in result.stderr
    )


def test_missing_options_exit_2(odke) -> None:
    result = odke("eval", "ablation")
    assert result.exit_code == 2 and "give --config" in result.stderr
