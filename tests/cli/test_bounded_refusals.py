"""A file of blank lines is called empty in bounded time by every reader (issue 22).

64 MB of blank lines took 80 s (and 2 GB ran past 300 s) to be refused as empty: the labels'
format sniff read them one ``readline`` at a time. Measured in the child's CPU seconds, not wall
time, so a busy machine does not fail the test: the sniff alone took 8 s of CPU before, the whole
command takes about 1.5 s now (start-up included).
"""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "triples"
BLANK = "blank.jsonl"

COMMANDS = [
    ("eval", "extract", "--labels", BLANK, "--predictions", f"{EXAMPLE}/triples.jsonl"),
    ("eval", "extract", "--labels", f"{EXAMPLE}/gold.jsonl", "--predictions", BLANK),
    ("eval", "pipeline", "--labels", BLANK, "--documents", f"{EXAMPLE}/texts",
     "--predictions", f"{EXAMPLE}/triples.jsonl"),
]  # fmt: skip


@pytest.fixture(scope="module")
def blank(tmp_path_factory):
    folder = tmp_path_factory.mktemp("blank")
    (folder / BLANK).write_bytes(b"\n" * (64 << 20))
    return folder


@pytest.mark.parametrize(
    "argv", COMMANDS, ids=["extract labels", "extract predictions", "pipeline labels"]
)
def test_64_mb_of_blank_lines_are_empty_within_seconds_of_cpu(argv, blank) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", "from openodke.cli import entry; entry()", *argv],
        cwd=blank,
        capture_output=True,
        text=True,
        timeout=300,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert done.returncode == 2, done.stderr
    assert f"{BLANK}: empty" in done.stderr
    assert cpu < 4.0, f"{cpu:.1f} s of CPU to call {BLANK} empty"
