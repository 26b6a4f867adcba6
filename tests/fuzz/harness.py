"""Running the real ``odke`` entry point many times, fast, and judging each run.

Each run is a forked copy of this process (the commands already imported) that calls
``openodke.cli.main`` with its own session, working folder, temp folder and stdout/stderr files,
then exits as the real program would: an exception that escapes ``main`` prints its traceback and
exits 1, as Python does. The parent waits (a hung run is killed and reported), then looks for
processes left in the run's session and judges the outcome (:func:`problems`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Outcome", "preload", "problems", "run_forked", "snapshot"]

_PRELOADED = False

MEMORY_LIMIT = 4 << 30
"""Address space a forked run may take (bytes)."""


def preload() -> None:
    """Import every command once, so each forked run starts with them loaded."""
    global _PRELOADED
    if not _PRELOADED:
        from openodke.cli import main as cli_main

        cli_main._register([])
        _PRELOADED = True


@dataclass
class Outcome:
    """What one run did."""

    argv: list[str]
    code: int
    stdout: str
    stderr: str
    seconds: float
    hung: bool = False
    leftover: list[int] = field(default_factory=list)
    """Processes of the run's session still alive after it exited (they were killed)."""
    temp_left: list[str] = field(default_factory=list)
    """What the run left in its temp folder."""


def _obey_file_modes() -> None:
    """Drop root's power to read and search past file modes (CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH), so a file with mode 000 is unreadable, as it is for any other user."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

    header = Header(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    dropped = ~((1 << 1) | (1 << 2)) & 0xFFFFFFFF
    data[0].effective &= dropped
    data[0].permitted &= dropped
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _child(
    argv: Sequence[str], cwd: Path, tmp: Path, out: int, err: int, unprivileged: bool
) -> None:
    code = 1
    try:
        os.setsid()
        # A reader that runs away fails with MemoryError instead of taking the machine down.
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if unprivileged:
            _obey_file_modes()
        os.chdir(cwd)
        os.environ["TMPDIR"] = str(tmp)
        tempfile.tempdir = None
        os.dup2(out, 1)
        os.dup2(err, 2)
        stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        )
        sys.stdout = sys.__stdout__ = stdout
        sys.stderr = sys.__stderr__ = stderr
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(
                sig, signal.SIG_DFL if sig != signal.SIGINT else signal.default_int_handler
            )
        from openodke.cli import entry

        try:
            entry(list(argv))
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        except BaseException:
            traceback.print_exc()  # what Python prints for an exception nothing caught
            code = 130 if isinstance(sys.exc_info()[1], KeyboardInterrupt) else 1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
    finally:
        os._exit(code)


def _session_members(sid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == sid:
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[3] == str(sid) and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def run_forked(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float = 30.0,
    tmp: Path | None = None,
    unprivileged: bool = False,
) -> Outcome:
    """Run ``odke ARGV`` in a forked child in ``cwd``; its temp folder is ``tmp`` (made fresh
    inside ``cwd``'s parent when None) and is checked to be empty afterwards. ``unprivileged``: a
    child of root drops its power to read past file modes (so mode 000 means unreadable)."""
    preload()
    temp = tmp or Path(tempfile.mkdtemp(prefix="fuzz-tmp-", dir=cwd.parent))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(argv, cwd, temp, out.fileno(), err.fileno(), unprivileged)
        hung = False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - started > timeout:
                hung = True
                os.killpg(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                break
            time.sleep(0.005)
        seconds = time.monotonic() - started
        code = os.waitstatus_to_exitcode(status)
        leftover = _session_members(pid)
        for member in leftover:
            with contextlib.suppress(ProcessLookupError):
                os.kill(member, signal.SIGKILL)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    temp_left = sorted(p.name for p in temp.iterdir()) if temp.is_dir() else []
    if tmp is None:
        import shutil

        shutil.rmtree(temp, ignore_errors=True)
    return Outcome(list(argv), code, stdout, stderr, seconds, hung, leftover, temp_left)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder``: relative path → (size, mtime in ns)."""
    found: dict[str, tuple[int, int]] = {}
    for path in folder.rglob("*"):
        try:
            if path.is_file() or path.is_symlink():
                info = path.lstat()
                found[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns)
        except OSError:
            continue
    return found


_LINE = re.compile(r":\d+:")
# Refusals about something other than a file: the key variable a model needs.
_NOT_A_FILE = re.compile(r"the key variable \w+ is not set")


def problems(
    outcome: Outcome,
    *,
    allowed: frozenset[int] = frozenset({0, 2}),
    names: Sequence[str] = (),
    line: bool = False,
    before: dict[str, tuple[int, int]] | None = None,
    after: dict[str, tuple[int, int]] | None = None,
) -> list[str]:
    """Everything wrong with a run: a traceback, an exit code outside ``allowed``, a hang, a
    leftover process or temp file, a refusal (exit 2) that does not name one of ``names`` (and a
    line, when ``line``), or a file written or changed by a run that failed (``before``/``after``),
    except the outputs a run writes with its failed calls' facts unchecked (exit 1, decision 140)."""
    found: list[str] = []
    text = outcome.stdout + outcome.stderr
    if "Traceback" in text:
        found.append("traceback")
    elif "failed unexpectedly" in text:  # the CLI's boundary caught what nothing expected
        found.append("traceback (caught by the boundary)")
    if outcome.hung:
        found.append("hung")
    elif outcome.code not in allowed:
        found.append(f"exit {outcome.code}")
    if outcome.leftover:
        found.append(f"left {len(outcome.leftover)} processes")
    if outcome.temp_left:
        found.append(f"left temp files {outcome.temp_left[:3]}")
    # Where the refusal is: stderr, or stdout for a command whose report is its output and
    # whose exit says there were errors (odke ontology validate prints each as path: message).
    said = outcome.stderr if outcome.stderr.strip() else outcome.stdout
    if outcome.code == 2 and names and not _NOT_A_FILE.search(said):
        if not any(name in said for name in names):
            found.append("refusal names no input file")
        elif line and not any(
            _LINE.search(chunk.split(name, 1)[1][:12])
            for name in names
            for chunk in said.splitlines()
            if name in chunk
        ):
            found.append("refusal names no line")
    # Failed model calls exit 1 after writing, their facts marked unchecked (decision 140).
    written = outcome.code == 1 and "written with those facts unchecked" in outcome.stderr
    if outcome.code != 0 and not written and before is not None and after is not None:
        changed = sorted(k for k in after if before.get(k) != after[k])
        if changed:
            found.append(f"wrote on failure: {changed[:3]}")
    return found
