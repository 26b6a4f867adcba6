"""Which engine runs: an extension built from an older source is not used (the pure-Python twin
is), and ``odke --version`` says why."""

from __future__ import annotations

import sys
import types

import pytest

from openodke.eval.engine import compiled


@pytest.fixture
def stale(monkeypatch):
    """An ``_keyhash`` as an editable install keeps after the C source gained ``end_keys``."""
    module = types.ModuleType("openodke.eval.engine._keyhash")
    for name in compiled.NEEDED:
        if name != "end_keys":
            setattr(module, name, lambda *args: None)
    monkeypatch.setitem(sys.modules, "openodke.eval.engine._keyhash", module)
    return module


def test_a_stale_extension_is_not_used_and_the_version_line_says_why(stale) -> None:
    assert compiled.native() is None
    line = compiled.engine_line()
    assert line.startswith("engine: pure Python") and "older source (no end_keys)" in line


def test_a_current_extension_is_used(stale) -> None:
    stale.end_keys = lambda *args: None
    assert compiled.native() is stale
    assert compiled.engine_line().startswith("engine: compiled")
