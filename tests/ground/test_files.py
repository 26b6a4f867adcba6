"""``write_files``: every file or none, scrubbed, synced together (DECISIONS #289)."""

from __future__ import annotations

import errno
import os
import stat
import threading

import pytest

from openodke.errors import InputError, OutputError
from openodke.ground import files as ground_files
from openodke.ground.files import write_files


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_every_file_is_written_with_the_mode_open_gives(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value-0123456789")
    fds = _open_fds()
    files = [
        (tmp_path / "out" / "facts.jsonl", '{"a": 1}\n'),
        (tmp_path / "out" / "summary.json", "key sk-test-secret-value-0123456789\n"),
        (tmp_path / "out" / "empty.txt", ""),
    ]
    write_files(files)
    assert [p.read_text() for p, _ in files] == ['{"a": 1}\n', "key <redacted>\n", ""]
    mask = os.umask(0)
    os.umask(mask)
    assert {stat.S_IMODE(p.stat().st_mode) for p, _ in files} == {0o666 & ~mask}
    assert _leftovers(tmp_path / "out") == [] and _open_fds() == fds


def test_the_files_are_synced_at_once(tmp_path, monkeypatch):
    """All five fsyncs are in flight together: a barrier of five passes only if they are."""
    barrier = threading.Barrier(5, timeout=10)
    real = os.fsync

    def fsync(fd: int) -> None:
        barrier.wait()
        real(fd)

    monkeypatch.setattr(ground_files.os, "fsync", fsync)
    files = [(tmp_path / f"f{i}.txt", f"{i}\n") for i in range(5)]
    write_files(files)
    assert [p.read_text() for p, _ in files] == [f"{i}\n" for i in range(5)]


def test_a_failed_sync_writes_nothing_and_leaves_nothing(tmp_path, monkeypatch):
    (tmp_path / "facts.jsonl").write_text("before\n")
    real, calls = os.fsync, []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error")
        real(fd)

    monkeypatch.setattr(ground_files.os, "fsync", fsync)
    fds = _open_fds()
    with pytest.raises(OutputError, match="Input/output error"):
        write_files([(tmp_path / "facts.jsonl", "after\n"), (tmp_path / "b.json", "{}\n")])
    assert (tmp_path / "facts.jsonl").read_text() == "before\n"
    assert not (tmp_path / "b.json").exists() and _leftovers(tmp_path) == []
    assert len(calls) == 2 and _open_fds() == fds


def test_a_folder_in_place_of_a_file_is_refused_by_name(tmp_path):
    (tmp_path / "facts.jsonl").write_text("before\n")
    (tmp_path / "summary.json").mkdir()
    with pytest.raises(InputError, match="is a folder") as refused:
        write_files([(tmp_path / "facts.jsonl", "after\n"), (tmp_path / "summary.json", "{}")])
    assert refused.value.path == str(tmp_path / "summary.json")
    assert (tmp_path / "facts.jsonl").read_text() == "before\n" and _leftovers(tmp_path) == []
