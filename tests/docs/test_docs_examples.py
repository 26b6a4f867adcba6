"""Every command and Python block of the documentation runs and shows what the page shows.

Each page runs in a folder of its own that holds links to the repository's ``examples/`` and
``data/`` (so a page's paths are the ones a reader types from a clone), with this interpreter's
``odke`` first on ``PATH``; see ``blocks.py`` for how a page marks its blocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import Block, blocks, commands, missing_lines

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
_DONE = "__odke_docs_block_done__"
_FAILED = "__odke_docs_block_failed__"

_DRIVER = f"""
import json, sys, traceback
namespace = {{"__name__": "__main__"}}
for line in sys.stdin:
    code = json.loads(line)
    try:
        exec(compile(code, "<docs>", "exec"), namespace)
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        print({_FAILED!r})
    print({_DONE!r}, flush=True)
"""


def _env(sandbox: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["COLUMNS"] = "120"
    env.pop("ODKE_DEBUG", None)
    for name in list(env):  # a reader has no key set; pages never need one
        if name.endswith("_API_KEY"):
            env.pop(name)
    return env


class _Python:
    """One interpreter per page; its blocks run in order in one namespace."""

    def __init__(self, sandbox: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _DRIVER],
            cwd=sandbox,
            env=_env(sandbox),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def run(self, code: str) -> tuple[bool, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(code) + "\n")
        self.process.stdin.flush()
        out: list[str] = []
        for line in self.process.stdout:
            if line.rstrip("\n") == _DONE:
                break
            out.append(line)
        failed = bool(out) and out[-1].rstrip("\n") == _FAILED
        return not failed, "".join(out[:-1] if failed else out)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()


def _sandbox(tmp_path: Path) -> Path:
    for name in ("examples", "data", "tests"):  # tests: the adapter fixtures
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    return tmp_path


def _where(page: Path, block: Block) -> str:
    return f"{page.relative_to(ROOT)}:{block.line}"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_runs_as_shown(page: Path, tmp_path: Path) -> None:
    sandbox = _sandbox(tmp_path)
    python: _Python | None = None
    try:
        for block in blocks(page):
            if block.skip is not None:
                continue
            if block.title is not None and block.language != "console":
                target = sandbox / block.title
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.text, encoding="utf-8")
            elif block.language == "console":
                for command in commands(block.text):
                    done = subprocess.run(
                        ["bash", "-c", "set -o pipefail\n" + command.command],
                        cwd=sandbox,
                        env=_env(sandbox),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,  # one stream, in the order a terminal shows
                        text=True,
                        timeout=300,
                    )
                    output = done.stdout
                    assert done.returncode == 0, (
                        f"{_where(page, block)}: `{command.command}` exited {done.returncode}:\n"
                        f"{output[-3000:]}"
                    )
                    missing = missing_lines(command.shown, output)
                    assert not missing, (
                        f"{_where(page, block)}: `{command.command}` did not show "
                        f"{missing[0]!r}; it printed:\n{output[-3000:]}"
                    )
            elif block.language == "python":
                python = python or _Python(sandbox)
                ok, output = python.run(block.text)
                assert ok, f"{_where(page, block)}: the block raised:\n{output[-3000:]}"
                missing = missing_lines((block.shown or "").splitlines(), output)
                assert not missing, (
                    f"{_where(page, block)}: the block did not print {missing[0]!r}; "
                    f"it printed:\n{output[-3000:]}"
                )
    finally:
        if python is not None:
            python.close()


def test_every_skip_says_why_and_is_rare() -> None:
    """A skipped block is the exception (installing from PyPI), never a way to hide a failure."""
    skipped = [(page, b) for page in PAGES for b in blocks(page) if b.skip is not None]
    runnable = [b for page in PAGES for b in blocks(page) if b.language in ("console", "python")]
    assert len(skipped) <= max(3, len(runnable) // 10), [_where(page, b) for page, b in skipped]
