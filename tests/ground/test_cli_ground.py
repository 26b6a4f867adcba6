"""``odke ground`` end to end: the real command against a local OpenAI-protocol replay server.

The fixture texts (``tests/fixtures/grounding/cli``) hold six triples, one per path through
grounding: r1 a cited sentence (supported), r2 a cited year alone (not_found: too narrow), r3 a
quote found (supported), r4 a quote not in the text (not_found for free: no call), r5 no citation
(the whole text: contradicted), r6 a predicate the ontology lacks (asked all the same: supported).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.ground.graph import rehome
from openodke.ground.job import build_grounder, read_inputs
from openodke.ground.settings import GroundSettings
from openodke.interop import DocumentIndex, to_fact
from openodke.llm import ModelRoles
from openodke.llm.budget import estimate_usd
from tests.conftest import ROOT
from tests.support.llm_server import Answer

HERE = ROOT / "tests" / "fixtures" / "grounding" / "cli"
FACTS, TEXTS, ONTOLOGY = HERE / "triples.jsonl", HERE / "texts", HERE / "ontology.json"
ANSWERS = [
    Answer('{"verdict": "supported"}', contains=("— founded by — Sofie Lund",)),
    Answer('{"verdict": "not_found"}', contains=("— founded — 2004.", "Passage:\n2004")),
    Answer('{"verdict": "supported"}', contains=("— founded — 2004.", "Passage:\nSofie Lund")),
    Answer('{"verdict": "supported"}', contains=("— employees — 320.",)),
    Answer('{"verdict": "contradicted"}', contains=("— based in — Kalvik",)),
    Answer('{"verdict": "supported"}', contains=("— makes — ferry engines",)),
]
VERDICTS = {
    "r1": "supported",
    "r2": "not_found",
    "r3": "supported",
    "r4": "not_found",
    "r5": "contradicted",
    "r6": "supported",
}


@pytest.fixture
def server(llm_server, monkeypatch, tmp_path):
    """An OpenAI-protocol server the command reaches through OPENAI_BASE_URL; cwd is tmp_path."""
    running = llm_server("openai", ANSWERS)
    monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    return running


def ground(odke, *extra: str):
    return odke(
        "ground", "--facts", str(FACTS), "--texts", str(TEXTS), "--ontology", str(ONTOLOGY), *extra
    )


def read_facts(path: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {row["id"]: row for row in rows}


def test_ground_writes_facts_and_summary(odke, server, tmp_path: Path) -> None:
    out = tmp_path / "grounded"
    result = ground(odke, "--model", "openai/judge", "--no-cache", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    facts = read_facts(out / "facts.jsonl")
    assert {i: row["verdict"] for i, row in facts.items()} == VERDICTS
    assert facts["r6"]["qualifiers"]["odke.check"] == (
        "schema: predicate 'makes' is not in the ontology"
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdicts"] == {
        "unchecked": 0,
        "supported": 3,
        "contradicted": 1,
        "not_found": 2,
    }
    assert (summary["calls"], summary["failed"], summary["cached"]) == (5, 0, 0)
    assert summary["too_narrow"]["ids"] == ["r2"]
    assert summary["too_narrow"]["examples"][0]["sentence"] == (
        "Sofie Lund founded Brenna Foods in 2004 in Kalvik."
    )
    assert summary["unsupported"]["ids"] == ["r4", "r5"]
    assert summary["claim_formats"] == {"ground.span@1": "span"}
    assert summary["calibration"] == [
        {
            "role": "ground",
            "model": "openai/judge",
            "prompt": "ground.span@1",
            "line": "UNCALIBRATED",
            "meets_bar": False,
        }
    ]
    assert len(server.requests) == 5  # r4 was settled for free
    assert "6 facts: unchecked 0, supported 3, contradicted 1, not_found 2" in result.stdout
    assert "judge: UNCALIBRATED" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["facts.jsonl", "summary.json"]


def test_json_prints_the_summary(odke, server) -> None:
    result = ground(odke, "--model", "openai/judge", "--no-cache", "--json")
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["facts"] == 6 and printed["written"] == []


def test_a_rerun_from_the_cache_makes_no_request(odke, server, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert ground(odke, "--model", "openai/judge", "--cache", str(cache)).exit_code == 0
    again = ground(odke, "--model", "openai/judge", "--cache", str(cache), "--json")
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["cached"] == 5
    assert len(server.requests) == 5


def test_dry_run_prints_the_calls_and_makes_none(odke, server) -> None:
    result = ground(odke, "--model", "openai/judge", "--no-cache", "--dry-run")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "6 facts; 5 model calls would be made to openai/judge with ground.span@1"
    assert lines[1] == "price: about unknown (unpriced), at most unknown (unpriced)"
    assert "  r1: Claim: Brenna Foods (Company) — founded by — Sofie Lund (Person)." in lines
    assert not any(line.startswith("  r4:") for line in lines)  # settled for free
    assert server.requests == []


def test_dry_run_prices_a_priced_model(odke, server) -> None:
    result = ground(odke, "--model", "openai/gpt-4o-mini", "--no-cache", "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    plan = json.loads(result.stdout)
    # The bound worked independently: the same inputs planned here, each request's estimate
    # (prompt at 4 characters a token, 256 tokens out, at gpt-4o-mini's price) summed.
    inputs = read_inputs(FACTS, TEXTS, ontology=ONTOLOGY)
    settings = GroundSettings(roles=ModelRoles.single("openai/gpt-4o-mini"))
    with build_grounder(settings, inputs.ontology) as grounder:
        index = DocumentIndex(inputs.documents)
        pairs = []
        for row in inputs.rows:
            doc = index.get(row.doc)
            pairs.append((rehome(to_fact(row, doc, inputs.ontology), doc), doc))
        planned = grounder.plan(pairs)
        spec = grounder.inner.spec
    bound = sum(estimate_usd(p.messages, spec, p.schema) for p in planned)
    assert plan["calls"] == len(planned) == 5
    assert bound > 0 and plan["max_usd"] == pytest.approx(bound, abs=1e-6)
    # Expected: the same prompts, a verdict's 6 tokens out ('{"verdict": "not_found"}', 24
    # characters at 4 a token) at gpt-4o-mini's $0.60 a million output tokens, not 256.
    assert plan["usd"] == pytest.approx(bound - 5 * (256 - 6) * 0.60 / 1e6, abs=1e-6)
    assert server.requests == []


def test_widen_from_the_config(odke, server, tmp_path: Path) -> None:
    config = tmp_path / "odke.yaml"
    config.write_text(
        "models:\n  ground: openai/judge\ncache: false\nstages:\n  grounder: {use: llm, widen: true}\n"
    )
    result = ground(odke, "--config", str(config), "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    # r2's year alone came back not_found; its sentence settled it.
    assert summary["verdicts"]["supported"] == 4 and summary["widened"] == 1
    assert summary["too_narrow"]["ids"] == ["r2"]
    assert summary["too_narrow"]["examples"][0]["verdict"] == "supported"


def test_recorded_answers_from_the_config(odke, server, tmp_path: Path) -> None:
    cassette = {
        "description": "test answers",
        "interactions": [
            {"match": {"contains": ["— employees — 320."]}, "response": {"text": "supported"}},
            {"match": {"contains": ["Claim:"]}, "response": {"text": '{"verdict": "not_found"}'}},
        ],
    }
    (tmp_path / "ground.json").write_text(json.dumps(cassette))
    config = tmp_path / "odke.yaml"
    config.write_text("models:\n  ground: openai/judge\n  replay: {ground: ground.json}\n")
    result = ground(odke, "--config", str(config), "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["verdicts"] == {
        "unchecked": 0,
        "supported": 1,
        "contradicted": 0,
        "not_found": 5,
    }
    assert server.requests == [] and not (tmp_path / ".odke-cache").exists()


def test_the_paper_format(odke, llm_server, monkeypatch, tmp_path: Path) -> None:
    running = llm_server(
        "openai",
        [
            Answer("True", contains=("<Brenna Foods, founded_by, Sofie Lund>",)),
            Answer("False", contains=("Triple: <",)),
        ],
    )
    monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
    monkeypatch.chdir(tmp_path)
    result = ground(odke, "--model", "openai/judge", "--no-cache", "--paper", "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["claim_formats"] == {"ground.paper@1": "paper"}
    assert summary["verdicts"] == {
        "unchecked": 0,
        "supported": 1,
        "contradicted": 0,
        "not_found": 5,
    }
    assert all("Document:\n" in r.body["messages"][1]["content"] for r in running.requests)


def test_every_call_failing_exits_1_and_writes_nothing(odke, server, tmp_path: Path) -> None:
    server.fault("malformed", times=50)  # not retried: every call fails at once
    out = tmp_path / "grounded"
    result = ground(odke, "--model", "openai/judge", "--no-cache", "-o", str(out))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: every model call failed (5); nothing written.")
    assert not out.exists()


def test_some_calls_failing_are_counted_written_and_exit_1(odke, server, tmp_path: Path) -> None:
    server.fault("malformed", match="— makes —")
    out = tmp_path / "grounded"
    result = ground(odke, "--model", "openai/judge", "--no-cache", "-o", str(out))
    assert result.exit_code == 1, result.stderr
    assert "1 of 6 facts unchecked (1 malformed reply)" in result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == 1 and summary["verdicts"]["unchecked"] == 1
    assert summary["failures"] == {"malformed reply": 1}
    assert read_facts(out / "facts.jsonl")["r6"]["verdict"] == "unchecked"
    assert "failed calls leave their facts unchecked (1 malformed reply)" in result.stdout


@pytest.mark.parametrize(
    ("fault", "kind"),
    [("truncated", "cut off at max_tokens"), ("refusal", "refused"), ("empty", "empty")],
)
def test_unusable_answers_are_counted_by_kind_and_allowed_by_share(
    odke, server, tmp_path: Path, fault: str, kind: str
) -> None:
    server.fault(fault, match="— makes —", times=2)
    out = tmp_path / "grounded"
    cache = tmp_path / "cache"
    args = ("--model", "openai/judge", "--cache", str(cache), "-o", str(out))
    result = ground(odke, *args)
    assert result.exit_code == 1, result.stderr
    assert f"1 of 6 facts unchecked (1 {kind})" in result.stderr
    assert "unreadable answer: ''" not in result.stdout + result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failures"] == {kind: 1}
    # a share of 1/6 allowed: exit 0; the failed fact is asked again (never cached), twice
    server.fault(fault, match="— makes —", times=2)
    before = len(server.requests)
    allowed = ground(odke, *args, "--allow-failures", "0.2")
    assert allowed.exit_code == 0, allowed.stderr
    assert len(server.requests) - before == 2


def test_a_budget_stop_exits_3_and_writes_nothing(odke, server, tmp_path: Path) -> None:
    out = tmp_path / "grounded"
    result = ground(
        odke, "--model", "openai/judge", "--no-cache", "--budget-calls", "2", "-o", str(out)
    )
    assert result.exit_code == 3, result.stderr
    assert "budget" in result.stderr and not out.exists()
    assert len(server.requests) <= 2


def test_a_missing_key_exits_2_before_any_call(odke, server, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = ground(odke, "--model", "anthropic/claude-haiku-4-5-20251001", "--no-cache")
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and server.requests == []


def test_model_provider_supplies_a_missing_prefix(odke, server) -> None:
    result = ground(odke, "--model", "judge", "--model-provider", "openai", "--no-cache", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["model"] == "openai/judge"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--adapter", "langchian"), "unknown adapter 'langchian' (did you mean 'langchain'?)"),
        (("--texts", "nowhere"), "nowhere: no such file or folder"),
    ],
)
def test_bad_input_exits_2(odke, server, args: tuple[str, ...], message: str) -> None:
    base = ["ground", "--facts", str(FACTS), "--texts", str(TEXTS), "--model", "openai/judge"]
    for flag, value in zip(args[::2], args[1::2], strict=True):
        if flag in base:
            base[base.index(flag) + 1] = value
        else:
            base += [flag, value]
    result = odke(*base)
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_bad_grounder_option_in_the_config_exits_2(odke, server, tmp_path: Path) -> None:
    config = tmp_path / "odke.yaml"
    config.write_text(
        "models:\n  ground: openai/judge\nstages:\n  grounder: {use: llm, widn: true}\n"
    )
    result = ground(odke, "--config", str(config))
    assert result.exit_code == 2
    assert "stages.grounder.widn: unknown option (did you mean 'widen'?)" in result.stderr


@pytest.mark.parametrize(("role", "said"), [("5", "a number"), ("[[]]", "a list")])
def test_a_model_role_neither_a_string_nor_a_mapping_exits_2(
    odke, server, tmp_path: Path, role: str, said: str
) -> None:
    """Found by the fuzz campaign of seed 26: dict() on the role, "this is a bug" (exit 1)."""
    config = tmp_path / "odke.yaml"
    config.write_text(f"models:\n  ground: {role}\n")
    result = ground(odke, "--config", str(config))
    assert result.exit_code == 2, result.stderr
    assert (
        f"odke.yaml: models: ground: expected a model string or a mapping (model, ...), got {said}"
        in result.stderr
    )


def test_adapter_output_is_grounded(odke, llm_server, monkeypatch, tmp_path: Path) -> None:
    adapters = ROOT / "tests" / "fixtures" / "adapters"
    running = llm_server("openai", lambda prompt: '{"verdict": "supported"}')
    monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
    monkeypatch.chdir(tmp_path)
    result = odke(
        "ground",
        "--facts",
        str(adapters / "langextract" / "annotated.jsonl"),
        "--adapter",
        "langextract",
        "--texts",
        str(adapters / "texts"),
        "--model",
        "openai/judge",
        "--no-cache",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["facts"] > 0 and summary["calls"] == len(running.requests) > 0
    # langextract's char_interval is a cited span: the model is shown that clause alone.
    assert any(
        "Passage:\nAda Brandt is the chief executive of Halden Robotics"
        in r.body["messages"][1]["content"]
        for r in running.requests
    )


def test_a_sinks_facts_are_read_as_fact_rows(odke, server, tmp_path: Path) -> None:
    first = tmp_path / "first"
    assert ground(odke, "--model", "openai/judge", "--no-cache", "-o", str(first)).exit_code == 0
    again = odke(
        "ground",
        "--facts",
        str(first / "facts.jsonl"),
        "--texts",
        str(TEXTS),
        "--model",
        "openai/judge",
        "--no-cache",
        "--json",
    )
    assert again.exit_code == 0, again.stderr
    summary = json.loads(again.stdout)
    # Fact rows keep their ids, evidence and findings: r4's free not_found is kept, not re-asked.
    assert summary["facts"] == 6 and summary["unsupported"]["ids"] == ["r4", "r5"]
    assert len(server.requests) == 2 * 5  # the second run asked the same five, not r4


def test_a_usd_budget_over_an_unpriced_model_refuses_to_start(odke, server, tmp_path) -> None:
    result = ground(odke, "--model", "openai/judge", "--no-cache", "--budget-usd", "0.05")
    assert result.exit_code == 2 and len(server.requests) == 0
    (line,) = result.stderr.strip().splitlines()
    assert "openai/judge" in line and "--price in=X,out=Y" in line


@pytest.mark.parametrize("how", ["flag", "config"])
def test_given_prices_price_the_run_and_the_budget(odke, server, tmp_path, how) -> None:
    out = tmp_path / "grounded"
    extra = ["--price", "openai/judge=in=1000,out=1000"]
    if how == "config":
        config = tmp_path / "odke.yaml"
        config.write_text("prices:\n  openai/judge: {input: 1000, output: 1000}\n")
        extra = ["--config", str(config)]
    result = ground(odke, "--model", "openai/judge", "--no-cache", "--json", "-o", str(out), *extra)
    assert result.exit_code == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    # every token at $1,000 per million: the cost is the tokens / 1,000
    assert summary["cost_usd"] == pytest.approx(summary["tokens"] / 1000)
    # a budget that lets about two calls through at that price stops the run (exit 3)
    small = ground(odke, "--model", "openai/judge", "--no-cache", "--budget-usd", "0.6", *extra)
    assert small.exit_code == 3, small.stderr


def test_a_bad_price_flag_is_one_line(odke, server) -> None:
    result = ground(odke, "--model", "openai/judge", "--price", "in=1")
    assert result.exit_code == 2 and "--price: give both in= and out=" in result.stderr
