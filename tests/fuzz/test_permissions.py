"""A path the user may not reach is one line ``path: permission denied``, exit 2 (issue 22).

A path inside a folder without search permission raised ``PermissionError`` from a ``stat``
(``Path.exists``, ``is_dir``, ...) in eleven places, which the CLI called a bug (exit 1). Root
reads past file modes, so each run drops that power first (tests/fuzz/harness.py), as CI runs
as root: the folder's mode 000 then means what it means for any other user. Every slot: a path
argument, a folder argument, a file inside a folder argument, a file a run config names, the
output folder and the response cache folder.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.fuzz.commands import command, run_case
from tests.fuzz.harness import run_forked
from tests.fuzz.mutations import Applied, in_unsearchable_folder
from tests.fuzz.seeds import pipeline_files, write

# (command, target): one of each kind of slot (the campaign's corpus case "inside an
# unsearchable folder" meets every input of every command).
SLOTS = [
    ("eval extract", "facts.jsonl"),  # a path argument
    ("eval spans", "facts.jsonl"),
    ("eval pipeline langchain", "graph.json"),  # an adapter's input
    ("ground", "docs.jsonl"),  # documents, read as JSONL or a folder
    ("report html", "docs.jsonl"),
    ("eval pipeline folder", "texts"),  # a folder argument
    ("eval pool", "run_a"),  # a run folder
    ("label read", "sheets"),  # a folder of sheets
    ("eval pipeline --bench", "set/competitors/Vicuna-13B/facts.jsonl"),  # inside a folder arg
    ("eval refusals", "run_a/refused.jsonl"),
    ("bench prepare redocred", "data/redocred/rel_info.json"),  # inside a data folder
    ("run", "odke.yaml"),  # the run config
    ("run", "ontology.json"),  # a file the run config names
    ("run", "recorded/extract.json"),  # a recording the run config names
    ("run", "corpus/notes"),  # a folder of inputs the run config names
    ("eval ablation", "odke.yaml"),
    ("docs: eval pipeline", "track-record.jsonl"),  # the track record
]
SLOTS = list(dict.fromkeys(SLOTS))


def _denied(stderr: str, name: str) -> bool:
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    return (
        len(lines) == 1
        and name in lines[0]
        and lines[0].lower().endswith("permission denied")
        and "Traceback" not in stderr
        and "unexpectedly" not in stderr
    )


@pytest.mark.parametrize(("name", "target"), SLOTS, ids=[f"{n}|{t}" for n, t in SLOTS])
def test_an_input_in_an_unsearchable_folder_is_one_line_exit_2(name, target, fuzz_base) -> None:
    row = command(name)
    case = run_case(row, target, in_unsearchable_folder, fuzz_base)
    assert case.outcome.code == 2, case.outcome.stderr[-600:]
    assert _denied(case.outcome.stderr, os.path.basename(target)), case.outcome.stderr[-600:]
    assert case.problems == []


def _lock_output(path: Path, fmt: str, rng: random.Random) -> Applied:
    while not (path.parent / "out").is_dir():
        path = path.parent
    os.chmod(path.parent / "out", 0)
    return Applied(unprivileged=True)


# One command of each way outputs are written: eval's all-or-nothing files, a sink's folder,
# a run's sink beside its config, a bench set's folder, label sheets, a page.
WRITERS = ["eval extract", "validate", "run", "bench prepare redocred", "label make", "report html"]


@pytest.mark.parametrize("name", WRITERS)
def test_an_unsearchable_output_folder_is_one_line_exit_2(name, fuzz_base) -> None:
    row = command(name)
    case = run_case(row, next(iter(row.targets)), _lock_output, fuzz_base)
    assert case.outcome.code == 2, case.outcome.stderr[-600:]
    assert _denied(case.outcome.stderr, "out/"), case.outcome.stderr[-600:]
    assert not [p for p in case.problems if not p.startswith("refusal names no input")]


@pytest.mark.parametrize("cache", ["locked/cache", "locked/answers.sqlite"])
def test_an_unsearchable_cache_folder_is_one_line_exit_2(
    cache, fuzz_base, tmp_path, monkeypatch
) -> None:
    folder = Path(fuzz_base) / f"cache-{cache.replace('/', '-')}"
    folder.mkdir()
    write(folder, pipeline_files())
    (folder / "locked").mkdir(mode=0)
    argv = ("ground", "--facts", "triples.jsonl", "--texts", "texts", "--ontology",
            "ontology.json", "--model", "ollama/qwen2.5:3b", "--cache", cache, "-o", "out")  # fmt: skip
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # never reached: the cache opens first
    outcome = run_forked(argv, cwd=folder, tmp=tmp_path, unprivileged=os.geteuid() == 0)
    os.chmod(folder / "locked", 0o700)
    assert outcome.code == 2, outcome.stderr[-600:]
    assert _denied(outcome.stderr, cache), outcome.stderr[-600:]
