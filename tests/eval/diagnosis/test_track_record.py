"""The track record: predicted and measured lines, two runs differing at one knob, atomic appends."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openodke.errors import InputError
from openodke.eval.compare import compare_items
from openodke.eval.diagnosis.fixes import Fix, FixRecall
from openodke.eval.diagnosis.track_record import (
    MeasuredLine,
    PredictedLine,
    append_lines,
    attach_records,
    config_diff,
    default_path,
    read_track_record,
    record_comparison,
    record_prediction,
    render_measured,
    sha256_file,
)
from openodke.eval.engine.items import read_items
from tests.conftest import run_odke

CONFIG_A = {
    "ontology": "ontology.json",
    "stages": {"extractor": {"use": "llm"}, "gate": "verdict"},
    "models": {"extract": "anthropic/claude-sonnet-5"},
}
CONFIG_B = {
    "ontology": "ontology.json",
    "stages": {"extractor": {"use": "llm", "snippet_limit": 96}, "gate": {"use": "verdict"}},
    "models": {"extract": {"model": "anthropic/claude-sonnet-5"}},
}


def fix(fix_id: str, expected: float | None, ceiling: float | None) -> Fix:
    return Fix(
        id=fix_id,
        rank=1,
        buckets=["never_offered"],
        misses=363,
        action="a",
        knob="k",
        recall=FixRecall(expected=expected, ceiling=ceiling, exact=False, basis="b"),
    )


PREDICTED = [fix("offer-relations", 0.0258, 0.2078), fix("wider-context", 0.068, 0.41)]


def items(path: Path, tp: list[int], fn: list[int]) -> Path:
    rows = [
        {"id": f"d{k}", "tp": a, "fp": 1, "fn": b}
        for k, (a, b) in enumerate(zip(tp, fn, strict=True))
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    """Run A (snippet limit unset) and run B (96): items, reports and a shared track record."""
    a = items(tmp_path / "a.items.jsonl", [1, 2, 1, 0, 3, 1, 2, 1], [4, 3, 4, 5, 2, 4, 3, 4])
    b = items(tmp_path / "b.items.jsonl", [2, 3, 2, 1, 3, 2, 3, 2], [3, 2, 3, 4, 2, 3, 2, 3])
    record = tmp_path / "record.jsonl"
    record_prediction(record, fixes=PREDICTED, report="s25/report.json", items=a, config=CONFIG_A)
    record_prediction(
        record, fixes=PREDICTED[:1], report="s96/report.json", items=b, config=CONFIG_B
    )
    return {"a": a, "b": b, "record": record}


def test_predicted_lines_hold_the_fixes_items_hash_and_config(runs) -> None:
    lines = read_track_record(runs["record"])
    assert [type(line) for line in lines] == [PredictedLine, PredictedLine]
    first = json.loads(runs["record"].read_text("utf-8").splitlines()[0])
    assert first == {
        "kind": "predicted",
        "report": "s25/report.json",
        "items_sha256": sha256_file(runs["a"]),
        "config": CONFIG_A,
        "fixes": [
            {"id": "offer-relations", "expected": 0.0258, "ceiling": 0.2078},
            {"id": "wider-context", "expected": 0.068, "ceiling": 0.41},
        ],
    }
    assert default_path("s25/report.json") == Path("s25/track-record.jsonl")


def test_config_diff_reads_bare_names_as_their_mappings() -> None:
    assert config_diff(CONFIG_A, CONFIG_B) == [{"path": "stages.extractor.snippet_limit", "b": 96}]
    assert config_diff({"a": {"x": 1}}, {"a": {"x": 2}, "b": None}) == [
        {"path": "a.x", "a": 1, "b": 2},
        {"path": "b", "b": None},
    ]


def test_two_runs_differing_at_one_knob_record_what_b_measured(runs) -> None:
    comparison = compare_items(read_items(runs["a"]), read_items(runs["b"]))
    result = record_comparison(runs["record"], runs["a"], runs["b"], comparison)
    assert result.notes == []
    (line,) = result.lines
    recall = comparison.guardrails["recall"]  # f1 decides; the fix is about recall
    assert line.fix == "offer-relations"
    assert (line.expected, line.ceiling) == (0.0258, 0.2078)
    assert line.measured.difference == recall.difference
    assert line.measured.interval == recall.interval and line.verdict == recall.verdict
    assert line.config_diff == [{"path": "stages.extractor.snippet_limit", "b": 96}]
    assert line.a["items_sha256"] == sha256_file(runs["a"])
    assert line.a["report"] == "s25/report.json" and line.b["report"] == "s96/report.json"
    # Recall A = 11 / (11 + 29), B = 18 / (18 + 22) (tp over tp + fn, by hand): +17.5 points.
    assert recall.difference == pytest.approx(18 / 40 - 11 / 40)
    low, high = recall.interval
    assert render_measured(line) == (
        f"track record: offer-relations expected +2.6 (ceiling +20.8), measured +17.5 "
        f"[{low * 100:+.1f}, {high * 100:+.1f}] {recall.verdict} "
        f"(config: stages.extractor.snippet_limit (unset) → 96)"
    )
    assert isinstance(read_track_record(runs["record"])[-1], MeasuredLine)


def test_applied_names_the_fix(runs) -> None:
    comparison = compare_items(read_items(runs["a"]), read_items(runs["b"]))
    (line,) = record_comparison(
        runs["record"], runs["a"], runs["b"], comparison, applied="wider-context"
    ).lines
    assert (line.fix, line.expected) == ("wider-context", 0.068)
    with pytest.raises(InputError, match="did you mean 'wider-context'"):
        record_comparison(runs["record"], runs["a"], runs["b"], comparison, applied="wider-contxt")
    result = record_comparison(runs["record"], runs["a"], runs["b"], comparison, applied="inverses")
    assert result.lines == [] and "predicted no gain for inverses" in result.notes[0]


@pytest.mark.parametrize(
    ("config_b", "note"),
    [
        (CONFIG_A, "same config"),
        ({**CONFIG_B, "reextract": True}, "differ beyond any one fix's knobs"),
        (None, "config is unknown"),
    ],
)
def test_nothing_recorded_when_no_fix_explains_the_change(tmp_path: Path, config_b, note) -> None:
    a = items(tmp_path / "a.jsonl", [1, 1], [1, 1])
    b = items(tmp_path / "b.jsonl", [2, 1], [0, 1])
    record = tmp_path / "record.jsonl"
    record_prediction(record, fixes=PREDICTED, items=a, config=CONFIG_A)
    record_prediction(record, fixes=[], items=b, config=config_b)
    comparison = compare_items(read_items(a), read_items(b))
    result = record_comparison(record, a, b, comparison)
    assert result.lines == [] and note in result.notes[0]
    assert len(read_track_record(record)) == 2


def test_a_run_missing_from_the_record(tmp_path: Path, runs) -> None:
    other = items(tmp_path / "c.jsonl", [0] * 8, [5] * 8)
    comparison = compare_items(read_items(other), read_items(runs["b"]))
    result = record_comparison(runs["record"], other, runs["b"], comparison)
    assert result.lines == [] and "A's items are not in the track record" in result.notes[0]
    missing = record_comparison(tmp_path / "none.jsonl", other, runs["b"], comparison)
    assert "no track record" in missing.notes[0]


def test_attach_records_gives_each_fix_its_latest_measurement(runs) -> None:
    comparison = compare_items(read_items(runs["a"]), read_items(runs["b"]))
    record_comparison(runs["record"], runs["a"], runs["b"], comparison)
    attached = attach_records(PREDICTED, runs["record"])
    assert attached[0].record is not None and attached[0].record["fix"] == "offer-relations"
    assert attached[1].record is None


def test_bad_lines_are_named(tmp_path: Path) -> None:
    path = tmp_path / "record.jsonl"
    path.write_text('{"kind": "predicted", "report": null}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"record.jsonl:1: items_sha256: missing"):
        read_track_record(path)
    path.write_text('{"kind": "guess"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="record.jsonl:1: kind: expected"):
        read_track_record(path)
    path.write_text("", encoding="utf-8")
    assert read_track_record(path) == []


WRITER = textwrap.dedent(
    """
    import sys
    from openodke.eval.diagnosis.track_record import append_lines
    name, path = sys.argv[1], sys.argv[2]
    for k in range(300):
        append_lines(path, [{"writer": name, "k": k, "pad": name * 5000},
                            {"writer": name, "k": k, "second": True}])
    """
)


def test_two_processes_appending_at_once_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "record.jsonl"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, name, str(path)]) for name in "ab"]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert len(rows) == 1200
    for name in "ab":
        mine = [r for r in rows if r["writer"] == name]
        assert [(r["k"], "second" in r) for r in mine] == [
            (k, second) for k in range(300) for second in (False, True)
        ]
    # Each call's two lines stay together: one os.write under the lock.
    for first, second in zip(rows[::2], rows[1::2], strict=True):
        assert (first["writer"], first["k"]) == (second["writer"], second["k"])


def test_append_creates_the_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "record.jsonl"
    append_lines(path, [])
    assert not path.exists()
    append_lines(path, [{"kind": "x"}])
    assert path.read_text("utf-8") == '{"kind": "x"}\n'


def test_cli_compare_appends_and_prints_the_measured_line(runs) -> None:
    result = run_odke(
        "eval", "compare", str(runs["a"]), str(runs["b"]), "--track-record", str(runs["record"])
    )
    assert result.exit_code == 0, result.stderr
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("track record:")]
    assert line.startswith("track record: offer-relations expected +2.6 (ceiling +20.8), ")
    assert line.endswith("(config: stages.extractor.snippet_limit (unset) → 96)")
    assert isinstance(read_track_record(runs["record"])[-1], MeasuredLine)


def test_cli_compare_finds_the_record_beside_the_items(runs) -> None:
    beside = runs["a"].parent / "track-record.jsonl"
    beside.write_bytes(runs["record"].read_bytes())
    result = run_odke("eval", "compare", str(runs["a"]), str(runs["b"]), "--json")
    assert result.exit_code == 0
    json.loads(result.stdout)  # stdout stays one JSON document
    assert "track record: offer-relations" in result.stderr
    assert len(read_track_record(beside)) == 3


def test_cli_compare_unknown_fix_is_exit_2(runs) -> None:
    result = run_odke(
        "eval",
        "compare",
        str(runs["a"]),
        str(runs["b"]),
        "--applied",
        "offer-relation",
        "--track-record",
        str(runs["record"]),
    )
    assert result.exit_code == 2 and "did you mean 'offer-relations'" in result.stderr
    assert len(read_track_record(runs["record"])) == 2
