"""``--batch`` on the real commands, against a local server speaking the providers' batch APIs:
``odke ground``, ``odke run``, ``odke validate`` and the judges of ``odke eval pipeline``; the dry
run's price, the refusals, the exits, a kill -9 and a SIGTERM while a batch is polled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from openodke.llm.batch.state import STATE_FILE
from tests.conftest import ROOT
from tests.ground.test_cli_ground import ANSWERS, FACTS, ONTOLOGY, TEXTS, VERDICTS, read_facts
from tests.run.conftest import e2e  # noqa: F401 - a fixture, used by name
from tests.support.children import reaped, signalled

ODKE = [sys.executable, "-c", "from openodke.cli import entry; entry()"]


@pytest.fixture
def batches(batch_server, monkeypatch, tmp_path):
    """An OpenAI batch server the commands reach through OPENAI_BASE_URL; cwd is tmp_path."""
    running = batch_server("openai", ANSWERS)
    monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ODKE_BATCH_POLL", "0.02")
    monkeypatch.chdir(tmp_path)
    return running


def ground(odke, *extra: str):
    return odke(
        "ground", "--facts", str(FACTS), "--texts", str(TEXTS), "--ontology", str(ONTOLOGY), *extra
    )


def test_ground_in_a_batch_gives_the_live_verdicts_at_the_batch_price(
    odke, batches, tmp_path
) -> None:
    result = ground(odke, "--model", "openai/gpt-4o-mini", "--batch", "-o", "out", "--json")
    assert result.exit_code == 0, result.stderr
    facts = read_facts(tmp_path / "out" / "facts.jsonl")
    assert {i: row["verdict"] for i, row in facts.items()} == VERDICTS
    assert [len(b.requests) for b in batches.submissions] == [5]  # r4 is settled for free
    summary = json.loads(result.stdout)
    assert summary["calls"] == 5 and summary["cached"] == 0 and summary["failed"] == 0
    # The server counts words as tokens; at gpt-4o-mini's batch rate ($0.075 / $0.30 per M).
    answers = [r for b in batches.submissions for r in b.results]
    tokens = [r["response"]["body"]["usage"] for r in answers]
    expected = sum(u["prompt_tokens"] * 0.075 + u["completion_tokens"] * 0.30 for u in tokens) / 1e6
    assert summary["cost_usd"] == pytest.approx(expected)
    assert "requests submitted" in result.stderr and "at the batch price" in result.stderr
    use = {
        "requests": 5,
        "submitted": [batches.submissions[0].id],
        "resumed": [],
        "rounds": 1,
        "cost_usd": pytest.approx(expected),
    }
    assert summary["batch"] == use  # in the record, not only on stderr (decision 292)
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["batch"] == use
    seen = len(batches.requests)
    again = ground(odke, "--model", "openai/gpt-4o-mini", "--batch", "-o", "out2", "--json")
    assert again.exit_code == 0 and len(batches.requests) == seen
    assert json.loads(again.stdout)["cached"] == 5
    assert json.loads(again.stdout)["batch"] == {
        "requests": 0,
        "submitted": [],
        "resumed": [],
        "rounds": 0,
        "cost_usd": 0.0,
    }


def test_the_dry_run_says_the_batch_price(odke, batches) -> None:
    live = ground(odke, "--model", "openai/gpt-4o-mini", "--dry-run", "--json")
    batch = ground(odke, "--model", "openai/gpt-4o-mini", "--dry-run", "--json", "--batch")
    assert live.exit_code == batch.exit_code == 0, batch.stderr
    live_plan, batch_plan = json.loads(live.stdout), json.loads(batch.stdout)
    assert batch_plan["batch"] is True and "batch rate" in " ".join(batch_plan["notes"])
    assert batch_plan["usd"] == pytest.approx(live_plan["usd"] / 2, abs=1e-6)  # half (rounded)
    text = ground(odke, "--model", "openai/gpt-4o-mini", "--dry-run", "--batch")
    assert "priced at the provider's batch rate (--batch)" in text.stdout
    assert batches.requests == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--model", "ollama/llama3"], "ollama/llama3 has no batch API"),
        (["--model", "openai/gpt-4o-mini", "--no-cache"], "--batch needs the response cache"),
    ],
)
def test_batch_is_refused_where_it_cannot_work(odke, batches, args, said) -> None:
    result = ground(odke, *args, "--batch")
    assert result.exit_code == 2 and said in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and batches.requests == []


@pytest.mark.parametrize(
    ("fault", "code", "said"),
    [
        ("401", 1, "HTTP 401"),
        ("failed", 1, "failed: the file is bad"),
    ],
)
def test_a_batch_that_fails_exits_1_with_one_line_and_writes_nothing(
    odke, batches, tmp_path, fault, code, said
) -> None:
    batches.batch_fault = fault
    result = ground(odke, "--model", "openai/gpt-4o-mini", "--batch", "-o", "out")
    assert result.exit_code == code and said in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()
    assert not (tmp_path / ".odke-cache" / STATE_FILE).exists()


def test_a_budget_that_cannot_cover_the_batch_exits_3_before_submitting(odke, batches) -> None:
    result = ground(odke, "--model", "openai/gpt-4o-mini", "--batch", "--budget-usd", "0.00001")
    assert result.exit_code == 3 and "nothing was submitted" in result.stderr
    assert batches.requests == []


def test_item_failures_follow_the_exit_rule(odke, batches, tmp_path) -> None:
    batches.item_fault("errored", match="Kalvik")
    result = ground(odke, "--model", "openai/gpt-4o-mini", "--batch", "-o", "out")
    assert result.exit_code == 1 and "1 of 6 facts unchecked (1 HTTP error)" in result.stderr
    allowed = ground(
        odke, "--model", "openai/gpt-4o-mini", "--batch", "-o", "out2", "--allow-failures", "0.5"
    )
    assert allowed.exit_code == 0, allowed.stderr  # asked again: answered this time


RUN_CONFIG = {
    "ontology": "ontology.json",
    "inputs": [{"path": "register.csv", "tier": "authoritative"}],
    "stages": {
        "extractor": {
            "use": "pattern",
            "mappings": {"name": "legal_name", "founded": "founded", "city": "headquartered_in"},
            "subject_type": "Company",
        },
        "grounder": "llm",
        "gate": "verdict",
        "sink": {"use": "jsonl", "directory": "out"},
    },
    "batch": True,
}


@pytest.fixture
def run_folder(batch_server, tmp_path):
    from tests.run.conftest import ONTOLOGY as RUN_ONTOLOGY
    from tests.run.conftest import REGISTER

    server = batch_server("anthropic", lambda prompt: '{"verdict": "supported"}')
    (tmp_path / "ontology.json").write_text(json.dumps(RUN_ONTOLOGY))
    (tmp_path / "register.csv").write_text(REGISTER)
    config = dict(
        RUN_CONFIG,
        models={"ground": {"model": "anthropic/claude-haiku-4-5", "base_url": server.base_url}},
    )
    (tmp_path / "odke.yaml").write_text(json.dumps(config))
    return tmp_path, server


def test_run_with_batch_true_in_its_config(odke, run_folder, monkeypatch) -> None:
    folder, server = run_folder
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
    monkeypatch.setenv("ODKE_BATCH_POLL", "0.02")
    result = odke("run", str(folder / "odke.yaml"), "--json")
    assert result.exit_code == 0, result.stderr
    assert [len(b.requests) for b in server.submissions] == [6]
    use = json.loads(result.stdout)["stats"]["batch"]
    assert (use["requests"], use["submitted"], use["rounds"]) == (6, [server.submissions[0].id], 1)
    assert json.loads((folder / "out" / "manifest.json").read_text())["stats"]["batch"] == use
    facts = [json.loads(x) for x in (folder / "out" / "facts.jsonl").read_text().splitlines()]
    assert facts and {f["verdict"] for f in facts} == {"supported"}
    seen = len(server.requests)
    assert odke("run", str(folder / "odke.yaml")).exit_code == 0 and len(server.requests) == seen


@pytest.mark.parametrize(
    ("models", "batch_flag", "extra"),
    [
        ({"ground": "ollama/qwen2.5:7b"}, True, []),
        ({"ground": "ollama/qwen2.5:7b"}, False, []),  # batch: true in the config
        ({"ground": "anthropic/claude-haiku-4-5"}, True, ["--model", "ollama/llama3"]),
    ],
    ids=["--batch", "batch-true-in-config", "--model-override"],
)
def test_run_dry_run_refuses_a_model_with_no_batch_api_as_the_live_run_does(
    odke, tmp_path, monkeypatch, models, batch_flag, extra
) -> None:
    """A dry run under --batch does not price a model that has no batch API at the batch rate:
    it refuses it with the line, and the exit, of the live run (issue 20)."""
    from tests.run.conftest import ONTOLOGY as RUN_ONTOLOGY
    from tests.run.conftest import REGISTER

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
    (tmp_path / "ontology.json").write_text(json.dumps(RUN_ONTOLOGY))
    (tmp_path / "register.csv").write_text(REGISTER)
    config = {**RUN_CONFIG, "models": models, "batch": not batch_flag}
    (tmp_path / "odke.yaml").write_text(json.dumps(config))
    flags = [*extra, *(["--batch"] if batch_flag else [])]
    live = odke("run", "odke.yaml", *flags)
    for dry in (["--dry-run"], ["--dry-run", "--json"]):
        planned = odke("run", "odke.yaml", *flags, *dry)
        assert (planned.exit_code, live.exit_code) == (2, 2), planned.stdout
        assert planned.stderr == live.stderr and "has no batch API" in planned.stderr
        assert planned.stdout == "" and "batch rate" not in planned.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".odke-cache").exists()


def test_validate_with_batch(odke, batches, tmp_path) -> None:
    (tmp_path / "odke.yaml").write_text(
        json.dumps({"models": {"ground": "openai/gpt-4o-mini"}, "stages": {"grounder": "llm"}})
    )
    result = odke(
        "validate", "--facts", str(FACTS), "--texts", str(TEXTS), "--ontology", str(ONTOLOGY),
        "--config", "odke.yaml", "--batch", "-o", "out", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert len(batches.submissions) == 1 and "at the batch price" in result.stderr
    assert (tmp_path / "out").is_dir()
    use = json.loads(result.stdout)["report"]["batch"]
    assert (use["requests"], use["submitted"]) == (5, [batches.submissions[0].id])


# -- a process killed, and a signal, while a batch is polled ----------------------------------


def _env(server_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    return {
        **env,
        "PYTHONPATH": str(ROOT / "src"),
        "OPENAI_BASE_URL": server_url,
        "ANTHROPIC_BASE_URL": server_url,
        "ANTHROPIC_API_KEY": "sk-ant-local-test",  # anthropic/ asks for one; the server takes any
        "ODKE_BATCH_POLL": "0.05",
    }


MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-haiku-4-5"}


def _command(protocol: str = "openai") -> list[str]:
    return [
        *ODKE, "ground", "--facts", str(FACTS), "--texts", str(TEXTS), "--ontology", str(ONTOLOGY),
        "--model", MODELS[protocol], "--batch", "-o", "out",
    ]  # fmt: skip


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def _polled(server, times: int):
    return lambda: server.submissions and server.submissions[0].reads >= times


def test_kill_9_while_polling_then_the_rerun_collects_the_same_batch(
    batch_server, tmp_path
) -> None:
    server = batch_server("openai", ANSWERS)
    server.batch_fault = "never"
    with reaped(
        subprocess.Popen(
            _command(), cwd=tmp_path, env=_env(server.base_url), stderr=subprocess.DEVNULL
        )
    ) as child:
        assert _wait(_polled(server, 2), 60), "the batch was never polled"
        child.kill()
        child.wait(10)
    assert (tmp_path / ".odke-cache" / STATE_FILE).exists() and not (tmp_path / "out").exists()
    server.batch_fault = None
    rerun = subprocess.run(
        _command(),
        cwd=tmp_path,
        env=_env(server.base_url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert len(server.submissions) == 1 and "found from an earlier run" in rerun.stderr
    assert {
        i: r["verdict"] for i, r in read_facts(tmp_path / "out" / "facts.jsonl").items()
    } == VERDICTS
    assert not (tmp_path / ".odke-cache" / STATE_FILE).exists()
    use = json.loads((tmp_path / "out" / "summary.json").read_text())["batch"]
    assert (use["submitted"], use["resumed"]) == ([], [server.submissions[0].id])
    seen = len(server.requests)
    third = subprocess.run(
        _command(),
        cwd=tmp_path,
        env=_env(server.base_url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert third.returncode == 0 and len(server.requests) == seen


@pytest.mark.parametrize(
    ("protocol", "sig"),
    [
        ("openai", signal.SIGKILL),
        ("anthropic", signal.SIGKILL),
        ("openai", signal.SIGTERM),
    ],
)
def test_killed_while_the_create_is_unanswered_then_the_rerun_finds_the_batch(
    batch_server, tmp_path, protocol, sig
) -> None:
    """Killed after the create reached the provider and before its answer (so before the batch
    id was known): the intent written before the create is looked up in the provider's list
    (OpenAI by the intent in the batch's metadata, Anthropic by time, size and custom_ids); one
    submission, its answers used (decision 290). SIGTERM exits at once and says so."""
    server = batch_server(protocol, ANSWERS)
    server.hold_create = True
    with reaped(
        subprocess.Popen(
            _command(protocol),
            cwd=tmp_path,
            env=_env(server.base_url),
            stderr=subprocess.PIPE,
            text=True,
        )
    ) as child:
        assert server.created.wait(60), "the create never arrived"
        err, took = signalled(child, sig)
    if sig == signal.SIGTERM:
        assert child.returncode == 128 + sig and took <= 2.0, (took, err)
        assert "the create was sent and its answer not heard" in err and "Traceback" not in err
    server.hold_create = False
    server.release.set()
    state = json.loads((tmp_path / ".odke-cache" / STATE_FILE).read_text())
    assert [b["id"] for b in state["batches"]] == [None]  # the intent, not yet a batch
    rerun = subprocess.run(
        _command(protocol),
        cwd=tmp_path,
        env=_env(server.base_url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert len(server.submissions) == 1, rerun.stderr
    assert "found from an earlier run" in rerun.stderr
    assert {
        i: r["verdict"] for i, r in read_facts(tmp_path / "out" / "facts.jsonl").items()
    } == VERDICTS
    assert not (tmp_path / ".odke-cache" / STATE_FILE).exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_polling_exits_at_once_leaving_the_batch_named(
    batch_server, tmp_path, sig
) -> None:
    server = batch_server("openai", ANSWERS)
    server.batch_fault = "never"
    env = {**_env(server.base_url), "ODKE_BATCH_POLL": "5"}  # asleep between polls
    started = subprocess.Popen(_command(), cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    with reaped(started) as child:
        assert _wait(_polled(server, 1), 60), "the batch was never polled"
        time.sleep(0.2)
        err, took = signalled(child, sig)
    assert child.returncode == 128 + sig, err
    assert took <= 2.0, f"exited {took:.2f} s after the signal"
    batch_id = server.submissions[0].id
    assert f"batch {batch_id}" in err and "rerun the same command to collect it" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    assert (tmp_path / ".odke-cache" / STATE_FILE).exists()


# -- the judges of eval pipeline --------------------------------------------------------------


def test_the_judges_in_batches_give_the_live_numbers(batch_server, tmp_path, monkeypatch) -> None:
    from openodke.bench import load_bench, prepare_text2kgbench
    from tests.cli.test_eval_pipeline_judges import answers
    from tests.conftest import DATA, run_odke
    from tests.eval.pipeline.vicuna_validator import write_config, write_subset_facts
    from tests.support.llm_server import ReplayServer

    monkeypatch.setenv("ODKE_BATCH_POLL", "0.02")
    folder = tmp_path / "movie"
    prepare_text2kgbench(DATA, folder, ontology="ont_1_movie")
    facts = tmp_path / "vicuna25.jsonl"
    write_subset_facts(folder, load_bench(folder), facts)
    server = batch_server("openai", answers())
    outputs = {}
    with ReplayServer("openai", answers()) as live:
        for name, url, extra in (
            ("live", live.base_url, []),
            ("batch", server.base_url, ["--batch"]),
        ):
            local = {"model": "openai/gpt-4o-mini", "base_url": url}
            config = write_config(folder, f"odke-{name}.json", extract=local, ground=local)
            result = run_odke(
                "eval", "pipeline", "--bench", str(folder), "--predictions", str(facts),
                "--config", str(config), "--validator", "--cache", str(tmp_path / f"cache-{name}"),
                "--adjudicate", str(tmp_path / f"adjudicated-{name}.jsonl"),
                "--lenient", str(tmp_path / f"pairs-{name}.jsonl"),
                "--report", str(tmp_path / f"report-{name}.json"), *extra,
            )  # fmt: skip
            assert result.exit_code == 0, result.stderr
            outputs[name] = result
    read = lambda n: (tmp_path / n).read_text(encoding="utf-8")  # noqa: E731
    assert read("adjudicated-live.jsonl") == read("adjudicated-batch.jsonl")
    reports = [json.loads(read(f"report-{n}.json")) for n in ("live", "batch")]
    assert reports[0]["adjudication"] == reports[1]["adjudication"]
    assert reports[0]["rows"][1]["performance"] == reports[1]["rows"][1]["performance"]
    # Each distinct question once, as the live run one call at a time asks them
    # (test_eval_pipeline_judges: 165 + 2 * 152 + 2 * 25); concurrent live workers may ask a
    # repeated one twice before the cache has it, a batch holds it once.
    asked = sum(len(b.requests) for b in server.submissions)
    assert asked == 165 + 2 * 152 + 2 * 25 and len(server.submissions) >= 2
    assert "at the batch price" in outputs["batch"].stderr


# -- eval ablation --------------------------------------------------------------------------


def test_the_ablation_in_batches_gives_the_live_table(
    odke,
    batch_server,
    llm_server,
    e2e,  # noqa: F811 - the fixture imported above
    monkeypatch,
) -> None:
    from tests.support.llm_server import Answer

    monkeypatch.setenv("ODKE_BATCH_POLL", "0.02")
    monkeypatch.chdir(e2e)
    supported, contradicted = '{"verdict": "supported"}', '{"verdict": "contradicted"}'
    live = llm_server("openai", [Answer(contradicted, contains=("Mirefield",)), Answer(supported)])
    batches = batch_server("openai", lambda p: contradicted if "Mirefield" in p else supported)
    config = e2e / "odke.yaml"
    text = config.read_text(encoding="utf-8").replace("  ground: ollama/qwen2.5:3b\n", "")
    text = text.replace("    ground: recorded/ground.json\n", "")
    tables = {}
    for name, server, extra in (("live", live, []), ("batch", batches, ["--batch"])):
        ground = f"  ground: {{model: openai/gpt-4o-mini, base_url: '{server.base_url}'}}\n"
        (e2e / f"odke-{name}.yaml").write_text(text.replace("models:\n", "models:\n" + ground))
        args = ["eval", "ablation", "--config", f"odke-{name}.yaml", "--labels", "gold.jsonl"]
        result = odke(*args, *extra)
        assert result.exit_code == 0, result.stderr
        # the table and every note (the verdicts move "refusing contradicted would keep ...");
        # only the cost line differs: the batch price
        tables[name] = [x for x in result.stdout.splitlines() if "model cost:" not in x]
        if name == "batch":
            assert "at the batch price" in result.stderr
            asked = sum(len(b.requests) for b in batches.submissions)
            assert asked == 36 and len(live.requests) == 36  # one per extracted fact
            again = odke(*args, *extra)  # every answer cached: nothing submitted
            assert again.exit_code == 0
            assert sum(len(b.requests) for b in batches.submissions) == asked
    assert tables["batch"] == tables["live"]
