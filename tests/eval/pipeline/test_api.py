"""One Python call per command: ``evaluate_pipeline`` returns the report ``odke eval pipeline
--json`` prints, and ``compare_runs`` the block ``odke eval compare --json`` prints, on the bundled
benchmark sets (prepared from data/ as ``make demo`` does) and the examples."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from openodke.errors import InputError
from openodke.eval import compare_runs, evaluate_pipeline
from tests.bench.conftest import movie_dir, redocred_dir  # noqa: F401 - fixtures, used by name
from tests.conftest import ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"
BASELINE = ROOT / "examples" / "baseline" / "pipeline.py"


def _cli(*args: str) -> dict[str, Any]:
    ran = run_odke(*args, "--json")
    assert ran.exit_code == 0, ran.stderr
    return json.loads(ran.stdout)


def _timeless(report: dict[str, Any]) -> dict[str, Any]:
    """A report less the wall time a command took: the one number two runs do not share."""
    for row in report["rows"]:
        row["latency"]["seconds"] = None
    return report


def _labels(**extra: str) -> dict[str, str]:
    return {
        "labels": str(TRIPLES / "gold.jsonl"),
        "documents": str(TRIPLES / "texts"),
        "ontology": str(TRIPLES / "ontology.json"),
        **extra,
    }


def _flags(kwargs: dict[str, str]) -> list[str]:
    return [word for key, value in kwargs.items() for word in (f"--{key}", value)]


@pytest.mark.parametrize(
    "source",
    [
        {"cmd": f"python {TRIPLES / 'pipeline.py'} {{in}} {{out}}"},
        {"run": f"{TRIPLES / 'pipeline.py'}:run"},
        {"predictions": str(TRIPLES / "triples.jsonl")},
        {"predictions": str(TRIPLES / "triples.jsonl"), "match": "names"},
    ],
    ids=["cmd", "run", "predictions", "names"],
)
def test_the_example_equals_the_cli(source: dict[str, str]) -> None:
    kwargs = _labels(**source)
    cli = _cli("eval", "pipeline", *_flags(kwargs))
    report = evaluate_pipeline(**kwargs).model_dump(mode="json")
    assert _timeless(report) == _timeless(cli)
    if "match" not in source:  # the example's F1 (README), whichever way it is given
        assert round(report["rows"][0]["performance"]["f1"]["value"], 3) == 0.8
    assert report["diagnosis"] and report["fixes"] and report["notes"]


def test_a_function_itself_runs_as_its_spec_does() -> None:
    spec = importlib.util.spec_from_file_location("triples_pipeline", TRIPLES / "pipeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    by_function = evaluate_pipeline(**_labels(), run=module.run)
    by_spec = evaluate_pipeline(**_labels(), run=f"{TRIPLES / 'pipeline.py'}:run")
    assert by_function.rows == by_spec.rows and by_function.diagnosis == by_spec.diagnosis
    assert by_function.run.inputs["run"] == "run"


def test_a_type_map_as_a_dict_or_a_file(tmp_path: Path) -> None:
    mapping = {"Organization": "Company"}
    (tmp_path / "types.json").write_text(json.dumps(mapping))
    kwargs = _labels(predictions=str(TRIPLES / "triples.jsonl"))
    from_file = evaluate_pipeline(**kwargs, type_map=tmp_path / "types.json")
    cli = _cli("eval", "pipeline", *_flags(kwargs), "--type-map", str(tmp_path / "types.json"))
    assert from_file.model_dump(mode="json") == cli
    assert evaluate_pipeline(**kwargs, type_map=mapping) == from_file


@pytest.mark.parametrize("system", ["Vicuna-13B", "Alpaca-LoRA-13B"])
def test_the_movie_bench_set_equals_the_cli(movie_dir: Path, system: str) -> None:  # noqa: F811
    kwargs = {
        "bench": str(movie_dir),
        "predictions": str(movie_dir / "competitors" / system / "responses.jsonl"),
        "trace": str(movie_dir / "odke.json"),
    }
    cli = _cli("eval", "pipeline", *_flags(kwargs))
    report = evaluate_pipeline(**kwargs)
    assert report.model_dump(mode="json") == cli
    assert [row.name for row in report.rows] == ["pipeline", "official"]


def test_the_redocred_baseline_command_equals_the_cli(redocred_dir: Path) -> None:  # noqa: F811
    kwargs = {
        "bench": str(redocred_dir),
        "cmd": f"python {BASELINE} {{in}} {{out}}",
        "trace": str(redocred_dir / "odke.json"),
    }
    cli = _cli("eval", "pipeline", *_flags(kwargs))
    report = evaluate_pipeline(**kwargs).model_dump(mode="json")
    assert _timeless(report) == _timeless(cli)
    assert sum(d["count"] or 0 for d in report["diagnosis"] if d["side"] == "recall") > 0


def test_compare_runs_equals_the_cli(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(f'{{"id": "d{i}", "tp": {i % 4}, "fp": 1, "fn": 2}}\n' for i in range(30)))
    b.write_text("".join(f'{{"id": "d{i}", "tp": {i % 5}, "fp": 1, "fn": 1}}\n' for i in range(30)))
    cli = _cli("eval", "compare", str(a), str(b), "--metric", "recall", "--seed", "3")
    assert compare_runs(a, b, metric="recall", seed=3).model_dump(mode="json") == cli
    from openodke.eval import read_items

    rows = compare_runs(read_items(a), read_items(b), metric="recall", seed=3)
    assert (rows.a, rows.b) == ("A", "B") and rows.primary == compare_runs(
        a, b, metric="recall", seed=3
    ).primary


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "give exactly one of --cmd, --run or --predictions"),
        ({"predictions": "x.jsonl"}, "score against --labels with --documents, or a --bench set"),
        ({"predictions": "x.jsonl", "match": "fuzzy"}, "match"),
        ({"cmd": "true", "timeout": 0.0, **_labels()}, "--timeout must be a number of seconds"),
    ],
)
def test_bad_arguments_raise_input_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        evaluate_pipeline(**kwargs)
