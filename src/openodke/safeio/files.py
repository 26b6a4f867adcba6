"""Opening what a user names: regular files only, read in bounded pieces, folders walked safely.

Every refusal is an InputError naming the path (and the line, where there is one): a missing
file, a folder where a file is expected, a FIFO, a device (``/dev/zero``) or a socket, a symlink
loop, a file or folder that cannot be read, a file name that is not UTF-8, a line or a file past
its size limit (:mod:`openodke.safeio.limits`). FIFOs are opened without blocking, so naming one
never hangs.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

from openodke.errors import InputError
from openodke.safeio.limits import MAX_NAME_BYTES, max_file_bytes, max_line_bytes

__all__ = [
    "BLOCK",
    "FileTooLarge",
    "first_line",
    "iter_line_spans",
    "iter_lines",
    "name_problem",
    "open_regular",
    "read_bytes",
    "read_text",
    "walk_files",
]


class FileTooLarge(InputError):
    """A file past the size a reader reads whole."""


BLOCK = 1 << 20
"""Bytes read at a time by :func:`iter_lines`."""

_KINDS = (
    (stat.S_ISFIFO, "a pipe (FIFO)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _open_error(error: OSError, name: str, what: str) -> InputError:
    if error.errno == errno.ENOENT:
        return InputError("no such file", path=name)
    if error.errno == errno.ELOOP:
        return InputError("a symlink loop: the link never reaches a file", path=name)
    if error.errno in (errno.EACCES, errno.EPERM):
        return InputError(f"cannot read {what}: permission denied", path=name)
    if error.errno == errno.ENOTDIR:
        return InputError("no such file (a part of the path is not a folder)", path=name)
    return InputError(f"cannot read {what}: {error.strerror or error}", path=name)


def _kind_problem(mode: int, what: str) -> str | None:
    if stat.S_ISDIR(mode):
        return f"is a folder, expected {what}"
    for test, kind in _KINDS:
        if test(mode):
            return f"is {kind}, not a regular file; expected {what} (write it to a file first)"
    return None if stat.S_ISREG(mode) else f"is not a regular file; expected {what}"


def open_regular(path: str | os.PathLike[str], *, what: str = "a file") -> BinaryIO:
    """``path`` opened for reading in binary, or InputError unless it is a readable regular file.

    ``what`` names what was expected (``"a JSONL file"``) in the message.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise _open_error(error, name, what) from None
    try:
        problem = _kind_problem(os.fstat(fd).st_mode, what)
        if problem is not None:
            raise InputError(problem, path=name)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return cast(BinaryIO, os.fdopen(fd, "rb"))
    except BaseException:
        os.close(fd)
        raise


def read_bytes(
    path: str | os.PathLike[str],
    *,
    what: str = "a file",
    limit: int | None = None,
    variable: str = "ODKE_MAX_FILE_MB",
) -> bytes:
    """A regular file's bytes, refused past ``limit`` (``max_file_bytes()`` when None); the
    refusal names ``variable``, the setting that raises the limit."""
    name = os.fspath(path)
    cap = max_file_bytes() if limit is None else limit
    with open_regular(name, what=what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > cap:
            raise FileTooLarge(_too_big(size, cap, variable), path=name)
        try:
            data = handle.read(cap + 1)
        except OSError as error:
            raise _open_error(error, name, what) from None
    if len(data) > cap:  # grew while read, or a size the kernel does not report (/proc)
        raise FileTooLarge(_too_big(len(data), cap, variable), path=name)
    return data


def _too_big(size: int, cap: int, variable: str) -> str:
    return (
        f"is {_megabytes(size)}; a file read whole may hold {_megabytes(cap)} "
        f"(set {variable} to allow more)"
    )


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB" if size >= 1 << 20 else f"{size:,} bytes"


def read_text(
    path: str | os.PathLike[str], *, what: str = "a file", limit: int | None = None
) -> str:
    """A regular file's UTF-8 text (a byte-order mark dropped); InputError at the bad line."""
    name = os.fspath(path)
    data = read_bytes(name, what=what, limit=limit)
    return decode(data, path=name)


def decode(data: bytes, *, path: str, line: int | None = None) -> str:
    """UTF-8 text of ``data`` (a leading byte-order mark dropped), or InputError at its line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = error.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        if line is None:
            where = data.count(b"\n", 0, start) + 1
            column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        else:
            where, column = line, start + 1
        raise InputError(
            f"not UTF-8 (byte 0x{data[start]:02x} at column {column})", path=path, line=where
        ) from None


def iter_lines(
    path: str | os.PathLike[str], *, what: str = "a JSONL file", limit: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` for each non-blank line: :func:`iter_line_spans` without the
    offsets."""
    for number, _, line in iter_line_spans(path, what=what, limit=limit):
        yield number, line


def iter_line_spans(
    path: str | os.PathLike[str], *, what: str = "a JSONL file", limit: int | None = None
) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, bytes)`` for each non-blank line, read a block at a time.

    A leading byte-order mark and ``\\r\\n`` line ends are dropped; a second byte-order mark,
    and a carriage return inside a line (``\\r``-only line ends), are refused at their line. A
    line longer than ``limit`` (``max_line_bytes()`` when None) is refused as soon as it passes
    the limit, so a 1 GB line is never held. Time is linear in the file's size, a last line
    without a line end included; runs of blank lines are counted, not split one by one.
    """
    name = os.fspath(path)
    cap = max_line_bytes() if limit is None else limit
    with open_regular(name, what=what) as handle:
        number = 0
        pending: list[bytes] = []  # pieces of a line not yet ended, joined once it ends
        pending_size = 0
        pending_at = 0  # where the pending line starts in the file
        base = 0  # where the block starts in the file
        first = True
        while True:
            try:
                block = handle.read(BLOCK)
            except OSError as error:
                raise _open_error(error, name, what) from None
            if not block:
                break
            if first:
                if block.startswith(_BOM):
                    block, base = block[3:], 3
                if block.startswith(_BOM):
                    raise InputError(_TWO_BOMS, path=name, line=1)
                first = False
            start = 0
            while True:
                if not pending:  # skip a run of blank lines at once, counting them
                    found = _NON_BLANK.search(block, start)
                    stop = len(block) if found is None else found.start()
                    blank_end = block.rfind(b"\n", start, stop)
                    if blank_end >= 0:
                        number += block.count(b"\n", start, blank_end + 1)
                        start = blank_end + 1
                cut = block.find(b"\n", start)
                if cut < 0:
                    break
                piece = block[start:cut]
                at = base + start
                if pending:
                    pending.append(piece)
                    piece, pending, pending_size, at = b"".join(pending), [], 0, pending_at
                number += 1
                if len(piece) > cap:
                    raise InputError(_too_long(cap), path=name, line=number)
                line = piece.rstrip(b"\r")
                if line.strip():
                    yield number, at, _checked(line, name, number)
                start = cut + 1
            rest = block[start:]
            if rest:
                if not pending:
                    pending_at = base + start
                pending.append(rest)
                pending_size += len(rest)
                if pending_size > cap:
                    raise InputError(_too_long(cap), path=name, line=number + 1)
            base += len(block)
        if pending:
            line = b"".join(pending).rstrip(b"\r")
            if line.strip():
                yield number + 1, pending_at, _checked(line, name, number + 1)


def first_line(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The first non-blank line of a file (a leading byte-order mark dropped, at most ``limit``
    bytes of it), or None for a file of blank lines: read a block at a time, so a file of
    millions of blank lines is told in the time it takes to read it. Errors as
    :func:`open_regular`'s."""
    with open_regular(path) as handle:
        first = True
        while block := handle.read(BLOCK):
            if first:
                block, first = block.removeprefix(_BOM), False
            found = _NON_BLANK.search(block)
            if found is None:
                continue
            start = block.rfind(b"\n", 0, found.start()) + 1
            line = block[start : start + limit]
            while b"\n" not in line and len(line) < limit and (more := handle.read(BLOCK)):
                line += more[: limit - len(line)]
            return line.split(b"\n", 1)[0]
    return None


_BOM = b"\xef\xbb\xbf"
_TWO_BOMS = "two byte-order marks at the start of the file: remove the second"
_NON_BLANK = re.compile(rb"[^ \t\r\n]")


def _checked(line: bytes, name: str, number: int) -> bytes:
    """``line``, unless it holds a carriage return (``\\r``-only line ends) or a byte-order
    mark of its own: InputError at ``name:number``."""
    if b"\r" in line:
        raise InputError(
            "a carriage return inside the line: lines must end with \\n or \\r\\n, not \\r "
            "alone (convert the file's line ends)",
            path=name,
            line=number,
        )
    if number == 1 and line.startswith(_BOM):
        raise InputError(_TWO_BOMS, path=name, line=1)
    return line


def _too_long(cap: int) -> str:
    return (
        f"line longer than {_megabytes(cap)}: one JSON value per line is expected "
        "(set ODKE_MAX_LINE_MB to allow longer lines)"
    )


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a file name (a separator, ``..``, a control character, a lone
    surrogate, too long), or None when it can."""
    if not name or name in (".", ".."):
        return "is empty or a dot" if not name else f"is {name!r}"
    if "/" in name or "\\" in name:
        return "holds a folder separator"
    if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        return "holds a control character or a lone surrogate"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


def walk_files(root: str | os.PathLike[str], *, what: str = "files") -> list[Path]:
    """The regular files under ``root`` in sorted order, hidden entries skipped.

    A folder that cannot be read, a symlink loop (a folder reached twice), an entry that is not
    a regular file or a folder (a FIFO, a device) and a name that is not UTF-8 are each an
    InputError naming the path; nothing is skipped silently.
    """
    base = Path(root)
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()
    _walk(base, base, found, seen, what)
    return sorted(found)


def _walk(
    folder: Path, base: Path, found: list[Path], seen: set[tuple[int, int]], what: str
) -> None:
    try:
        info = folder.stat()
    except OSError as error:
        raise _open_error(error, str(folder), "the folder") from None
    if (info.st_dev, info.st_ino) in seen:
        raise InputError("a symlink loop: this folder is inside itself", path=str(folder))
    seen.add((info.st_dev, info.st_ino))
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        raise _open_error(error, str(folder), "the folder") from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if _surrogates(entry.name):
            raise InputError("a file name that is not UTF-8", path=os.fsdecode(entry.path))
        try:
            mode = os.stat(entry.path).st_mode
        except OSError as error:
            raise _open_error(error, entry.path, f"one of the {what}") from None
        if stat.S_ISDIR(mode):
            _walk(path, base, found, seen, what)
        elif stat.S_ISREG(mode):
            found.append(path)
        else:
            problem = _kind_problem(mode, f"one of the {what}")
            raise InputError(problem or "is not a regular file", path=entry.path)


def _surrogates(name: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in name)
