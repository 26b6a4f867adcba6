"""Which engine runs: the C extension ``_keyhash`` when it was built, else the same code in
Python (:mod:`openodke.eval.engine.keyhash`). Light to import: ``odke --version`` says which."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["NEEDED", "engine_line", "native"]

NEEDED = (
    "line_starts",
    "fact_columns",
    "check_rows",
    "doc_hashes",
    "cut_lines",
    "end_keys",
    "within",
)
"""Every function the Python side calls in ``_keyhash``. An extension built from an older source
(an editable install not rebuilt after the C file changed) lacks some: it is not used at all,
rather than failing on the first call to a missing one."""


def _load() -> tuple[ModuleType | None, str]:
    try:
        module = importlib.import_module("openodke.eval.engine._keyhash")
    except ImportError:
        return None, "was not built"
    missing = [name for name in NEEDED if not hasattr(module, name)]
    if missing:
        return None, f"was built from an older source (no {', '.join(missing)})"
    return module, ""


def native() -> ModuleType | None:
    """The compiled ``_keyhash`` module, or None where it was not built (no C compiler) or was
    built from an older source than this package's."""
    return _load()[0]


def engine_line() -> str:
    """One line saying which engine scores: what ``odke --version`` prints under the version."""
    module, why = _load()
    if module is not None:
        return "engine: compiled (the C extension openodke.eval.engine._keyhash)"
    return (
        f"engine: pure Python (the C extension openodke.eval.engine._keyhash {why}, "
        "so reading large files is 1.2-1.6x slower; reinstall with a C compiler to build it)"
    )
