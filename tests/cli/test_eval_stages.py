"""``odke eval route|ground|resolve|score|gate|validate|spans`` through the real entry point."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from openodke import (
    Entity,
    EntityLink,
    Evidence,
    Fact,
    GroundingVerdict,
    KnowledgeGraph,
    LinkKind,
    Span,
)
from openodke.sinks import JsonlSink
from tests.conftest import run_odke

TEXT = "Ada Lovelace was born in London in 1815."
ADA = {"key": "ada", "type": "Person"}


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def fact_row(ident: str, value: int, **extra) -> dict:
    return {"id": ident, "subject": ADA, "predicate": "born", "object_value": value, **extra}


@pytest.fixture
def ground_files(tmp_path):
    labels = jsonl(
        tmp_path / "ground.jsonl",
        [
            {"text": TEXT, "fact": fact_row("g1", 1815), "verdict": "supported"},
            {"text": TEXT, "fact": fact_row("g2", 1816), "verdict": "contradicted"},
        ],
    )
    predictions = jsonl(
        tmp_path / "facts.jsonl",
        [
            fact_row("g1", 1815, verdict="supported"),
            fact_row("g2", 1816, verdict="supported"),
            fact_row("g9", 1816, verdict="supported"),  # matches no label
        ],
    )
    return labels, predictions


@pytest.fixture
def stage_module(tmp_path, monkeypatch):
    """A module of stages importable as ``odke_cli_stages`` for ``--run``."""
    (tmp_path / "odke_cli_stages.py").write_text(
        "from openodke import GroundingVerdict\n"
        "class AlwaysSupported:\n"
        "    def ground(self, fact, document):\n"
        "        return fact.model_copy(update={'verdict': GroundingVerdict.supported})\n"
        "class Halves:\n"
        "    def score(self, fact):\n"
        "        return fact.model_copy(update={'confidence': 0.5})\n"
        "class AcceptAll:\n"
        "    def decide(self, fact):\n"
        "        return {'action': 'accept', 'reason': 'fine'}\n"
        "def route(text):\n"
        "    return {'action': 'skip' if 'buy' in text else 'extract', 'label': 'fact'}\n"
        "class Broken:\n"
        "    def decide(self, fact):\n"
        "        raise RuntimeError('the gate fell over')\n"
    )
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    yield "odke_cli_stages"
    sys.modules.pop("odke_cli_stages", None)


# --- each command, happy paths ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "first_line"),
    [
        ("ground", "odke eval ground"),
        ("resolve", "odke eval resolve"),
        ("score", "odke eval score"),
        ("gate", "odke eval validate"),
        ("validate", "odke eval validate"),
        ("route", "odke eval route"),
        ("spans", "odke eval spans: no labels."),
    ],
)
def test_describe_prints_the_contract(command, first_line):
    result = run_odke("eval", command, "--describe")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == first_line


def test_ground_scores_predictions_and_notes_a_stray_id(ground_files, tmp_path):
    labels, predictions = ground_files
    items = tmp_path / "out" / "g.items.jsonl"
    result = run_odke(
        "eval",
        "ground",
        "--labels",
        str(labels),
        "--predictions",
        str(predictions),
        "--items",
        str(items),
    )
    assert result.exit_code == 0, result.stderr
    assert "false_support  1" in result.stdout
    assert "predictions matching no label, ignored: 1 (g9)" in result.stdout
    assert items.read_text().splitlines() == [
        '{"id": "g1", "correct": true}',
        '{"id": "g2", "correct": false}',
    ]
    assert not [p for p in items.parent.iterdir() if p.name.endswith(".tmp")]


def test_ground_json_is_the_report_dump(ground_files):
    labels, predictions = ground_files
    result = run_odke(
        "eval", "ground", "--labels", str(labels), "--predictions", str(predictions), "--json"
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["stage"] == "ground" and data["metrics"]["accuracy"] == 0.5
    assert data["confusion"] == {"supported": {"supported": 1}, "contradicted": {"supported": 1}}


def test_ground_without_predictions_scores_the_labels_own_verdicts(ground_files):
    labels, _ = ground_files
    result = run_odke("eval", "ground", "--labels", str(labels), "--json")
    # Both label facts carry the default verdict, unchecked: both wrong.
    assert json.loads(result.stdout)["metrics"]["unchecked"] == 2


def test_ground_run_calls_the_named_grounder(ground_files, stage_module):
    labels, _ = ground_files
    result = run_odke(
        "eval",
        "ground",
        "--labels",
        str(labels),
        "--run",
        f"{stage_module}:AlwaysSupported",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["metrics"]["false_support"] == 1


def test_ground_reads_a_sink_folder_as_predictions(ground_files, tmp_path):
    labels, _ = ground_files
    facts = (
        Fact(
            id="g1",
            subject=Entity(**ADA),
            predicate="born",
            object_value=1815,
            verdict=GroundingVerdict.supported,
        ),
        Fact(
            id="g2",
            subject=Entity(**ADA),
            predicate="born",
            object_value=1816,
            verdict=GroundingVerdict.contradicted,
        ),
    )
    JsonlSink(tmp_path / "run").write(KnowledgeGraph(facts=facts))
    result = run_odke(
        "eval", "ground", "--labels", str(labels), "--predictions", str(tmp_path / "run"), "--json"
    )
    assert json.loads(result.stdout)["metrics"]["accuracy"] == 1.0


def test_resolve_takes_link_rows_or_a_sinks_links(tmp_path):
    labels = jsonl(
        tmp_path / "pairs.jsonl",
        [{"a": "a", "b": "b", "same": True}, {"a": "a", "b": "c", "same": False}],
    )
    rows = jsonl(tmp_path / "links.jsonl", [{"a": "a", "b": "b", "kind": "same_as"}])
    result = run_odke(
        "eval", "resolve", "--labels", str(labels), "--predictions", str(rows), "--json"
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["metrics"]["pairwise_f1"] == 1.0

    link = EntityLink(source_key="a", target_key="c", kind=LinkKind.similar)
    JsonlSink(tmp_path / "run").write(KnowledgeGraph(links=(link,)))
    result = run_odke(
        "eval",
        "resolve",
        "--labels",
        str(labels),
        "--predictions",
        str(tmp_path / "run"),
        "--similar-as-same",
        "--json",
    )
    metrics = json.loads(result.stdout)["metrics"]
    assert (metrics["fp"], metrics["links_similar"]) == (1, 1)


def test_score_with_predictions_and_with_run(tmp_path, stage_module):
    labels = jsonl(
        tmp_path / "calibration.jsonl",
        [{"fact": fact_row(f"c{i}", i, confidence=0.9), "true": i < 6} for i in range(10)],
    )
    result = run_odke("eval", "score", "--labels", str(labels))
    assert result.exit_code == 0
    assert "of facts scored ≥ 0.9, 60% were true (6 of 10)" in result.stdout
    predictions = jsonl(
        tmp_path / "facts.jsonl", [fact_row(f"c{i}", i, confidence=1.0) for i in range(10)]
    )
    result = run_odke(
        "eval", "score", "--labels", str(labels), "--predictions", str(predictions), "--json"
    )
    assert json.loads(result.stdout)["metrics"]["true_rate_at_threshold"] == 0.6
    result = run_odke(
        "eval", "score", "--labels", str(labels), "--run", f"{stage_module}:Halves", "--json"
    )
    assert json.loads(result.stdout)["metrics"]["mean_confidence"] == 0.5


@pytest.fixture
def gate_labels(tmp_path):
    return jsonl(
        tmp_path / "verdicts.jsonl",
        [
            {"fact": fact_row("f1", 1815), "action": "accept"},
            {"fact": fact_row("f2", 1816), "action": "refuse"},
        ],
    )


@pytest.mark.parametrize("command", ["gate", "validate"])
def test_gate_and_its_alias_validate(command, gate_labels, tmp_path):
    predictions = jsonl(
        tmp_path / "p.jsonl",
        [{"id": "f1", "action": "accept"}, {"id": "f2", "action": "accept", "reason": "x"}],
    )
    items = tmp_path / "items.jsonl"
    result = run_odke(
        "eval",
        command,
        "--labels",
        str(gate_labels),
        "--predictions",
        str(predictions),
        "--items",
        str(items),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    metrics = json.loads(result.stdout)["metrics"]
    assert (metrics["agreement"], metrics["wrongly_written"]) == (0.5, 1)
    assert [json.loads(line)["correct"] for line in items.read_text().splitlines()] == [True, False]


def test_gate_run(gate_labels, stage_module):
    result = run_odke(
        "eval", "gate", "--labels", str(gate_labels), "--run", f"{stage_module}:AcceptAll"
    )
    assert result.exit_code == 0 and "wrongly_written   1" in result.stdout


def test_a_run_stage_that_raises_exits_1(gate_labels, stage_module):
    result = run_odke(
        "eval", "gate", "--labels", str(gate_labels), "--run", f"{stage_module}:Broken"
    )
    assert result.exit_code == 1
    assert "the gate fell over" in result.stderr and "Traceback" not in result.stderr


def test_route_with_predictions_and_with_run(tmp_path, stage_module):
    labels = jsonl(
        tmp_path / "route.jsonl",
        [
            {"id": "c1", "text": TEXT, "action": "extract", "label": "fact"},
            {"id": "c2", "text": "buy now", "action": "skip", "label": "ad"},
        ],
    )
    predictions = jsonl(
        tmp_path / "p.jsonl", [{"id": "c1", "action": "skip"}, {"id": "c2", "action": "skip"}]
    )
    result = run_odke(
        "eval", "route", "--labels", str(labels), "--predictions", str(predictions), "--json"
    )
    assert json.loads(result.stdout)["metrics"]["facts_skipped"] == 1
    result = run_odke(
        "eval", "route", "--labels", str(labels), "--run", f"{stage_module}:route", "--json"
    )
    assert json.loads(result.stdout)["metrics"]["action_accuracy"] == 1.0


def test_spans_reads_a_facts_file_or_a_sink_folder(tmp_path):
    evidence = (Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=8)),)
    fact = Fact(subject=Entity(**ADA), predicate="born", object_value=1815, evidence=evidence)
    JsonlSink(tmp_path / "out").write(KnowledgeGraph(facts=(fact,)))
    for target in (tmp_path / "out", tmp_path / "out" / "facts.jsonl"):
        result = run_odke("eval", "spans", "--facts", str(target), "--json")
        assert result.exit_code == 0
        assert json.loads(result.stdout)["metrics"]["median_width"] == 8.0


def test_report_is_accepted(ground_files, tmp_path):
    labels, predictions = ground_files
    result = run_odke(
        "eval",
        "ground",
        "--labels",
        str(labels),
        "--predictions",
        str(predictions),
        "--report",
        str(tmp_path / "r.json"),
    )
    assert result.exit_code == 0


def test_context_options_must_exist_and_say_they_are_not_passed_on(ground_files, tmp_path):
    labels, predictions = ground_files
    ontology = tmp_path / "ontology.json"
    ontology.write_text("{}")
    args = ("eval", "ground", "--labels", str(labels), "--predictions", str(predictions))
    result = run_odke(*args, "--ontology", str(ontology))
    assert result.exit_code == 0 and "--ontology is checked but not passed" in result.stderr
    result = run_odke(*args, "--config", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2 and "missing.yaml: no such file or folder" in result.stderr


# --- bad input: exit 2, path:line: what is wrong, no traceback --------------------------------


GOOD = json.dumps({"text": TEXT, "fact": fact_row("g1", 1815), "verdict": "supported"})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"text": "x", "fact": \n', ":1: invalid JSON"),
        (
            GOOD.replace('"verdict"', '"colour": 1, "verdict"').encode() + b"\n",
            ":1: colour: unknown key",
        ),
        (
            GOOD.encode() + b"\n" + b'{"text": "x", "verdict": "supported"}\n',
            ":2: fact: missing required field",
        ),
        (GOOD.encode() + b"\n\n" + b'{"text": "caf\xe9"}\n', ":3: not UTF-8"),
        (b"", ": empty file"),
        (b"\n \n", ": empty file"),
        (GOOD.replace('"supported"', '"maybe"').encode() + b"\n", ":1: verdict"),
        (b"[1, 2]\n", ":1: expected a JSON object"),
    ],
)
def test_bad_label_files_exit_2_naming_the_line(tmp_path, content, message):
    path = tmp_path / "labels.jsonl"
    path.write_bytes(content)
    result = run_odke("eval", "ground", "--labels", str(path))
    assert result.exit_code == 2
    assert f"{path}{message}" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "content",
    [
        b"\xef\xbb\xbf" + GOOD.encode() + b"\n",  # byte-order mark
        GOOD.encode() + b"\r\n" + GOOD.replace("g1", "g2").encode() + b"\r\n",  # CRLF
        b"\n\n" + GOOD.encode() + b"\n\n\n",  # blank lines
        GOOD.encode(),  # no final newline
    ],
)
def test_tolerated_file_shapes_are_read(tmp_path, content):
    path = tmp_path / "labels.jsonl"
    path.write_bytes(content)
    result = run_odke("eval", "ground", "--labels", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["n"] >= 1


@pytest.mark.parametrize("command", ["ground", "resolve", "score", "gate", "validate", "route"])
def test_bad_prediction_files_exit_2(command, tmp_path, gate_labels, ground_files):
    labels = {
        "ground": ground_files[0],
        "score": jsonl(tmp_path / "c.jsonl", [{"fact": fact_row("c", 1), "true": True}]),
        "resolve": jsonl(tmp_path / "pairs.jsonl", [{"a": "a", "b": "b", "same": True}]),
        "gate": gate_labels,
        "validate": gate_labels,
        "route": jsonl(tmp_path / "r.jsonl", [{"id": "c1", "text": "t", "action": "skip"}]),
    }[command]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "nonsense": 1}\n')
    result = run_odke("eval", command, "--labels", str(labels), "--predictions", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:1: " in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("eval", "ground"), "--labels is required"),
        (("eval", "ground", "--labels", "nope.jsonl"), "nope.jsonl: no such file"),
        (("eval", "gate", "--labels", "{gate}"), "give --predictions"),
        (("eval", "route", "--labels", "{gate}"), "give --predictions"),
        (
            ("eval", "gate", "--labels", "{gate}", "--predictions", "{gate}", "--run", "m:X"),
            "not both",
        ),
        (
            ("eval", "gate", "--labels", "{gate}", "--run", "no_such_module_odke:X"),
            "no module named",
        ),
        (
            ("eval", "gate", "--labels", "{gate}", "--run", "nocolon"),
            "expected package.module:Name",
        ),
        (("eval", "resolve", "--labels", "{gate}", "--run", "m:X"), "reads its links from a file"),
        (("eval", "spans"), "--facts is required"),
        (("eval", "spans", "--facts", "{dir}"), "no facts.jsonl"),
    ],
)
def test_usage_mistakes_exit_2(args, message, gate_labels, tmp_path):
    filled = [a.format(gate=gate_labels, dir=tmp_path) for a in args]
    result = run_odke(*filled)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_items_are_refused_where_there_are_no_items(tmp_path):
    labels = jsonl(tmp_path / "c.jsonl", [{"fact": fact_row("c", 1), "true": True}])
    result = run_odke(
        "eval", "score", "--labels", str(labels), "--items", str(tmp_path / "i.jsonl")
    )
    assert result.exit_code == 2 and "--items" in result.stderr
