"""The track record's lock: fcntl where the platform has it, msvcrt on Windows, else none; the
module imports on a platform without fcntl."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import openodke._locking as locking
from openodke.eval.diagnosis.track_record import append_lines


@pytest.fixture
def reload_without(monkeypatch: pytest.MonkeyPatch):
    """Reload ``openodke._locking`` as if some of its platform modules were missing."""

    def reload(*missing: str, **present: object):
        for name in missing:
            monkeypatch.setitem(sys.modules, name, None)  # `import name` raises ImportError
        for name, module in present.items():
            monkeypatch.setitem(sys.modules, name, module)
        return importlib.reload(locking)

    yield reload
    monkeypatch.undo()
    importlib.reload(locking)


def test_this_platform_uses_flock() -> None:
    expected = "flock" if os.name == "posix" else "msvcrt"
    assert expected == locking.LOCKING


def test_without_fcntl_or_msvcrt_it_imports_and_appends(tmp_path: Path, reload_without) -> None:
    module = reload_without("fcntl", "msvcrt")
    assert module.LOCKING == "none"
    path = tmp_path / "record.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    with module.locked(fd):
        os.write(fd, b"x\n")
    os.close(fd)
    assert path.read_bytes() == b"x\n"


def test_on_windows_byte_zero_is_locked_then_unlocked(tmp_path: Path, reload_without) -> None:
    calls: list[tuple] = []
    # The msvcrt calls as Windows takes them (no msvcrt here): what was locked, where.
    msvcrt = SimpleNamespace(
        LK_LOCK=1,
        LK_UNLCK=0,
        locking=lambda fd, mode, n: calls.append((mode, n, os.lseek(fd, 0, os.SEEK_CUR))),
    )
    module = reload_without("fcntl", msvcrt=msvcrt)
    assert module.LOCKING == "msvcrt"
    path = tmp_path / "record.jsonl"
    path.write_bytes(b"first\n")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    with module.locked(fd):
        assert calls == [(1, 1, 0)]
        os.write(fd, b"second\n")  # O_APPEND: at the end, whatever the lock's seek did
    os.close(fd)
    assert calls == [(1, 1, 0), (0, 1, 0)]
    assert path.read_bytes() == b"first\nsecond\n"


def _append_many(path: str, tag: int) -> None:
    for n in range(200):
        append_lines(path, [{"tag": tag, "n": n, "pad": "x" * 500}])


def test_appends_from_two_processes_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "track-record.jsonl"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(path), t)) for t in (1, 2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    lines = path.read_text().splitlines()
    assert len(lines) == 400
    assert all(line.startswith('{"tag": ') and line.endswith('"}') for line in lines)
