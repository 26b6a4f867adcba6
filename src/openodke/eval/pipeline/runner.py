"""The ``--cmd`` runner: run a user's pipeline command on the documents, with no shell.

``{in}`` becomes a fresh folder holding one ``<name>.txt`` per document, ``{out}`` a path in a
fresh temp folder the command must write (a file, or a folder for GraphRAG-style output). The
command runs in its own process group, so a timeout or Ctrl-C kills every process it started.

Usage (the result is a context manager; leaving it deletes ``{out}``'s folder)::

    with run_command("python my_extract.py {in} {out}", documents, timeout=600) as ran:
        collected = collect(ran.out_path, documents, names=ran.names, from_command=True)

Without ``with``, call ``ran.cleanup()`` when done reading.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from openodke.errors import InputError, PipelineError
from openodke.eval.pipeline import leftovers
from openodke.threads import child_environment
from openodke.types import Document

__all__ = ["IN", "OUT", "CommandResult", "file_names", "run_command"]

IN = "{in}"
"""The placeholder for the folder of document texts."""

OUT = "{out}"
"""The placeholder for the path the command must write."""

_UNSAFE = re.compile(r"[^\w.\-]")  # \w is Unicode-aware: letters and digits of any script stay
_NAME_BYTES = 150  # well under the 255-byte limit of common file systems, leaving room for ~n.txt
_TAIL_BYTES = 8192
_TAIL_LINES = 20


class CommandResult(BaseModel):
    """What a command run left: its output path, the file names it was given, how long it took.

    A context manager: leaving the ``with`` block (or :meth:`cleanup`) deletes the temp folder
    holding ``out_path``. The ``{in}`` folder is already gone when this is returned.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_path: Path = Field(description="What the command wrote at {out}: a file or a folder.")
    names: dict[str, str] = Field(
        description="Document id -> the file name its text had under {in} (halden.txt)."
    )
    seconds: float = Field(description="Wall time from start to exit.")
    stderr_tail: str = Field(description="The last lines the command wrote to stderr.")
    _state: dict[str, object] | None = PrivateAttr(default=None)  # leftovers' record of the run

    def cleanup(self) -> None:
        """Delete the temp folder holding ``out_path``; safe to call twice."""
        shutil.rmtree(self.out_path.parent, ignore_errors=True)
        if self._state is not None:
            leftovers.forget(self._state)

    def __enter__(self) -> CommandResult:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.cleanup()


def file_names(documents: Sequence[Document]) -> dict[str, str]:
    """Document id -> a safe, unique file name for its text: ``<name>.txt``.

    A trailing ``.txt`` is dropped from the id (``halden.txt`` -> ``halden.txt``, not
    ``halden.txt.txt``); a folder separator or any other character that is not a letter, digit,
    ``.``, ``-`` or ``_`` becomes ``_`` (``texts/a.txt`` -> ``texts_a.txt``); a leading dot is
    replaced so no file is hidden; long names are cut. A name already taken (ignoring case, for
    case-insensitive file systems) gets ``~2``, ``~3``, ... in the order of the documents. An id
    given twice keeps its first name.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for doc in documents:
        if doc.id in names:
            continue
        base = _safe_base(doc.id)
        name, n = base, 1
        while name.casefold() in taken:
            n += 1
            name = f"{base}~{n}"
        taken.add(name.casefold())
        names[doc.id] = f"{name}.txt"
    return names


def _safe_base(doc_id: str) -> str:
    base = doc_id[: -len(".txt")] if doc_id.endswith(".txt") else doc_id
    base = _UNSAFE.sub("_", base)
    if base.startswith((".", "-")):  # hidden, or taken for an option (--help.txt)
        base = "_" + base[1:]
    base = base.encode("utf-8")[:_NAME_BYTES].decode("utf-8", errors="ignore")
    return base or "doc"


def run_command(
    cmd: str,
    documents: Sequence[Document],
    *,
    timeout: float = 600,
    workdir: Path | None = None,
    out_name: str = "out.jsonl",
    kill_grace: float = 2.0,
    on_stderr: Callable[[str], None] | None = None,
) -> CommandResult:
    """Run ``cmd`` on ``documents`` and return where it wrote its output.

    ``cmd`` is split with :func:`shlex.split` and run with no shell (``;``, ``|`` and ``$(...)``
    reach the command as they are); ``{in}`` and ``{out}`` are replaced wherever they occur in an
    argument. ``{out}`` is ``<temp folder>/<out_name>``. The command runs in ``workdir`` (default:
    the current folder), in its own session; stdin is empty, stdout is captured. Each line the
    command writes to stderr is passed to ``on_stderr`` as it comes (without its line end), so a
    caller can show the command's progress; the last lines are kept for the error message.

    On a timeout, Ctrl-C or any error, the whole process group gets SIGTERM, then SIGKILL after
    ``kill_grace`` seconds; processes the command leaves running after it exits are ended the same
    way. The ``{in}`` folder is deleted in every case; the ``{out}`` folder is deleted unless the
    result is returned (then the caller deletes it: see :class:`CommandResult`).

    Raises:
        InputError: ``cmd`` has no ``{out}``, cannot be split, or ``workdir`` is not a folder.
        PipelineError: the command was not found, exited non-zero, was killed, timed out, or
            wrote nothing at ``{out}`` (one line each, e.g. ``command exited 3: <stderr line>``).
    """
    argv = _split(cmd)
    if workdir is not None and not Path(workdir).is_dir():
        raise InputError("--cmd: working folder does not exist", path=str(workdir))
    if not math.isfinite(timeout) or timeout <= 0:
        raise InputError(f"--timeout must be a number of seconds above 0, got {timeout:g}")
    names = file_names(documents)
    leftovers.sweep()  # what a killed odke left: its command's processes, its folders
    in_dir = Path(tempfile.mkdtemp(prefix="odke-in-"))
    out_dir = Path(tempfile.mkdtemp(prefix="odke-out-"))
    state = leftovers.record([in_dir, out_dir])
    out_path = out_dir / out_name
    returned = False
    try:
        written: set[str] = set()
        for doc in documents:
            if doc.id in written:
                continue
            written.add(doc.id)
            try:
                data = doc.text.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(
                    f"document {doc.id!r}: its text holds a lone surrogate, not valid Unicode"
                ) from None
            (in_dir / names[doc.id]).write_bytes(data)
        argv = substitute(argv, in_dir, out_path)
        seconds, stderr_tail, stdout_bytes = _execute(
            argv, timeout, workdir, kill_grace, on_stderr, state
        )
        if _wrote_nothing(out_path):
            hint = f" (it printed {stdout_bytes} bytes to stdout instead)" if stdout_bytes else ""
            raise PipelineError(f"command wrote nothing at {out_path}{hint}")
        result = CommandResult(
            out_path=out_path, names=names, seconds=seconds, stderr_tail=stderr_tail
        )
        result._state = state
        returned = True
        return result
    finally:
        shutil.rmtree(in_dir, ignore_errors=True)
        if not returned:
            shutil.rmtree(out_dir, ignore_errors=True)
            leftovers.forget(state)


_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"})


def substitute(argv: list[str], in_dir: Path, out_path: Path) -> list[str]:
    """``argv`` with ``{in}`` and ``{out}`` replaced; in a shell's ``-c`` script (``sh -c
    '...{in}...'``) the paths are shell-quoted, so a space or a quote in them stays one word."""
    script = -1
    if argv and Path(argv[0]).name in _SHELLS:
        for i, arg in enumerate(argv[1:-1], start=1):
            if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
                script = i + 1
                break
    out = []
    for i, arg in enumerate(argv):
        quote = shlex.quote if i == script else str
        out.append(arg.replace(IN, quote(str(in_dir))).replace(OUT, quote(str(out_path))))
    return out


def _split(cmd: str) -> list[str]:
    try:
        argv = shlex.split(cmd)
    except ValueError as error:
        raise InputError(f"--cmd {cmd!r}: cannot split it into arguments: {error}") from None
    if not argv:
        raise InputError("--cmd is empty: give the command to run, with {in} and {out}")
    if not any(OUT in arg for arg in argv):
        raise InputError(f"--cmd {cmd!r} has no {OUT}: the command must write its output there")
    return argv


class _StderrReader(threading.Thread):
    """Reads the command's stderr line by line as it comes: each line to ``on_line``, and the
    last ``_TAIL_LINES`` (at most ``_TAIL_BYTES`` each) kept for an error message."""

    def __init__(self, stream: IO[bytes], on_line: Callable[[str], None] | None) -> None:
        super().__init__(daemon=True)
        self.stream, self.on_line = stream, on_line
        self.tail: deque[str] = deque(maxlen=_TAIL_LINES)

    def run(self) -> None:
        for raw in iter(self.stream.readline, b""):
            line = raw[:_TAIL_BYTES].decode("utf-8", errors="replace").rstrip("\r\n")
            self.tail.append(line)
            if self.on_line is not None:
                try:
                    self.on_line(line)
                except Exception:  # showing progress must never stop the run
                    self.on_line = None
        self.stream.close()


def _execute(
    argv: list[str],
    timeout: float,
    workdir: Path | None,
    grace: float,
    on_stderr: Callable[[str], None] | None = None,
    state: dict[str, object] | None = None,
) -> tuple[float, str, int]:
    """Run ``argv``; ``(seconds, stderr tail, stdout byte count)``, or PipelineError."""
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                argv,
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=child_environment(
                    None if state is None else {leftovers.MARKER: str(state["marker"])}
                ),
            )
        except FileNotFoundError:
            raise PipelineError(f"command not found: {argv[0]}") from None
        except PermissionError:
            raise PipelineError(f"command is not executable: {argv[0]}") from None
        if state is not None:
            leftovers.started(state, process.pid)
        assert process.stderr is not None
        reader = _StderrReader(process.stderr, on_stderr)
        reader.start()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PipelineError(
                f"command timed out after {timeout:g} s (killed its process group); "
                "give it longer with --timeout SECONDS"
            ) from None
        finally:
            # Ctrl-C, or anything else that stops the wait, must not leave the pipeline running;
            # after a normal exit this ends whatever the command left behind in its group.
            _end_group(process, grace)
            if state is not None:  # a setsid child left the group: its marker still finds it
                leftovers.kill_marked(str(state["marker"]))
            # The group is gone, so the pipe is closed unless something left the group holds it.
            reader.join(timeout=grace)
        seconds = time.monotonic() - started
        stderr_tail = "\n".join(reader.tail)
        stdout_bytes = out.seek(0, os.SEEK_END)
    code = process.returncode
    if code != 0:
        if code < 0:
            reason = f"command was killed by {_signal_name(-code)}"
        else:
            reason = f"command exited {code}"
        last = next((line for line in reversed(stderr_tail.splitlines()) if line.strip()), "")
        raise PipelineError(f"{reason}: {last.strip()[:300]}" if last else reason)
    return seconds, stderr_tail, stdout_bytes


def _end_group(process: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the process group, then SIGKILL what is left after ``grace`` seconds."""
    group = process.pid  # start_new_session makes the command its group's leader
    if not _signal_group(group, signal.SIGTERM):
        process.wait()
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        process.poll()  # reap the leader: an unreaped zombie keeps the group alive
        if not _group_alive(group):
            process.wait()
            return
        time.sleep(0.02)
    _signal_group(group, signal.SIGKILL)
    process.wait()


def _signal_group(group: int, sig: int) -> bool:
    """Send ``sig`` to the group; False when no process is left in it."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        # Only zombies or processes that changed user remain; none we may or need to signal.
        return False
    return True


def _group_alive(group: int) -> bool:
    """Whether a live (not zombie) process is left in the group.

    On Linux, /proc is read: orphans that died wait as zombies for an init that may never reap
    them, and ``killpg(group, 0)`` counts those. Elsewhere, any member counts.
    """
    proc = Path("/proc")
    if not (proc / "self" / "stat").is_file():
        return _signal_group(group, 0)
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if len(fields) > 2 and fields[2] == str(group) and fields[0] not in {"Z", "X"}:
            return True
    return False


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _wrote_nothing(path: Path) -> bool:
    """True when nothing is at ``path``, or only an empty folder or a blank file."""
    if path.is_dir():
        return not any(path.iterdir())
    if not path.is_file():
        return True
    with path.open("rb") as handle:
        while block := handle.read(65536):
            if block.strip():
                return False
    return True
