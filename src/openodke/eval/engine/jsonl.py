"""Reading and writing JSONL rows with one clear error per bad line.

Every reader here reports problems as ``path:line: what is wrong`` (an InputError, exit 2): invalid
JSON, an unknown key, a missing or mistyped field, bytes that are not UTF-8, an empty file, and
whatever :mod:`openodke.safeio` bounds (file kind, line length, nesting, numbers, lone
surrogates). A byte-order mark, CRLF line ends and blank lines are accepted. The readers are
:mod:`openodke.safeio`'s, named here as the engine has always named them.

``write_outputs`` writes several files all or none: each is staged and fsynced, an intent file
beside each target lists them all, the renames follow, and the intent files go. A process
killed between two renames leaves its intent files; the next write to, or read of, any of those
paths finishes the renames first (:func:`finish_pending`), so a report and its items are never
a pair from different runs. Staging files carry their writer's pid; the next write beside
them removes those a killed writer left (:func:`clean_staging`). Text written is scrubbed of
every key variable's value.
"""

from __future__ import annotations

import glob
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from openodke._lazy import lazy_names
from openodke._locking import locked
from openodke.errors import InputError, OutputError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from openodke.safeio.jsonio import iter_json_lines, load_jsonl, validation_message

__all__ = [
    "atomic_write_text",
    "clean_staging",
    "dump_jsonl",
    "finish_pending",
    "iter_json_lines",
    "load_jsonl",
    "validation_message",
    "write_outputs",
]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _staged(target: Path, text: str) -> Path:
    """``text`` in a temp file beside ``target``, with the mode a plain open() would give."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        prefix = f".{target.name}.{os.getpid()}."  # the pid: a dead writer's are found
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=".tmp")
    except OSError as error:
        raise InputError(f"cannot write here: {error.strerror}", path=str(target)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


_INTENT = ".odke-pending"
# Variables that may hold a key (openodke.llm.redact has the full rule; this decides whether to
# load it, so a write with no key in the environment costs nothing).
_KEY_VARIABLE = re.compile(r"(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD|_CREDENTIALS)$")


def _scrubbed(text: str) -> str:
    if not any(_KEY_VARIABLE.search(name) and len(v) >= 8 for name, v in os.environ.items()):
        return text
    from openodke.llm.redact import scrub_text

    return scrub_text(text)


def _intent(target: Path) -> Path:
    return target.with_name(f".{target.name}{_INTENT}")


def finish_pending(path: str | os.PathLike[str]) -> None:
    """Finish the renames a killed :func:`write_outputs` left undone for ``path``'s group.

    Every staged file was whole and synced before the intent files were made, so the renames
    are completed (never undone); a staged file already gone was renamed. No intent: nothing.
    """
    if not Path(path).name:  # "/" or ".": a folder, no group's file (the reader refuses it)
        return
    intent = _intent(Path(path))
    pairs = _read_intent(intent)
    if not pairs:
        return
    # A live writer holds these folders' locks for as long as its intents exist: once we hold
    # them, an intent still there is a dead writer's.
    with _folders_locked([(Path(tmp), Path(target)) for tmp, target in pairs]):
        for tmp, target in _read_intent(intent):
            if os.path.exists(tmp):
                os.replace(tmp, target)
        for _, target in pairs:
            Path(_intent(Path(target))).unlink(missing_ok=True)


def _read_intent(intent: Path) -> list[list[str]]:
    try:
        pairs = json.loads(intent.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(pairs, list):
        return []
    return [
        p
        for p in pairs
        if isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
    ]


def _write_intents(staged: Sequence[tuple[Path, Path]]) -> list[Path]:
    pairs = json.dumps([[str(tmp.resolve()), str(target.resolve())] for tmp, target in staged])
    made = []
    for _, target in staged:
        intent = _intent(target)
        tmp = _staged(intent, pairs)
        try:
            tmp.replace(intent)
        except BaseException:  # a signal between the two: the staged intent goes too
            tmp.unlink(missing_ok=True)
            raise
        made.append(intent)
    return made


def clean_staging(target: Path) -> None:
    """Remove the staging files a killed writer left beside ``target`` (its own and its
    intent's): ``.<name>.<pid>.<random>.tmp`` whose process is gone. Called after
    :func:`finish_pending`, so no intent still needs them."""
    for name in (target.name, _intent(target).name):
        try:
            found = list(target.parent.glob(f".{glob.escape(name)}.*.tmp"))
        except OSError:
            return
        for path in found:
            pid = path.name[len(name) + 2 :].split(".", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def write_outputs(files: Sequence[tuple[str | os.PathLike[str], str]]) -> None:
    """Write every ``(path, text)`` or none: all are staged as temp files, then renamed.

    A path that cannot be written (a folder, a missing permission) is an InputError naming it,
    and leaves every earlier output untouched. With two files or more, intent files make the
    renames all-or-nothing even when the process is killed between them (module docstring);
    a signal arriving during the renames waits for them to finish.
    """
    for path, _ in files:
        finish_pending(path)
        clean_staging(Path(path))
    staged: list[tuple[Path, Path]] = []
    intents: list[Path] = []
    try:
        for path, text in files:
            target = Path(path)
            if target.is_dir():
                raise InputError("is a folder, expected a file path", path=str(target))
            staged.append((_staged(target, _scrubbed(text)), target))
        with _folders_locked(staged if len(staged) > 1 else ()):
            if len(staged) > 1:
                intents = _write_intents(staged)
            _rename_all(staged)
            for intent in intents:
                intent.unlink(missing_ok=True)
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileNotFoundError) as error:
        where = str(error.filename or (staged[-1][1] if staged else files[0][0]))
        raise InputError(f"cannot write: {error.strerror or error}", path=where) from None
    except OSError as error:
        raise OutputError(f"cannot write {files[0][0]}: {error.strerror or error}") from error
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        if intents and not any(tmp.exists() for tmp, _ in staged):
            for intent in intents:
                intent.unlink(missing_ok=True)


@contextmanager
def _folders_locked(staged: Sequence[tuple[Path, Path]]) -> Iterator[None]:
    """Hold an exclusive lock on each target's folder (in one order: no deadlock) while the
    renames run, so two runs writing the same pair at once leave one run's pair, not a mix."""
    with ExitStack() as stack:
        for folder in sorted({str(target.parent.resolve()) for _, target in staged}):
            try:
                fd = os.open(folder, os.O_RDONLY)
            except OSError:
                continue  # a folder that cannot be opened (Windows): renames go unlocked
            stack.callback(os.close, fd)
            stack.enter_context(locked(fd))
        yield


def _rename_all(staged: Sequence[tuple[Path, Path]]) -> None:
    """Rename every staged file into place; an interrupt (Ctrl-C, SIGTERM) raised part way
    waits until the rest are renamed too, then goes on."""
    done = 0
    try:
        for tmp, target in staged:
            os.replace(tmp, target)
            done += 1
    except BaseException:
        for tmp, target in staged[done:]:
            if tmp.exists():
                os.replace(tmp, target)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to a temp file in the same folder, then ``os.replace`` it into place."""
    write_outputs([(path, text)])


def dump_jsonl(path: str | Path, rows: Iterable[BaseModel]) -> None:
    """Write one ``model_dump_json()`` per line, atomically."""
    atomic_write_text(path, "".join(row.model_dump_json() + "\n" for row in rows))


# The JSON readers are re-exported from safeio, loaded when first named (they bring pydantic):
# the scorer's loader imports this module for its outputs and starts its workers without it.
_READERS = ("iter_json_lines", "load_jsonl", "validation_message")
__getattr__, __dir__ = lazy_names(
    __name__, dict.fromkeys(_READERS, "openodke.safeio.jsonio"), __all__
)
