"""Track-record appends under failure and contention: whole lines, each one run's own."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openodke.errors import InputError
from openodke.eval.diagnosis.track_record import (
    append_lines,
    read_track_record,
    record_prediction,
    sha256_file,
    sha256_text,
)
from tests.fuzz.seeds import pipeline_files, write


def test_a_failed_write_leaves_no_half_line(tmp_path: Path) -> None:
    # The file size limit lets the write through part way, as a nearly full disk does.
    path = tmp_path / "track-record.jsonl"
    append_lines(path, [{"kind": "x", "n": 1}])
    before = path.read_bytes()
    script = textwrap.dedent(
        f"""
        import resource, sys
        from openodke.errors import OutputError
        from openodke.eval.diagnosis.track_record import append_lines
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 40}, resource.RLIM_INFINITY))
        try:
            append_lines({str(path)!r}, [{{"kind": "x", "padding": "p" * 500}}])
        except OutputError as error:
            print("refused:", error)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.startswith("refused: cannot append to the track record"), done.stderr
    assert "nothing was appended" in done.stdout
    assert path.read_bytes() == before  # cut back to where it ended


PREDICTED = (
    '{"kind": "predicted", "report": null, "items_sha256": null, "config": null, "fixes": []}'
)


def test_a_torn_last_line_is_skipped_with_a_warning_and_the_next_append_removes_it(
    tmp_path, capsys
):
    path = tmp_path / "track-record.jsonl"
    path.write_text(PREDICTED + "\n" + PREDICTED[:40])  # killed mid-append
    assert len(read_track_record(path)) == 1
    warned = capsys.readouterr().err
    assert f"warning: {path}:2: invalid JSON" in warned and "skipped" in warned
    append_lines(path, [json.loads(PREDICTED)])
    assert f"{path}: removed a last line cut off mid-write (40 bytes" in capsys.readouterr().err
    assert path.read_text() == (PREDICTED + "\n") * 2
    assert len(read_track_record(path)) == 2
    assert capsys.readouterr().err == ""


def test_a_whole_last_line_without_its_line_end_is_kept(tmp_path, capsys):
    path = tmp_path / "track-record.jsonl"
    path.write_text(PREDICTED)
    assert len(read_track_record(path)) == 1
    append_lines(path, [json.loads(PREDICTED)])
    assert path.read_text() == (PREDICTED + "\n") * 2
    assert capsys.readouterr().err == ""


def test_a_bad_line_before_the_last_is_still_refused(tmp_path):
    path = tmp_path / "track-record.jsonl"
    path.write_text(PREDICTED[:40] + "\n" + PREDICTED)
    with pytest.raises(InputError, match=f"^{path}:1: invalid JSON"):
        read_track_record(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (f"{PREDICTED}\r{PREDICTED}\r", ":1: a carriage return inside the line"),
        (f"\ufeff\ufeff{PREDICTED}\n", ":1: two byte-order marks at the start of the file"),
    ],
)
def test_cr_only_line_ends_and_two_byte_order_marks_are_refused_with_a_location(
    tmp_path, content, message
):
    path = tmp_path / "track-record.jsonl"
    path.write_text(content, encoding="utf-8", newline="")
    with pytest.raises(InputError, match=f"^{path}{message}"):
        read_track_record(path)
    before = path.read_bytes()
    if "\r" in content:  # never appended to: its lines would be taken for one torn line
        with pytest.raises(InputError, match=f"^{path}:1: a carriage return inside the line"):
            append_lines(path, [json.loads(PREDICTED)])
        assert path.read_bytes() == before


def test_a_folder_is_not_a_track_record(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot append to the track record: Is a directory"):
        append_lines(tmp_path, [{"kind": "x"}])


def test_a_line_holds_the_hash_of_the_items_the_run_wrote(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "d1", "tp": 1, "fp": 0, "fn": 0}\n')
    assert sha256_text(items.read_text()) == sha256_file(items)
    record = tmp_path / "track-record.jsonl"
    items.write_text("another run's items\n")  # replaced by another run meanwhile
    line = record_prediction(record, fixes=[], items=items, items_sha256=sha256_text("mine\n"))
    assert line.items_sha256 == sha256_text("mine\n")


WRITER = textwrap.dedent(
    """
    import sys
    from openodke.eval.diagnosis.track_record import append_lines
    me, lines = sys.argv[1], int(sys.argv[3])
    for n in range(lines):
        append_lines(sys.argv[2], [{"kind": "x", "writer": me, "n": n, "pad": me * 3000}])
    """
)


def test_many_writers_at_once_leave_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "track-record.jsonl"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, f"w{k}", str(path), "25"])
        for k in range(10)
    ]
    assert all(w.wait(timeout=120) == 0 for w in writers)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == 10 * 25
    for row in rows:
        assert row["pad"] == row["writer"] * 3000
    for k in range(10):
        assert [r["n"] for r in rows if r["writer"] == f"w{k}"] == list(range(25))


def test_concurrent_pipeline_runs_each_record_their_own_fixes_and_items(tmp_path: Path) -> None:
    """Four runs with different predictions write the same --items, --report and track record at
    once; every line must pair a run's fixes with the hash of that same run's items."""
    write(tmp_path, pipeline_files())
    triples = [json.loads(x) for x in (tmp_path / "triples.jsonl").read_text().splitlines()]
    runs = []
    for k in range(4):
        rows = triples[: 1 + k % 3] + [dict(triples[0], object=f"City {j}") for j in range(k)]
        path = tmp_path / f"pred{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        runs.append(path)

    def args(pred: Path, out: Path) -> list[str]:
        return [
            "eval", "pipeline", "--labels", "gold.jsonl", "--documents", "docs.jsonl",
            "--predictions", pred.name, "--ontology", "ontology.json", "--trace", "odke.yaml",
            "--items", str(out / "items.jsonl"), "--report", str(out / "report.json"),
        ]  # fmt: skip

    expected = set()
    odke = [sys.executable, "-c", "import sys; from openodke.cli import entry; sys.exit(entry())"]
    for k, pred in enumerate(runs):  # each alone first: what its line must hold
        out = tmp_path / f"alone{k}"
        subprocess.run([*odke, *args(pred, out)], cwd=tmp_path, check=True, capture_output=True)
        (line,) = (out / "track-record.jsonl").read_text().splitlines()
        row = json.loads(line)
        assert row["items_sha256"] == sha256_file(out / "items.jsonl")
        expected.add((row["items_sha256"], json.dumps(row["fixes"], sort_keys=True)))
    assert len({sha for sha, _ in expected}) == len(runs)  # the runs are told apart
    shared = tmp_path / "shared"
    started = [
        subprocess.Popen([*odke, *args(pred, shared)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
        for pred in runs * 2
    ]  # fmt: skip
    for process in started:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    lines = [json.loads(x) for x in (shared / "track-record.jsonl").read_text().splitlines()]
    assert len(lines) == 2 * len(runs)
    for row in lines:
        assert (row["items_sha256"], json.dumps(row["fixes"], sort_keys=True)) in expected
