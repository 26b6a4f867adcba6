"""Which engine runs: the C extension ``_keyhash`` when it was built, else the same code in
Python (:mod:`openodke.eval.engine.keyhash`). Light to import: ``odke --version`` says which."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["engine_line", "native"]


def native() -> ModuleType | None:
    """The compiled ``_keyhash`` module, or None where it was not built (no C compiler)."""
    try:
        return importlib.import_module("openodke.eval.engine._keyhash")
    except ImportError:
        return None


def engine_line() -> str:
    """One line saying which engine scores: what ``odke --version`` prints under the version."""
    if native() is not None:
        return "engine: compiled (the C extension openodke.eval.engine._keyhash)"
    return (
        "engine: pure Python (the C extension openodke.eval.engine._keyhash was not built, "
        "so reading large files is 1.2-1.6x slower; reinstall with a C compiler to build it)"
    )
