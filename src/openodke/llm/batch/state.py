"""The batches a cache folder waits for: ``batches.json`` beside ``responses.sqlite``.

Written atomically (a temp file renamed over it) under a lock on ``batches.lock`` right after a
batch is created and before it is polled, so a command killed while it waits finds its batch
again: the rerun polls and collects it instead of paying for it twice. A batch leaves the file
once its results are in the cache. A file that cannot be read names batches that may still be
running: it is refused (exit 2, the path and what is wrong), never silently dropped.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke._locking import locked
from openodke.errors import InputError
from openodke.safeio import read_json

__all__ = ["STATE_FILE", "BatchRecord", "BatchState", "PendingBatches"]

STATE_FILE = "batches.json"
LOCK_FILE = "batches.lock"
_ID = r"^[A-Za-z0-9_.:-]{1,200}$"
_KEY = r"^[0-9a-f]{64}$"


class BatchRecord(BaseModel):
    """One submitted batch: where, which model, and which cache key each request answers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=_ID, description="The provider's batch id.")
    provider: str = Field(pattern=r"^(openai|anthropic)$", description="`openai` or `anthropic`.")
    model: str = Field(min_length=1, description="`<provider>/<model>` of every request in it.")
    endpoint: str = Field(description="Where the requests go (credentials in it replaced).")
    submitted_at: float = Field(description="Seconds since the epoch.")
    requests: dict[str, str] = Field(
        min_length=1, description="custom_id -> the response cache key it answers."
    )


class PendingBatches(BaseModel):
    """``batches.json``: the batches submitted and not yet collected."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = Field(default=1, ge=1, le=1)
    batches: list[BatchRecord] = Field(default_factory=list)


def _check_keys(record: BatchRecord, path: Path) -> None:
    import re

    for custom_id, key in record.requests.items():
        if not re.match(_KEY, custom_id) or not re.match(_KEY, key):
            raise InputError(
                f"batch {record.id}: request {custom_id[:70]!r} -> {key[:70]!r} is not a cache "
                "key (64 hex digits)",
                path=str(path),
            )


class BatchState:
    """The pending batches of one cache folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / STATE_FILE

    def __repr__(self) -> str:
        return f"BatchState({str(self.path)!r})"

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder's batch lock (other processes sharing the cache wait)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            with locked(fd):
                for stale in self.folder.glob(".batches.*.tmp"):  # a writer killed mid-write
                    stale.unlink(missing_ok=True)
                yield
        finally:
            os.close(fd)

    def load(self) -> PendingBatches:
        """The pending batches (none when there is no file); InputError (exit 2) when damaged."""
        try:
            self.path.lstat()
        except FileNotFoundError:
            return PendingBatches()
        except PermissionError:
            raise InputError(
                "cannot read the batch state: permission denied", path=str(self.path)
            ) from None
        advice = (
            "it names batches that may still be running on the provider; repair it, or delete "
            "it to submit those requests again (paid again)"
        )
        try:  # the bounded reader: a FIFO, a device, deep nesting, a huge file are refused
            data = read_json(self.path, what="the batch state (batches.json)")
        except InputError as error:
            if error.message.endswith("permission denied"):
                raise
            raise InputError(f"{error.message}; {advice}") from None
        try:
            state = PendingBatches.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "(top)"
            raise InputError(
                f"damaged batch state: {field}: {first['msg']}; {advice}", path=str(self.path)
            ) from None
        for record in state.batches:
            _check_keys(record, self.path)
        return state

    def save(self, state: PendingBatches) -> None:
        """Replace the file at once (or remove it when nothing is pending)."""
        if not state.batches:
            self.path.unlink(missing_ok=True)
            return
        text = state.model_dump_json(indent=1) + "\n"
        fd, temp = tempfile.mkstemp(prefix=".batches.", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def add(self, record: BatchRecord) -> None:
        """Record a batch just created (call under :meth:`lock`)."""
        state = self.load()
        state.batches.append(record)
        self.save(state)

    def remove(self, batch_id: str) -> None:
        """Forget a batch whose results are stored."""
        with self.lock():
            state = self.load()
            state.batches = [b for b in state.batches if b.id != batch_id]
            self.save(state)
