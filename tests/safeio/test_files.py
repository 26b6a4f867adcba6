"""openodke.safeio.files: regular files only, bounded reads, linear line splitting, safe walks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openodke.errors import InputError
from openodke.safeio import first_line, iter_lines, read_bytes, read_text, walk_files
from openodke.safeio.files import name_problem
from tests.fuzz.mutations import sparse_line


def lines(path: Path, **kwargs) -> list[tuple[int, bytes]]:
    return list(iter_lines(path, **kwargs))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: os.symlink("/dev/zero", p), "is a device, not a regular file"),
        (lambda p: os.mkfifo(p), "is a pipe (FIFO), not a regular file"),
        (lambda p: p.mkdir(), "is a folder, expected"),
        (lambda p: None, "no such file"),
        (
            lambda p: (os.symlink(p.name + "2", p), os.symlink(p.name, str(p) + "2")),
            "a symlink loop",
        ),
    ],
    ids=["dev-zero", "fifo", "folder", "missing", "symlink-loop"],
)
def test_only_regular_files_are_opened_and_none_blocks(tmp_path, make, message):
    path = tmp_path / "input.jsonl"
    make(path)
    started = time.monotonic()
    for read in (read_bytes, read_text, lines):
        with pytest.raises(InputError, match=f"^{re.escape(f'{path}: {message}')}"):
            read(path)
    assert time.monotonic() - started < 2  # a FIFO with no writer is refused, not waited on


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files with mode 000")
def test_an_unreadable_file_is_named(tmp_path):
    path = tmp_path / "secret.json"
    path.write_text("{}")
    path.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        read_bytes(path)


def test_lines_are_numbered_blank_lines_skipped_bom_and_crlf_dropped(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\n  \n{"b": 2}\n{"c": 3}')
    assert lines(path) == [(1, b'{"a": 1}'), (4, b'{"b": 2}'), (5, b'{"c": 3}')]


def test_lines_across_block_boundaries_are_whole(tmp_path, monkeypatch):
    monkeypatch.setattr("openodke.safeio.files.BLOCK", 7)
    path = tmp_path / "rows.jsonl"
    rows = [b"x" * n for n in (1, 6, 7, 8, 20, 3)]
    path.write_bytes(b"\n".join(rows))
    assert lines(path) == list(enumerate(rows, start=1))


def test_a_line_past_the_limit_is_refused_with_its_number(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"short\n" + b"y" * 5000 + b"\nshort\n")
    with pytest.raises(InputError, match=rf"^{path}:2: line longer than 4,096 bytes"):
        lines(path, limit=4096)
    path.write_bytes(b"short\n" + b"y" * 5000)  # the last line, with no line end
    with pytest.raises(InputError, match=rf"^{path}:2: line longer"):
        lines(path, limit=4096)


def test_a_file_past_the_whole_file_limit_is_refused_unread(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * 2000 + b"]")
    with pytest.raises(InputError, match=r"is 2,002 bytes; a file read whole may hold 1,000"):
        read_bytes(path, limit=1000)


def test_utf8_errors_name_line_and_column(tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes(b"fine\nbad \xff here\n")
    with pytest.raises(InputError, match=rf"^{path}:2: not UTF-8 \(byte 0xff at column 5\)"):
        read_text(path)


_GIGABYTE_LINE = """
import sys, time
from openodke.errors import InputError
from openodke.safeio import iter_json_lines
started = time.monotonic()
try:
    list(iter_json_lines(sys.argv[1]))
except InputError as error:
    print(error)
# VmHWM: this process's own peak (ru_maxrss would start from the forking parent's).
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
print(round(time.monotonic() - started, 2), peak)
"""


def test_a_1_gb_single_line_is_refused_within_5_s_under_200_mb(tmp_path):
    # A sparse file: one line of 1 GB the file system does not store (nothing written to disk).
    path = tmp_path / "huge.jsonl"
    sparse_line(path, 1 << 30)
    done = subprocess.run(
        [sys.executable, "-c", _GIGABYTE_LINE, str(path)], capture_output=True, text=True
    )
    message, measured = done.stdout.strip().splitlines()
    seconds, peak_kb = measured.split()
    assert message.startswith(f"{path}:1: line longer than 64.0 MB")
    assert float(seconds) < 5
    assert int(peak_kb) < 200 * 1024


def test_reading_is_linear_in_a_last_line_with_no_line_end(tmp_path):
    # 32 MB in one unended line: joined once, not re-copied per block (that took 54 s for 64 MB).
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"z" * (32 << 20))
    started = time.monotonic()
    ((number, line),) = lines(path)
    assert (number, len(line)) == (1, 32 << 20)
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("block", [5, 1 << 20])
def test_runs_of_blank_lines_are_counted_across_blocks(tmp_path, monkeypatch, block):
    monkeypatch.setattr("openodke.safeio.files.BLOCK", block)
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\n\n \r\n\t\n{"a": 1}\n\n\n  x y\n\n' + b"\n" * 40 + b"last")
    assert lines(path) == [(5, b'{"a": 1}'), (8, b"  x y"), (50, b"last")]
    assert first_line(path, 100) == b'{"a": 1}'
    assert first_line(path, 3) == b'{"a'


def test_64_mb_of_blank_lines_are_read_in_seconds(tmp_path):
    # Each blank line went through the Python loop: 80 s for 64 MB, past 300 s for 2 GB.
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * (64 << 20) + b"end")
    started = time.monotonic()
    assert lines(path) == [((64 << 20) + 1, b"end")]
    assert first_line(path, 10) == b"end"
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"a": 1}\r{"b": 2}\r', ":1: a carriage return inside the line"),
        (b'{"a": 1}\n{"b": 2}\r{"c": 3}\n', ":2: a carriage return inside the line"),
        (b'\xef\xbb\xbf\xef\xbb\xbf{"a": 1}\n', ":1: two byte-order marks"),
        (b'\xef\xbb\xbf\n\xef\xbb\xbf{"a": 1}\n', ":2: a carriage return|:1: two byte-order"),
    ],
)
def test_cr_only_line_ends_and_a_second_byte_order_mark_are_refused(tmp_path, data, message):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(data)
    if data.startswith(b"\xef\xbb\xbf\n"):  # a BOM later on is a line's own bad bytes
        assert lines(path) == [(2, b'\xef\xbb\xbf{"a": 1}')]
        return
    with pytest.raises(InputError, match=f"^{path}({message})"):
        lines(path)


def test_walk_lists_regular_files_sorted_and_skips_hidden(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "y.txt").write_text("y")
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / ".hidden").write_text("h")
    assert walk_files(tmp_path) == [tmp_path / "a.txt", tmp_path / "b" / "y.txt"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: os.symlink("..", d / "sub" / "again"), "a symlink loop"),
        (lambda d: os.mkfifo(d / "sub" / "pipe.txt"), "is a pipe"),
        (
            lambda d: (d / "sub" / b"bad\xffname.txt".decode(errors="surrogateescape")).write_text(
                "x"
            ),
            "a file name that is not UTF-8",
        ),
    ],
    ids=["loop", "fifo", "name"],
)
def test_walk_refuses_what_it_cannot_read_as_a_file(tmp_path, make, message):
    (tmp_path / "sub").mkdir()
    make(tmp_path)
    with pytest.raises(InputError, match=message):
        walk_files(tmp_path)


@pytest.mark.parametrize(
    ("name", "problem"),
    [("ok_name-1.txt", None), ("a/b", "separator"), ("..", "'..'"), ("x\ud800", "surrogate"),
     ("", "empty"), ("é" * 120, "longer than 200 bytes")],
)  # fmt: skip
def test_names_that_cannot_be_file_names(name, problem):
    found = name_problem(name)
    assert (found is None) if problem is None else (problem in found)
