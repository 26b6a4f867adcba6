"""Colour where stdout is a terminal (warnings first, the headline row, the top fix, a verdict),
none when piped or with NO_COLOR: the text is the same either way, byte for byte."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TRIPLES = ROOT / "examples" / "triples"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PIPELINE = [
    "eval", "pipeline", "--labels", str(TRIPLES / "gold.jsonl"),
    "--documents", str(TRIPLES / "texts"), "--ontology", str(TRIPLES / "ontology.json"),
    "--predictions", str(TRIPLES / "triples.jsonl"),
]  # fmt: skip


def _odke(args: list[str], *, terminal: bool, env: dict[str, str] | None = None) -> str:
    """stdout of ``odke ARGS`` through a pseudo-terminal or a pipe (stderr apart, piped)."""
    environ = {**os.environ, "TERM": "xterm"}
    environ.pop("NO_COLOR", None)
    environ.update(env or {})
    command = [str(Path(sys.executable).parent / "odke"), *args]
    if not terminal:
        return subprocess.run(
            command, capture_output=True, text=True, env=environ, cwd=ROOT, check=True
        ).stdout
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        command, stdout=follower, stderr=subprocess.PIPE, env=environ, cwd=ROOT
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 0
    process.stderr.close()  # type: ignore[union-attr]
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.fixture(scope="module")
def piped() -> str:
    return _odke(PIPELINE, terminal=False)


def test_a_terminal_gets_colour_and_the_same_text(piped: str) -> None:
    shown = _odke(PIPELINE, terminal=True)
    assert "\x1b[" not in piped
    assert ANSI.sub("", shown) == piped
    lines = shown.splitlines()
    headline = next(line for line in lines if "pipeline  0.769" in line)
    assert headline.startswith("\x1b[1;36m")  # the headline row, bold cyan
    top_fix = next(line for line in lines if ANSI.sub("", line).startswith("  1  "))
    assert top_fix.startswith("\x1b[1;32m")  # the top fix, bold green


def test_no_color_keeps_a_terminal_plain(piped: str) -> None:
    assert _odke(PIPELINE, terminal=True, env={"NO_COLOR": "1"}) == piped


def test_compare_colours_its_verdict(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(f'{{"id": "d{i}", "tp": 2, "fp": 2, "fn": 2}}\n' for i in range(30)))
    b.write_text("".join(f'{{"id": "d{i}", "tp": 4, "fp": 0, "fn": 0}}\n' for i in range(30)))
    shown = _odke(["eval", "compare", str(a), str(b)], terminal=True)
    verdict = next(line for line in shown.splitlines() if "verdict" in line)
    assert verdict.startswith("\x1b[1;32m") and "better" in verdict
    assert ANSI.sub("", shown) == _odke(["eval", "compare", str(a), str(b)], terminal=False)
