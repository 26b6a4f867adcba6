"""Headless Chromium for the HTML report tests: Debian's ``chromium`` driven by playwright.

Without chromium (or playwright) the browser tests skip, saying why, unless
``ODKE_REQUIRE_BROWSER=1`` (set by ``.ci/run``): then they fail. Screenshots are kept under
``test-artifacts/html/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHROMIUM = os.environ.get("ODKE_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "test-artifacts" / "html"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return f"no chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """A headless Chromium browser, launched once per test process."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("ODKE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ODKE_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(f"browser test skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def artifacts() -> Path:
    """Where screenshots are kept (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
