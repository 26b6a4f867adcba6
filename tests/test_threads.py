"""odke holds BLAS to one thread in its own process, and gives the programs it runs the caller's
environment back (DECISIONS 322)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from openodke import threads


def test_one_thread_sets_what_the_caller_did_not_and_children_get_the_callers(monkeypatch):
    for name in threads.NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "8")  # the caller's own: kept, and passed on
    monkeypatch.setattr(threads, "_SET", [])
    threads.one_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert os.environ["OMP_NUM_THREADS"] == "1"
    assert os.environ["MKL_NUM_THREADS"] == "8"
    child = threads.child_environment({"EXTRA": "x"})
    assert "OPENBLAS_NUM_THREADS" not in child and "OMP_NUM_THREADS" not in child
    assert child["MKL_NUM_THREADS"] == "8" and child["EXTRA"] == "x"


PROBE = textwrap.dedent(
    """
    import contextlib, io, os, sys
    from openodke.cli import entry
    from openodke.eval.pipeline import runner
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            entry(["eval", "extract", "--describe"])
        except SystemExit:
            pass
    said = "import os, sys; open(sys.argv[1], 'w').write(os.environ.get(sys.argv[2], 'unset'))"
    runner._execute([sys.executable, "-c", said, sys.argv[1], "OPENBLAS_NUM_THREADS"], 30, None, 1)
    print(os.environ.get("OPENBLAS_NUM_THREADS"))
    """
)


def test_a_command_runs_with_one_blas_thread_and_its_pipeline_does_not(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    seen = tmp_path / "seen.txt"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(seen)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "1"  # odke's own process
    assert seen.read_text() == "unset"  # the pipeline it ran: the caller's environment
