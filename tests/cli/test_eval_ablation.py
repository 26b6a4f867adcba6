"""``odke eval ablation``: the table, --describe, --json, and a failed document (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.run.conftest import e2e  # noqa: F401 - a fixture, used by name
from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name


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


def test_the_ablation_prints_what_each_role_cost(odke, e2e: Path, llm_server) -> None:  # noqa: F811
    from tests.support.llm_server import Answer

    server = llm_server(
        "openai", [Answer('{"verdict": "supported"}', prompt_tokens=100, completion_tokens=5)]
    )
    config = e2e / "odke.yaml"
    text = config.read_text()
    text = text.replace("  ground: ollama/qwen2.5:3b\n", "")
    text = text.replace("    ground: recorded/ground.json\n", "")
    text = text.replace(
        "models:\n",
        f"models:\n  ground: {{model: openai/gpt-4o-mini, base_url: '{server.base_url}'}}\n",
    )
    config.write_text(text)
    result = odke("eval", "ablation", "--config", str(config), "--labels", str(e2e / "gold.jsonl"))
    assert result.exit_code == 0, result.stderr
    (line,) = [x for x in result.stdout.splitlines() if "model cost:" in x]
    calls = len(server.requests)
    # each grounding call 100 tokens in, 5 out at gpt-4o-mini: (100 * 0.15 + 5 * 0.60) / 1e6
    usd = calls * (100 * 0.15 + 5 * 0.60) / 1e6
    assert f"ground {calls} calls, {calls * 105:,} tokens, ${usd:.4f}" in line
    assert "extract 3 calls" in line  # recorded: no tokens, unpriced
