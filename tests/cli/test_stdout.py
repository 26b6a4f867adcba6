"""A reader that goes away (``odke ... | head``) never costs the files a command writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "triples"


@pytest.mark.parametrize("as_json", [False, True], ids=["tables", "json"])
def test_a_closed_stdout_still_writes_report_and_items(tmp_path: Path, as_json: bool) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line: every write is EPIPE
    command = [
        str(Path(sys.executable).with_name("odke")),
        "eval",
        "pipeline",
        "--labels",
        str(EXAMPLE / "gold.jsonl"),
        "--documents",
        str(EXAMPLE / "texts"),
        "--ontology",
        str(EXAMPLE / "ontology.json"),
        "--predictions",
        str(EXAMPLE / "triples.jsonl"),
        "--report",
        str(tmp_path / "report.json"),
        "--items",
        str(tmp_path / "items.jsonl"),
        *(["--json"] if as_json else []),
    ]
    try:
        done = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["rows"][0]["counts"]["hits"] == 10
    assert len((tmp_path / "items.jsonl").read_text().splitlines()) == 2
