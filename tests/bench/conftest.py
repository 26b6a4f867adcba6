"""Prepared bench sets shared by the bench tests (made once per session from data/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import BenchSet, load_bench, prepare_redocred, prepare_text2kgbench
from tests.conftest import DATA

TEKGEN = DATA / "text2kgbench" / "wikidata_tekgen"


def read_json(path: Path) -> Any:
    """A JSON file's value."""
    return json.loads(path.read_text(encoding="utf-8"))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """A JSONL file's rows."""
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


@pytest.fixture(scope="session")
def redocred_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``odke bench prepare redocred data --split test --limit 50`` (the spec's runs/cmp/redocred)."""
    out = tmp_path_factory.mktemp("bench") / "redocred"
    prepare_redocred(DATA, out, split="test", limit=50)
    return out


@pytest.fixture(scope="session")
def movie_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``odke bench prepare text2kgbench data --ontology ont_1_movie`` (the spec's runs/movie)."""
    out = tmp_path_factory.mktemp("bench") / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    return out


@pytest.fixture(scope="session")
def redocred_bench(redocred_dir: Path) -> BenchSet:
    """The Re-DocRED set, loaded."""
    return load_bench(redocred_dir)


@pytest.fixture(scope="session")
def movie_bench(movie_dir: Path) -> BenchSet:
    """The movie set, loaded."""
    return load_bench(movie_dir)


@pytest.fixture(scope="session")
def redocred_test() -> list[dict[str, Any]]:
    """data/redocred/test_revised.json, raw."""
    return read_json(DATA / "redocred" / "test_revised.json")
