"""The response cache: one SQLite file, ``responses.sqlite``, keyed per decision 5.

Key: SHA-256 of the canonical JSON (sorted keys, no whitespace) of ``{format: 2, model,
endpoint, messages, schema, temperature, max_tokens, extra, prompts}``, plus ``repeat`` when
non-zero; ``endpoint`` is the URL the request goes to (``base_url``, else ``OPENAI_BASE_URL``,
``ANTHROPIC_BASE_URL`` or ``OLLAMA_HOST``, else the provider's), with any credentials in it
replaced; ``timeout``, ``rpm``, ``tpm`` and ``api_key_env`` are not in it, and no key ever is.
Errors are never stored (nor an answer that failed its checks); each answer is committed as it
arrives, so an interrupted run resumes. A hit costs 0.0 and is ``cached``. Clients marked
``cacheable = False`` (recorded, replayed, scripted) bypass it.

A damaged entry (a page SQLite cannot read, a row that is not JSON) is a miss, counted in
``damaged`` and said once on stderr; the answer asked again is stored over it when it can be.
DECISIONS #143.
"""

from __future__ import annotations

import errno
import hashlib
import json
import sqlite3
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from openodke.errors import InputError, OutputError
from openodke.llm.base import LLMClient, LLMResponse, Message, ModelSpec, close_inner

__all__ = [
    "CACHE_DIR",
    "CACHE_FILE",
    "CachedClient",
    "ResponseStore",
    "cache_key",
    "cache_location",
]

CACHE_DIR = ".odke-cache"
CACHE_FILE = "responses.sqlite"
KEY_FORMAT = 2
_KEPT = (
    "text",
    "parsed",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "tokens_estimated",
    "latency_s",
)


def cache_key(
    messages: Sequence[Message],
    spec: ModelSpec,
    schema: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> str:
    """The request's cache key (hex SHA-256); ``prompts`` are the messages' ``prompt`` ids, sorted;
    the endpoint is read from ``env`` (the process environment when None)."""
    from openodke.llm.client import endpoint_of
    from openodke.llm.redact import shown_url

    endpoint = endpoint_of(spec, env)
    prompts = sorted({str(m["prompt"]) for m in messages if m.get("prompt") is not None})
    document: dict[str, Any] = {
        "format": KEY_FORMAT,
        "model": spec.model,
        "endpoint": None if endpoint is None else shown_url(endpoint),
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "schema": schema,
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
        "extra": spec.extra,
        "prompts": prompts,
    }
    if spec.repeat:
        document["repeat"] = spec.repeat
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def cache_location(
    cache: str | Path | bool | None = None, *, config: str | Path | None = None
) -> Path | None:
    """The cache folder per decision 5, or None when caching is off.

    ``cache`` is ``--cache DIR`` or the run config's ``cache:`` (a path, resolved by the caller
    against the config's folder, or ``false``); ``--no-cache`` is ``False``. Unset (None or True):
    ``.odke-cache/`` beside the run config ``config``, else in the working directory.
    """
    if cache is False:
        return None
    if cache is None or cache is True:
        return (Path(config).parent if config is not None else Path.cwd()) / CACHE_DIR
    return Path(cache)


def _denied(error: Exception, target: Path) -> bool:
    """Whether the cache could not be opened for want of a permission (SQLite only says it
    is "unable to open database file")."""
    if isinstance(error, PermissionError):
        return True
    try:
        target.stat()
    except PermissionError:
        return True
    except OSError:
        pass
    return False


class ResponseStore:
    """The SQLite file of answers; safe to share between threads (one connection, one lock)."""

    def __init__(self, path: str | Path) -> None:
        """``path`` is a folder (``responses.sqlite`` goes in it) or the ``.sqlite`` file itself."""
        target = Path(path)
        if target.suffix != ".sqlite":
            target = target / CACHE_FILE
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL,"
                " response TEXT NOT NULL, created_at REAL NOT NULL)"
            )
        except (OSError, sqlite3.Error) as error:
            if _full(error):  # the machine's disk, not the user's input: exit 1
                raise OutputError(
                    f"cannot write the response cache {target}: the disk is full or failed"
                ) from error
            if _denied(error, target):
                raise InputError("permission denied", path=str(target)) from None
            raise InputError(
                f"cannot open the response cache: {error}", path=str(target)
            ) from error
        self.path = target
        self._lock = threading.Lock()
        self.damaged = 0
        self._told = False

    def __repr__(self) -> str:
        return f"ResponseStore({str(self.path)!r})"

    def _damage(self, error: Exception) -> None:
        with self._lock:
            self.damaged += 1
            first = not self._told
            self._told = True
        if first:
            sys.stderr.write(
                f"warning: the response cache {self.path} is damaged ({error}); damaged "
                "entries are read as misses and asked again\n"
            )

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer's fields, or None (also for a damaged entry, counted in ``damaged``)."""
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT response FROM responses WHERE key = ?", (key,)
                ).fetchone()
            if row is None:
                return None
            fields = json.loads(row[0])
            if not isinstance(fields, dict) or not isinstance(fields.get("model"), str):
                raise ValueError("an entry is not a stored answer")
            LLMResponse(**fields)
        except (sqlite3.DatabaseError, ValueError, TypeError) as error:
            self._damage(error)
            return None
        return fields

    def put(self, key: str, response: LLMResponse) -> None:
        """Store a successful answer and commit it now; an error result is refused. A damaged
        file that cannot take it is counted in ``damaged``, not raised."""
        if response.error is not None:
            raise ValueError("an error result is never stored")
        fields = {name: getattr(response, name) for name in _KEPT}
        if not fields["tokens_estimated"]:
            del fields["tokens_estimated"]  # stored only when set: older stores read the same
        blob = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                    (key, response.model, blob, time.time()),
                )
        except (OSError, sqlite3.DatabaseError) as error:
            if _full(error):  # the machine's disk, not a damaged cache: exit 1
                raise OutputError(
                    f"cannot store an answer in the response cache {self.path}: the disk "
                    "is full or failed (answers already stored are kept)"
                ) from error
            if isinstance(error, OSError):
                raise
            self._damage(error)

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the file (the WAL is folded back in)."""
        with self._lock:
            self._db.close()


class CachedClient:
    """Wraps any client with the response cache; thread-safe.

    ``cache`` is a folder, a ``.sqlite`` path, a ResponseStore, or None for ``.odke-cache/`` in the
    working directory. ``hits`` and ``misses`` count what it did; an inner client with
    ``cacheable = False`` is passed straight through.
    """

    def __init__(
        self,
        inner: LLMClient,
        cache: str | Path | ResponseStore | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.inner = inner
        self.env = env
        self._owned = not isinstance(cache, ResponseStore)
        if isinstance(cache, ResponseStore):
            self.store = cache
        else:
            self.store = ResponseStore(cache_location(cache) or CACHE_DIR)
        self.cacheable = getattr(inner, "cacheable", True)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"CachedClient({self.inner!r}, {self.store!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The stored answer when there is one (cost 0.0, ``cached``), else the inner client's."""
        if not self.cacheable:
            return self.inner.complete(messages, spec, schema)
        started = time.perf_counter()
        key = cache_key(messages, spec, schema, env=self.env)
        stored = self.store.get(key)
        if stored is not None:
            with self._lock:
                self.hits += 1
            stored["latency_s"] = time.perf_counter() - started
            return LLMResponse(**stored, cost_usd=0.0, cached=True)
        response = self.inner.complete(messages, spec, schema)
        with self._lock:
            self.misses += 1
        if response.error is None and response.failure is None and not response.cached:
            self.store.put(key, response)
        return response

    @property
    def damaged(self) -> int:
        """Damaged cache entries met so far (read as misses)."""
        return self.store.damaged

    def close(self) -> None:
        """Close the store (when this client opened it) and the inner client."""
        if self._owned:
            self.store.close()
        close_inner(self.inner)


def _full(error: BaseException) -> bool:
    """Whether ``error`` says a write failed: the disk (or the file size limit) is full."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return True
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_SQLITE_IOERR, _SQLITE_FULL):
        return True  # a write that failed (EFBIG, ENOSPC) comes back as an I/O error
    return "disk is full" in str(error) or "disk I/O error" in str(error)


_SQLITE_IOERR, _SQLITE_FULL = 10, 13
