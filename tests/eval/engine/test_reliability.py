"""The engine under kill -9, signals and hostile lines: outputs pair up, workers never outlive."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openodke.errors import InputError
from openodke.eval.engine.fastload import load_both, load_facts
from openodke.eval.engine.items import read_items
from openodke.eval.engine.jsonl import finish_pending, write_outputs
from openodke.eval.report.io import read_report
from tests.fuzz.seeds import stage_files, write
from tests.support.children import alive, gone_soon

KILLED_BETWEEN_RENAMES = textwrap.dedent(
    """
    import os, signal, sys
    from openodke.eval.engine import jsonl
    real = os.replace
    def replace(source, target):
        real(source, target)
        if not str(target).endswith(".odke-pending"):  # the first output is in place: die
            os.kill(os.getpid(), signal.SIGKILL)
    os.replace = replace
    first, second = sys.argv[1:3]
    jsonl.write_outputs([(first, open(sys.argv[3]).read()), (second, open(sys.argv[4]).read())])
    """
)


def _killed_write(tmp_path: Path, first: Path, second: Path, texts: tuple[str, str]) -> None:
    sources = [tmp_path / "new1", tmp_path / "new2"]
    for source, text in zip(sources, texts, strict=True):
        source.write_text(text)
    done = subprocess.run(
        [sys.executable, "-c", KILLED_BETWEEN_RENAMES, str(first), str(second), *map(str, sources)]
    )
    assert done.returncode == -signal.SIGKILL


def test_kill_9_between_renames_never_leaves_a_mixed_pair(tmp_path: Path) -> None:
    report, items = tmp_path / "report.json", tmp_path / "items.jsonl"
    old_items = '{"id": "d1", "tp": 0, "fp": 0, "fn": 1}\n'
    new_items = '{"id": "d1", "tp": 1, "fp": 0, "fn": 0}\n'
    write_outputs([(report, '{"old": true}'), (items, old_items)])
    _killed_write(tmp_path, report, items, ('{"new": true}', new_items))
    # The report is the new run's, the items still the old run's, the intent left behind:
    assert report.read_text() == '{"new": true}' and items.read_text() == old_items
    assert (tmp_path / ".items.jsonl.odke-pending").exists()
    # ... and reading the items finishes the write first: the pair is the new run's.
    (row,) = read_items(items)
    assert row.tp == 1 and items.read_text() == new_items
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_the_next_write_or_a_report_read_finishes_a_killed_write(tmp_path: Path) -> None:
    items, report = tmp_path / "items.jsonl", tmp_path / "report.json"
    write_outputs([(items, "old items\n"), (report, "old report")])
    _killed_write(tmp_path, items, report, ("new items\n", "new report"))
    assert report.read_text() == "old report"
    with pytest.raises(InputError):  # "new report" is not a report, but it is read as the new one
        read_report(report)
    assert report.read_text() == "new report"
    _killed_write(tmp_path, items, report, ("newer items\n", "newer report"))
    write_outputs([(tmp_path / "other.txt", "x")])  # another path: leaves that group alone
    assert report.read_text() == "new report"
    write_outputs([(report, "newest report")])  # a write to one of the paths finishes it first
    assert (items.read_text(), report.read_text()) == ("newer items\n", "newest report")
    finish_pending(report)  # nothing pending: nothing happens


KILLED_WHILE_STAGING = textwrap.dedent(
    """
    import os, signal, sys
    from openodke.eval.engine import jsonl
    real = os.fsync
    calls = []
    def fsync(fd):
        real(fd)
        calls.append(fd)
        if len(calls) == int(sys.argv[3]):  # staged (1: the first output, 3: an intent): die
            os.kill(os.getpid(), signal.SIGKILL)
    os.fsync = fsync
    jsonl.write_outputs([(sys.argv[1], "new\\n"), (sys.argv[2], "new\\n")])
    """
)


@pytest.mark.parametrize("when", [1, 3])
def test_staging_files_a_killed_writer_left_are_removed_by_the_next_write(tmp_path, when):
    """.items.jsonl.XXXX.tmp and ..items.jsonl.odke-pending.XXXX.tmp stayed forever (issue 22)."""
    items, report = tmp_path / "items.jsonl", tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_STAGING, str(items), str(report), str(when)]
    )
    assert done.returncode == -signal.SIGKILL
    left = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert left, "the killed writer left its staging files"
    live = tmp_path / f".items.jsonl.{os.getpid()}.live.tmp"  # a live writer's: kept
    live.write_text("mine")
    write_outputs([(items, "next\n"), (report, "next\n")])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [live.name, "items.jsonl", "report.json"]
    )


def test_outputs_are_scrubbed_of_key_values(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-0123456789abcdef")
    write_outputs([(tmp_path / "r.json", '{"note": "tok-0123456789abcdef"}')])
    assert "tok-0123" not in (tmp_path / "r.json").read_text()


@pytest.fixture
def facts(tmp_path: Path) -> tuple[Path, Path]:
    write(tmp_path, stage_files())
    return tmp_path / "gold.jsonl", tmp_path / "facts.jsonl"


@pytest.mark.parametrize(
    ("qualifiers", "accepted"),
    [({"a": [[[1]]]}, True), ({"a": json.loads("[" * 120 + "]" * 120)}, False)],
)
def test_the_fast_loader_never_accepts_what_the_careful_reader_refuses(facts, qualifiers, accepted):
    _, path = facts
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1]["qualifiers"] = qualifiers
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if accepted:
        assert len(load_facts(path)) == 3
    else:
        with pytest.raises(InputError, match=f"{path}:2: nested deeper than 100"):
            load_facts(path)


def test_a_fifo_is_refused_by_the_loader_not_waited_on(facts, tmp_path: Path) -> None:
    gold, _ = facts
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a pipe"):
        load_both(gold, fifo, workers=2)


WORKERS = textwrap.dedent(
    """
    import multiprocessing, os, signal, sys, time
    from openodke.cli import signals
    from openodke.errors import Terminated
    from openodke.eval.engine.fastload import load_both
    mode = sys.argv[3]
    def meanwhile():
        print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
        if mode == "term":
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        else:
            time.sleep(30)  # the test kills this process with -9 meanwhile
    with signals.handled():
        try:
            load_both(sys.argv[1], sys.argv[2], workers=2, meanwhile=meanwhile)
        except Terminated:
            # killed workers are reaped within moments (a loaded machine may take a few)
            deadline = time.monotonic() + 5
            while multiprocessing.active_children() and time.monotonic() < deadline:
                time.sleep(0.05)
            print("left:", len(multiprocessing.active_children()), flush=True)
    """
)


def test_sigterm_while_workers_read_stops_them_all(facts) -> None:
    gold, said = facts
    done = subprocess.run(
        [sys.executable, "-c", WORKERS, str(gold), str(said), "term"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    pids_line, left = done.stdout.strip().splitlines()
    assert left == "left: 0", done.stdout + done.stderr
    pids = [int(p) for p in pids_line.split()]
    assert pids and gone_soon(pids)


def test_workers_die_with_their_parent_even_under_kill_9(facts) -> None:
    gold, said = facts
    process = subprocess.Popen(
        [sys.executable, "-c", WORKERS, str(gold), str(said), "kill"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    pids = [int(p) for p in process.stdout.readline().split()]
    assert pids and all(alive(p) for p in pids)
    process.kill()
    process.wait()
    process.stdout.close()
    assert gone_soon(pids)


PAIR_WRITER = textwrap.dedent(
    """
    import sys
    from openodke.eval.engine.jsonl import write_outputs
    me, report, items = sys.argv[1:4]
    for n in range(15):
        write_outputs([(items, f"{me} items {n}\\n" * 50), (report, f"{me} report {n}")])
    """
)


def test_concurrent_writers_of_one_pair_leave_one_runs_pair(tmp_path: Path) -> None:
    report, items = tmp_path / "report.json", tmp_path / "items.jsonl"
    writers = [
        subprocess.Popen([sys.executable, "-c", PAIR_WRITER, f"w{k}", str(report), str(items)])
        for k in range(6)
    ]
    assert all(w.wait(timeout=120) == 0 for w in writers)
    assert items.read_text().split(" ")[0] == report.read_text().split(" ")[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.jsonl", "report.json"]


FULL_DISK = textwrap.dedent(
    """
    import resource, sys
    from openodke.errors import OutputError
    from openodke.eval.engine.jsonl import write_outputs
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    try:
        write_outputs([(sys.argv[1], "new report"), (sys.argv[2], "x" * 100_000)])
    except OutputError as error:
        print("refused:", error)
    """
)


def test_a_full_disk_leaves_every_output_as_it_was(tmp_path: Path) -> None:
    report, items = tmp_path / "report.json", tmp_path / "items.jsonl"
    write_outputs([(report, "old report"), (items, "old items")])
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(report), str(items)], capture_output=True, text=True
    )
    assert done.stdout.startswith("refused: cannot write"), done.stderr
    assert (report.read_text(), items.read_text()) == ("old report", "old items")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.jsonl", "report.json"]
