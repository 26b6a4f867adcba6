"""A signal does not wait for model calls in flight (issue 22 item 2, decision 152).

``odke run`` grounds eight facts against a local server that answers the four about Acme Ltd at
once and holds the four about Bolt Co open for ten minutes (the model timeout is 120 s). SIGTERM
once every request is in: the command exits 143 within 2 s, the four answers it had are in the
cache, and the rerun asks only for the four it never got.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.run.conftest import PATTERN
from tests.support.children import reaped, signalled
from tests.support.llm_server import Answer

ODKE = [sys.executable, "-c", "from openodke.cli import entry; entry()"]
ENV = {
    **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
    "PYTHONPATH": str(ROOT / "src"),
}


def config(server_url: str) -> dict:
    return {
        "ontology": "ontology.json",
        "inputs": [{"path": "register.csv", "tier": "authoritative"}],
        "models": {"ground": {"model": "openai/gpt-4o-mini", "base_url": server_url}},
        "stages": {
            "extractor": PATTERN,
            "grounder": "llm",
            "gate": "verdict",
            "sink": {"use": "jsonl", "directory": "out"},
        },
    }


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def _first_in_line() -> None:
    """Run the child ahead of the machine's other work where allowed (root, as in CI): "exits
    within 2 s" is about what odke waits for, and on a box running ten times more work than it
    has cores a process's own clean-up (a fraction of a CPU second) took 3 s of wall time."""
    with contextlib.suppress(OSError):
        os.nice(-10)


def cached(folder: Path) -> int:
    """How many answers the run's response cache holds (0 before it exists)."""
    import sqlite3

    path = folder / ".odke-cache" / "responses.sqlite"
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return int(db.execute("SELECT count(*) FROM responses").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("sig", [signal.SIGTERM])
def test_a_signal_during_hung_calls_exits_at_once_and_the_rerun_asks_only_the_rest(
    folder: Path, llm_server, sig
) -> None:
    server = llm_server("openai", [Answer('{"verdict": "supported"}')])
    server.fault("hang", match="Bolt Co", times=4, seconds=600)
    (folder / "odke.yaml").write_text(json.dumps(config(server.base_url)))
    command = [*ODKE, "run", "odke.yaml", "--max-workers", "8"]
    started = subprocess.Popen(
        command,
        cwd=folder,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_first_in_line,
    )
    with reaped(started) as child:
        assert wait_for(lambda: len(server.requests) == 8, 60), "the run never asked"
        # the four Acme answers reach the cache (waited for, not slept on: the box may be busy)
        assert wait_for(lambda: cached(folder) == 4, 60), f"{cached(folder)} answers cached"
        err, took = signalled(child, sig)
    assert child.returncode == 128 + sig, err
    assert took <= 2.0, f"exited {took:.2f} s after the signal"
    assert "Traceback" not in err and not (folder / "out").exists()

    asked_before = len(server.requests)
    again = subprocess.run(command, cwd=folder, env=ENV, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    rerun = server.requests[asked_before:]
    # only the four that never got an answer are asked again
    assert len(rerun) == 4 and all("Bolt Co" in r.raw.decode() for r in rerun)
    facts = (folder / "out" / "facts.jsonl").read_text().splitlines()
    assert len(facts) == 8


def test_a_second_signal_ends_the_process_at_once(tmp_path: Path) -> None:
    script = (
        "import time\n"
        "from openodke.cli import signals\n"
        "with signals.handled():\n"
        "    try:\n"
        "        print('ready', flush=True)  # in the try: a signal from now on is caught\n"
        "        time.sleep(30)\n"
        "    except KeyboardInterrupt:\n"
        "        print('cleaning', flush=True)\n"
        "        time.sleep(30)  # a clean-up that would take long\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    child.send_signal(signal.SIGTERM)
    assert child.stdout is not None and child.stdout.readline() == b"cleaning\n"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=10)
    assert time.monotonic() - sent < 2 and child.returncode == 130
    assert b"second signal" in err
