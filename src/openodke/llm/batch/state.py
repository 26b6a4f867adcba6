"""The batches a cache folder waits for: ``batches.json`` beside ``responses.sqlite``.

Written atomically (a temp file renamed over it) under a lock on ``batches.lock``. Before a batch
is created its *intent* is written (the requests, and a client-side id the provider keeps with the
batch); right after, the intent becomes the batch's record (its id). A command killed at any point
finds its batch again: a record is polled and collected, an intent is looked up in the provider's
list of batches before anything is submitted again, so nothing is paid twice (decisions 212, 290).
A batch leaves the file once its results are in the cache; an entry whose requests are all in the
cache, or older than the provider keeps results, is pruned. A file that cannot be read names
batches that may still be running: it is refused (exit 2, the path and what is wrong), never
silently dropped.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    model_validator,
)

from openodke._locking import locked
from openodke.errors import InputError
from openodke.safeio import read_json

__all__ = ["STATE_FILE", "BatchRecord", "BatchState", "PendingBatches"]

STATE_FILE = "batches.json"
LOCK_FILE = "batches.lock"
_ID = r"^[A-Za-z0-9_.:-]{1,200}$"
_KEY = r"^[0-9a-f]{64}$"
_INTENT = r"^[0-9a-f]{32}$"
DAY = 86_400.0


class BatchRecord(BaseModel):
    """One batch: where, which model, and which cache key each request answers. With no ``id``
    it is an intent: the create was about to be sent, and may have reached the provider."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(
        default=None, pattern=_ID, description="The provider's batch id (null: an intent)."
    )
    intent: str | None = Field(
        default=None,
        pattern=_INTENT,
        description="The client-side id sent with the create (OpenAI's batch `metadata`).",
    )
    found: StrictBool = Field(
        default=False,
        description="Adopted from the provider's list without an id that proves it ours (its "
        "results are checked against `requests` before they are used).",
    )
    provider: str = Field(pattern=r"^(openai|anthropic)$", description="`openai` or `anthropic`.")
    model: str = Field(min_length=1, description="`<provider>/<model>` of every request in it.")
    endpoint: str = Field(description="Where the requests go (credentials in it replaced).")
    submitted_at: float = Field(description="Seconds since the epoch.")
    requests: dict[str, str] = Field(
        min_length=1, description="custom_id -> the response cache key it answers."
    )

    @model_validator(mode="after")
    def _named(self) -> BatchRecord:
        if self.id is None and self.intent is None:
            raise ValueError("a batch needs its id, or the intent it was created with")
        return self

    @property
    def shown_id(self) -> str:
        """The batch id, or ``intent <id>`` while the create's answer is unknown."""
        return self.id if self.id is not None else f"intent {self.intent}"


class PendingBatches(BaseModel):
    """``batches.json``: the batches submitted and not yet collected."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = Field(default=2, ge=1, le=2)
    batches: list[BatchRecord] = Field(default_factory=list)


def _check_keys(record: BatchRecord, path: Path) -> None:
    import re

    for custom_id, key in record.requests.items():
        if not re.match(_KEY, custom_id) or not re.match(_KEY, key):
            raise InputError(
                f"batch {record.shown_id}: request {custom_id[:70]!r} -> {key[:70]!r} is not a cache "
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

    def replace(self, old: BatchRecord, new: BatchRecord | None) -> None:
        """Put ``new`` where ``old`` was (the intent becomes its batch), or drop ``old``; call
        under :meth:`lock`."""
        state = self.load()
        kept = [b for b in state.batches if not _same(b, old)]
        state.batches = kept if new is None else [*kept, new]
        self.save(state)

    def remove(self, record: BatchRecord) -> None:
        """Forget a batch whose results are stored (or an intent no batch answers)."""
        with self.lock():
            self.replace(record, None)

    def prune(
        self,
        answered: Callable[[str], bool],
        retention: Callable[[str], float],
        now: float | None = None,
    ) -> list[BatchRecord]:
        """Drop the entries nothing can come of: every request already ``answered`` (in the
        cache: a run killed between storing the results and forgetting the batch), or submitted
        longer ago than the provider keeps results (``retention(provider)`` seconds). The dropped
        entries are returned."""
        at = time.time() if now is None else now
        with self.lock():
            state = self.load()
            dropped = [
                b
                for b in state.batches
                if at - b.submitted_at > retention(b.provider)
                or all(answered(key) for key in b.requests.values())
            ]
            if dropped:
                state.batches = [b for b in state.batches if b not in dropped]
                self.save(state)
        return dropped


def _same(a: BatchRecord, b: BatchRecord) -> bool:
    return (a.id is not None and a.id == b.id) or (a.intent is not None and a.intent == b.intent)
