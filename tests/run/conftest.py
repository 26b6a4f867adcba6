"""A small run config folder to parse and run: an ontology, a CSV register, a notes folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ONTOLOGY = {
    "name": "tiny",
    "types": {"Company": {"keys": ["legal_name"]}, "City": {}, "Person": {}},
    "predicates": {
        "legal_name": {"domain": ["Company"], "range": "string"},
        "founded": {"domain": ["Company"], "range": "date"},
        "headquartered_in": {"domain": ["Company"], "range": "City"},
        "employees": {"domain": ["Company"], "range": "integer"},
        "ceo": {"domain": ["Company"], "range": "Person"},
    },
}

REGISTER = (
    "name,founded,city,employees\nAcme Ltd,2011-05-02,Kessby,180\nBolt Co,3 March 1999,Varholm,45\n"
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A config folder: ontology.json, register.csv, notes/a.txt (no config yet)."""
    (tmp_path / "ontology.json").write_text(json.dumps(ONTOLOGY), encoding="utf-8")
    (tmp_path / "register.csv").write_text(REGISTER, encoding="utf-8")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text(
        "Acme Ltd is run by Ida Brenner. It moved to Kessby in 2015.\n", encoding="utf-8"
    )
    return tmp_path


PATTERN = {
    "use": "pattern",
    "mappings": {
        "name": "legal_name",
        "founded": "founded",
        "city": "headquartered_in",
        "employees": "employees",
    },
    "subject_type": "Company",
}


def write_config(folder: Path, text: str, name: str = "odke.yaml") -> Path:
    """Write a config file into ``folder``."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


E2E = Path(__file__).resolve().parents[2] / "examples" / "e2e"


@pytest.fixture
def e2e(tmp_path: Path) -> Path:
    """A copy of examples/e2e (its runs write out/ beside the config)."""
    import shutil

    target = tmp_path / "e2e"
    shutil.copytree(E2E, target, ignore=shutil.ignore_patterns("out", ".odke-cache", "__pycache__"))
    return target


from tests.support.llm_server import llm_server  # noqa: E402, F401 - a fixture, used by name
