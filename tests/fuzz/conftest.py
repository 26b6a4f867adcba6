"""A base folder every fuzz case of a session lives under (readable by an unprivileged run)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def fuzz_base() -> Iterator[Path]:
    """Where cases are written: a fresh folder, removed at the end of the session."""
    base = Path(tempfile.mkdtemp(prefix="odke-fuzz-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)
