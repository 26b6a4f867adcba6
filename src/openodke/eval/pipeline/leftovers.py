"""What a ``--cmd`` run leaves when odke itself is killed (kill -9, OOM): found and ended by the
next run.

Before the command starts, a small state file records odke's pid (and start time), the command's
process group (and its leader's start time), a marker put in the command's environment
(``ODKE_CMD_RUN``, inherited by every process it starts, a ``setsid`` child's included), and the
temp folders. A normal end removes the state file. The next ``--cmd`` run (:func:`sweep`) finds
state files whose odke is gone, kills the recorded group and every process carrying the marker
(SIGKILL: their odke is dead, nobody reads them), removes the folders and the state file. A pid
is only trusted with its start time, so a recycled pid is never signalled.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

__all__ = ["MARKER", "forget", "kill_marked", "record", "started", "state_folder", "sweep"]

MARKER = "ODKE_CMD_RUN"
"""The environment variable naming a ``--cmd`` run in every process it starts."""


def state_folder() -> Path:
    """Where the state files live: a folder of this user's in the temp folder."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"odke-cmd-runs-{uid}"


def _started(pid: int) -> str | None:
    """A process's start time (clock ticks since boot, /proc), or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19] if len(fields) > 19 and fields[0] not in {"Z", "X"} else None


def record(folders: Sequence[Path]) -> dict[str, object]:
    """Record a run about to start (its marker is ``state["marker"]``); :func:`started` adds the
    command's group, :func:`forget` removes the record once the folders are gone."""
    marker = uuid.uuid4().hex
    state: dict[str, object] = {
        "odke": os.getpid(),
        "odke_started": _started(os.getpid()),
        "marker": marker,
        "folders": [str(f) for f in folders],
    }
    folder = state_folder()
    path = folder / f"{os.getpid()}-{marker}.json"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        path.write_text(json.dumps(state))
        state["_path"] = str(path)
    except OSError:
        state["_path"] = None  # nowhere to record: the run goes on unrecorded
    return state


def started(state: dict[str, object], group: int) -> None:
    """Add the command's process group to the run's state file."""
    state["group"] = group
    state["group_started"] = _started(group)
    path = state.get("_path")
    if isinstance(path, str):
        with contextlib.suppress(OSError):
            Path(path).write_text(json.dumps({k: v for k, v in state.items() if k != "_path"}))


def forget(state: dict[str, object]) -> None:
    """Remove the run's state file (its processes and folders are gone)."""
    path = state.get("_path")
    if isinstance(path, str):
        Path(path).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            Path(path).parent.rmdir()  # the last run's record gone: no folder left behind


def kill_marked(marker: str) -> int:
    """SIGKILL every process (but this one) whose environment holds the run's marker; how many."""
    needle = f"{MARKER}={marker}".encode()
    killed = 0
    proc = Path("/proc")
    if not proc.is_dir():
        return 0
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            with contextlib.suppress(OSError):
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
    return killed


def sweep() -> None:
    """End what killed runs left: their command's processes, temp folders and state files."""
    folder = state_folder()
    try:
        found = sorted(folder.glob("*.json"))
    except OSError:
        return
    for path in found:
        try:
            state = json.loads(path.read_text())
            odke = int(state["odke"])
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)
            continue
        if odke == os.getpid() or (
            _started(odke) is not None and _started(odke) == state.get("odke_started")
        ):
            continue  # its odke is running
        group = state.get("group")
        if isinstance(group, int) and group > 1 and _started(group) == state.get("group_started"):
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        if isinstance(state.get("marker"), str):
            kill_marked(state["marker"])
        for name in state.get("folders") or []:
            if isinstance(name, str) and Path(name).name.startswith(("odke-in-", "odke-out-")):
                shutil.rmtree(name, ignore_errors=True)
        path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()
