"""The README's shell block runs as pasted from the repository root (in a scratch copy of the
root: data/ and examples/ linked, so runs/ is written there), and its gold-key example is the
key a triples row gets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from openodke.interop import TripleRow, to_fact
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(after: str, language: str) -> str:
    start = README.index(after)
    found = re.search(rf"```{language}\n(.*?)```", README[start:], re.S)
    assert found, f"no {language} block after {after!r}"
    return found.group(1)


def test_the_shell_block_runs_as_pasted(tmp_path: Path) -> None:
    for name in ("data", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    script = _block("## From the shell", "sh")
    bin_dir = str(Path(sys.executable).parent)  # odke and python, as after `. .venv/bin/activate`
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert (tmp_path / "runs" / "vicuna" / "report.json").is_file()
    assert (tmp_path / "runs" / "triples" / "items.jsonl").read_text().splitlines() == [
        '{"id": "halden.txt", "tp": 5, "fp": 2, "fn": 2}',
        '{"id": "orvik.txt", "tp": 5, "fp": 1, "fn": 0}',
    ]
    assert "track record: appended" in ran.stderr  # --report said where


def test_the_install_block_installs_from_source() -> None:
    block = _block("## Install from source", "sh")
    assert "pip install -e ." in block and ". .venv/bin/activate" in block


def test_the_gold_key_example_is_the_key_a_row_gets() -> None:
    gold = json.loads(_block("**Gold keys.**", "json"))
    row = TripleRow(
        doc="halden",
        subject="Halden  Robotics Ltd",
        subject_type="Company",
        predicate="based_in",
        object="Tromsvik",
        object_type="City",
    )
    fact = to_fact(row)
    assert gold["fact"]["subject"]["key"] == fact.subject.key
    assert gold["fact"]["object_entity"]["key"] == fact.object_key
    lines = (ROOT / "examples" / "triples" / "gold.jsonl").read_text(encoding="utf-8")
    assert json.dumps(gold) in {json.dumps(json.loads(line)) for line in lines.splitlines()}
