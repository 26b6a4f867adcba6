"""Writing a bench set folder all at once, and the run config prepare puts in it.

The whole set is written to a temporary folder beside ``--out`` and moved into place only when
complete, so a failed or interrupted prepare leaves an earlier set untouched (surface.md,
decision 7). ``--out`` must be new, empty, or a folder an earlier prepare wrote (its
``dataset.json`` says ``"prepared_by": "odke bench prepare"``); re-preparing replaces the files
prepare owns and leaves anything else (a run's ``report.json``) where it is.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.safeio import read_json

__all__ = [
    "DEFAULT_EXTRACT_MODEL",
    "DEFAULT_GROUND_MODEL",
    "MAX_TOKENS",
    "OWNED",
    "PREPARED_BY",
    "check_max_tokens",
    "check_out",
    "dumps",
    "run_config",
    "write_tree",
]

PREPARED_BY = "odke bench prepare"
OWNED = ("docs", "competitors", "ontology.json", "gold.jsonl", "dataset.json", "odke.json")
"""The top-level entries prepare writes (and replaces on a re-prepare)."""

DEFAULT_EXTRACT_MODEL = "anthropic/claude-sonnet-5"
DEFAULT_GROUND_MODEL = "anthropic/claude-haiku-4-5-20251001"
MAX_TOKENS = 16000


def dumps(value: Any) -> str:
    """Pretty, strict JSON with a final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def run_config(
    snippet_limit: int, *, paper: bool = False, max_tokens: int | None = None
) -> dict[str, Any]:
    """The ``odke.json`` of a bench set (surface.md, Bench sets).

    The extractor is offered the whole ontology (``snippet_limit`` = its size) and parses JSON
    from text; ``--paper`` grounds against the whole document with binary verdicts and makes the
    gate refuse what grounding did not find, since the paper's claim format is defined by refusing.
    """
    check_max_tokens(max_tokens)
    grounder: dict[str, Any] = {"use": "llm"}
    gate: dict[str, Any] = {"use": "verdict"}
    if paper:
        grounder.update(context="document", verdicts="binary")
        gate.update(refuse_not_found=True, enforce=True)
    return {
        "ontology": "ontology.json",
        "inputs": [{"path": "docs", "loader": "directory"}],
        "models": {
            "extract": {"model": DEFAULT_EXTRACT_MODEL, "max_tokens": max_tokens or MAX_TOKENS},
            "ground": DEFAULT_GROUND_MODEL,
        },
        "stages": {
            "extractor": {"use": "llm", "structured": False, "snippet_limit": snippet_limit},
            "grounder": grounder,
            "corroborator": "signature",
            "scorer": "evidence",
            "gate": gate,
        },
    }


def check_max_tokens(max_tokens: int | None) -> None:
    """InputError unless ``max_tokens`` is None or lowers the default (1 to 16000)."""
    if max_tokens is not None and not 1 <= max_tokens <= MAX_TOKENS:
        raise InputError(f"--max-tokens must be between 1 and {MAX_TOKENS}, got {max_tokens}")


def _is_prepared(folder: Path) -> bool:
    try:
        info = read_json(folder / "dataset.json")
    except InputError:
        return False
    return isinstance(info, dict) and info.get("prepared_by") == PREPARED_BY


def check_out(out: Path) -> None:
    """InputError unless ``out`` is new, an empty folder or an earlier prepare's output."""
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError("--out exists and is not a folder", path=str(out))
    if any(out.iterdir()) and not _is_prepared(out):
        raise InputError(
            "--out must be new, empty or an earlier `odke bench prepare` output; "
            "this folder holds other files",
            path=str(out),
        )


def write_tree(out: Path, files: Mapping[str, str | bytes]) -> None:
    """Write ``files`` (relative path → content) as the folder ``out``, all or nothing."""
    from openodke.llm.redact import scrub_text

    check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    except PermissionError:
        raise InputError("cannot write here: permission denied", path=str(out)) from None
    try:
        for relative, content in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                with target.open("w", encoding="utf-8", newline="\n") as handle:
                    handle.write(scrub_text(content))  # no key reaches a file (#144)
        if out.exists() and not any(out.iterdir()):
            out.rmdir()
        if not out.exists():
            os.rename(staging, out)
            return
        _swap_into(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_into(staging: Path, out: Path) -> None:
    """Replace prepare's own entries in an earlier set; dataset.json, the marker, goes last."""
    names = [name for name in OWNED if name != "dataset.json"] + ["dataset.json"]
    for name in names:
        new, old = staging / name, out / name
        if old.exists():
            retired = out / f".{name}.{uuid.uuid4().hex}.old"
            os.rename(old, retired)
            if retired.is_dir():
                shutil.rmtree(retired)
            else:
                retired.unlink()
        if new.exists():
            os.rename(new, old)


def files_of(mapping: Mapping[str, Any]) -> dict[str, str]:
    """Serialise a mapping of relative path → JSON value as pretty JSON texts."""
    return {path: dumps(value) for path, value in mapping.items()}
