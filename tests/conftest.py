"""Shared test helpers: run the real ``odke`` entry point in-process and capture its output."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from openodke.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@dataclass
class CliResult:
    """What one ``odke`` invocation did."""

    exit_code: int
    stdout: str
    stderr: str


def run_odke(*args: str) -> CliResult:
    """Run ``odke ARGS`` through the console-script entry point; never raises SystemExit."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def odke():
    """The ``run_odke`` function, as a fixture."""
    return run_odke


@pytest.fixture(autouse=True)
def _prices_stay_in_their_test():
    """Prices a test gives (``--price``, ``prices:`` in a config) are process-wide: undo them."""
    from openodke.llm.prices import using_prices

    with using_prices({}):
        yield
