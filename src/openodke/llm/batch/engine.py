"""The batch engine: defer the requests a command makes, submit them as batches, collect the answers.

In batch mode (:func:`run_batched`) :func:`openodke.llm.client_for` builds
``BatchFront(CachedClient(ReaskClient(Deferring)))`` instead of the live chain. A request the cache
cannot answer is deferred (the bottom client notes it and answers "waiting for a batch"); when the
set of calls it belongs to ends, :class:`~openodke.llm.batch.context.BatchPending` unwinds the
command before anything is written. The engine then submits one batch per cache folder, endpoint
and model (split at the provider's limits), records it in the folder's ``batches.json`` before it
polls, polls with a growing interval and a progress line on stderr, and reads each result exactly
as the live client reads an answer (parsed, checked against the schema as sent, scrubbed of keys,
priced at the batch rate). Good answers go to the cache at once; every result, good or not, is
kept for the rerun of the command, which now finds them: an answer that cannot be used is asked
again once by the ReaskClient, in the next batch (decision 211). The command runs again until a
run defers nothing, and that run's outputs are the command's. Decisions 210-214.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from openodke.errors import BudgetStop, ModelConfigError, ProviderError
from openodke.llm.base import LLMClient, LLMResponse, Message, ModelSpec, close_inner
from openodke.llm.batch.context import _ENGINE, BatchPending
from openodke.llm.batch.http import BatchHttp, BatchMissing, SentUnanswered
from openodke.llm.batch.protocols import BATCH_PROTOCOLS, BatchProtocol, BatchStatus, ItemResult
from openodke.llm.batch.state import BatchRecord, BatchState
from openodke.llm.batch.use import BatchUse
from openodke.llm.budget import Budget, estimate_usd, with_usage
from openodke.llm.cache import CachedClient, ResponseStore, cache_key, cache_location
from openodke.llm.client import _problem
from openodke.llm.failures import FailureKind
from openodke.llm.parse import parse_reply
from openodke.llm.prices import cost_of
from openodke.llm.providers import PROVIDERS
from openodke.llm.reask import ReaskClient
from openodke.llm.redact import scrub_text, shown_url

__all__ = ["POLL_ENV", "BatchEngine", "run_batched"]

T = TypeVar("T")

POLL_ENV = "ODKE_BATCH_POLL"
"""Seconds between the first polls (``--batch-poll`` wins); the interval grows to 12 times it."""
DEFAULT_POLL = 10.0
_GROWTH = 1.5
_WAITING = "waiting for a batch"


@dataclass
class _Request:
    key: str
    messages: list[dict[str, Any]]
    spec: ModelSpec
    schema: Mapping[str, Any] | None
    folder: Path
    body: dict[str, Any]
    endpoint: str


@dataclass
class _Batch:
    """A batch this run polls: its record and the requests it answers."""

    record: BatchRecord
    protocol: BatchProtocol
    spec: ModelSpec
    state: BatchState
    requests: dict[str, _Request] = field(default_factory=dict)
    shown: str = ""


def poll_seconds(given: float | None = None, env: Mapping[str, str] | None = None) -> float:
    """``given`` (``--batch-poll``), else ``ODKE_BATCH_POLL``, else 10 s."""
    if given is not None:
        return given
    raw = (os.environ if env is None else env).get(POLL_ENV)
    if raw:
        try:
            value = float(raw)
        except ValueError:
            raise ModelConfigError(f"{POLL_ENV}={raw!r} is not a number of seconds") from None
        if value > 0:
            return value
    return DEFAULT_POLL


class _Deferring:
    """The bottom of the batch chain: a result this run collected, else the request deferred."""

    cacheable = True

    def __init__(self, engine: BatchEngine, folder: Path, env: Mapping[str, str]) -> None:
        self.engine = engine
        self.folder = folder
        self.env = env

    def __repr__(self) -> str:
        return f"_Deferring({str(self.folder)!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The collected result, or "waiting for a batch" with the request noted."""
        key = cache_key(messages, spec, schema, env=self.env)
        found = self.engine.result(key)
        if found is not None:
            return found
        provider = PROVIDERS[spec.provider]
        body = provider.body(messages, spec, schema, self.env)
        endpoint = shown_url(provider.url(spec, self.env))
        self.engine.defer(
            _Request(key, [dict(m) for m in messages], spec, schema, self.folder, body, endpoint)
        )
        return LLMResponse(model=spec.model, error=_WAITING, failure=_WAITING)

    def close(self) -> None:
        """Nothing to close."""


class _Front:
    """The top of the batch chain: an answer this run already got (and paid) is given again as
    it came, so every run of the command meters it at its batch price."""

    def __init__(
        self, inner: LLMClient, engine: BatchEngine, env: Mapping[str, str], budget: Budget | None
    ) -> None:
        self.inner = inner
        self.engine = engine
        self.env = env
        self.budget = budget
        self.cacheable = True

    def __repr__(self) -> str:
        return f"BatchFront({self.inner!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """This run's answer, else the inner client's (kept when it was paid in this run)."""
        key = cache_key(messages, spec, schema, env=self.env)
        answer = self.engine.fresh_answer(key)
        if answer is None:
            answer = self.inner.complete(messages, spec, schema)
            if answer.ok and not answer.cached:
                self.engine.keep(key, answer)
        if self.budget is not None and answer.ok and not answer.cached:
            self.budget.charge(answer.cost_usd or 0.0)
        return answer

    def close(self) -> None:
        """Close the inner chain (the cache file)."""
        close_inner(self.inner)


class BatchEngine:
    """Deferred requests, the batches that answer them, and what they cost; see the module."""

    def __init__(
        self,
        *,
        poll: float | None = None,
        env: Mapping[str, str] | None = None,
        out: IO[str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.env = os.environ if env is None else env
        self.poll = poll_seconds(poll, self.env)
        self.out = out if out is not None else sys.stderr
        self.sleep = sleep
        self._lock = threading.Lock()
        self._deferred: dict[str, _Request] = {}
        self._results: dict[str, LLMResponse] = {}
        self._fresh: dict[str, LLMResponse] = {}
        self.budget: Budget | None = None
        self.spent_usd = 0.0
        self.requests = 0
        self.batch_ids: list[str] = []
        self.resumed: list[str] = []
        self.rounds = 0
        self._http: BatchHttp | None = None
        self._stores: dict[Path, ResponseStore] = {}
        self._pruned: set[Path] = set()

    def __repr__(self) -> str:
        return f"BatchEngine(poll={self.poll:g}, batches={len(self.batch_ids)})"

    # -- what the clients ask --------------------------------------------------------------

    def deferred(self) -> bool:
        """Whether requests wait for a batch."""
        with self._lock:
            return bool(self._deferred)

    def defer(self, request: _Request) -> None:
        """Note a request for the next batch."""
        with self._lock:
            self._deferred.setdefault(request.key, request)

    def result(self, key: str) -> LLMResponse | None:
        """The collected result (good or failed) of the request with this cache key."""
        with self._lock:
            return self._results.get(key)

    def fresh_answer(self, key: str) -> LLMResponse | None:
        """An answer this run got (and paid) for the request with this key: kept on its way up,
        or collected good from a batch (which also stored it in the cache)."""
        with self._lock:
            found = self._fresh.get(key)
            if found is None:
                collected = self._results.get(key)
                found = collected if collected is not None and collected.ok else None
            return found

    def keep(self, key: str, answer: LLMResponse) -> None:
        """Remember an answer paid in this run."""
        with self._lock:
            self._fresh[key] = answer

    def client_for(
        self,
        specs: Sequence[ModelSpec],
        *,
        cache: str | Path | ResponseStore | bool | None,
        config: str | Path | None,
        budget: Budget | None,
        env: Mapping[str, str] | None,
    ) -> LLMClient:
        """The batch chain for ``specs`` (see the module); refuses a provider with no batch engine
        and a command without a response cache (ModelConfigError, exit 2)."""
        for spec in specs:
            if spec.provider not in BATCH_PROTOCOLS:
                raise ModelConfigError(
                    f"--batch: {spec.model} has no batch API ({spec.provider} answers live "
                    "only); drop --batch and raise --max-workers instead, or use an openai/ "
                    "or anthropic/ model"
                )
        if isinstance(cache, ResponseStore):
            store = cache
        else:
            folder = cache_location(cache, config=config)
            if folder is None:
                raise ModelConfigError(
                    "--batch needs the response cache (batch answers are collected into it): "
                    "drop --no-cache (or cache: false in the run config)"
                )
            BatchState(folder).load()  # a damaged state is refused before the cache is opened
            store = ResponseStore(folder)
        self._prune(BatchState(store.path.parent), store)
        self.budget = budget
        where = env if env is not None else self.env
        bottom = _Deferring(self, store.path.parent, where)
        return _Front(CachedClient(ReaskClient(bottom), store, env=env), self, where, budget)

    def _prune(self, state: BatchState, store: ResponseStore) -> None:
        """Drop the state's entries nothing can come of (decision 291), once per folder, saying
        which; a damaged state is refused here (exit 2) before any work."""
        if state.folder in self._pruned:
            return
        self._pruned.add(state.folder)
        dropped = state.prune(
            lambda key: store.get(key) is not None,
            lambda provider: BATCH_PROTOCOLS[provider].retention,
        )
        for record in dropped:
            self.out.write(
                f"batch {record.shown_id} ({record.model}): dropped from {state.path} (its "
                "answers are all in the cache, or it is older than the provider keeps results)\n"
            )

    # -- the batches -----------------------------------------------------------------------

    @property
    def http(self) -> BatchHttp:
        """The engine's connection pool (made when first needed)."""
        if self._http is None:
            self._http = BatchHttp(self.env, backoff=min(self.poll, 1.0), sleep=self.sleep)
        return self._http

    def _store(self, folder: Path) -> ResponseStore:
        """The engine's own handle on a cache folder (the command's closes between its runs)."""
        store = self._stores.get(folder)
        if store is None:
            store = self._stores[folder] = ResponseStore(folder)
        return store

    def close(self) -> None:
        """Close the connection pool and the cache files the engine opened."""
        if self._http is not None:
            self._http.close()
            self._http = None
        for store in self._stores.values():
            store.close()
        self._stores.clear()

    def flush(self) -> None:
        """Submit what waits (or find it already submitted), poll until every batch ended, and
        collect the results."""
        with self._lock:
            waiting, self._deferred = self._deferred, {}
        self.rounds += 1
        by_folder: dict[Path, list[_Request]] = {}
        for request in waiting.values():
            by_folder.setdefault(request.folder, []).append(request)
        batches: list[_Batch] = []
        for folder, requests in by_folder.items():
            batches += self._start(BatchState(folder), requests)
        self._wait(batches)

    def _start(self, state: BatchState, requests: list[_Request]) -> list[_Batch]:
        """The batches that answer ``requests``: the pending ones found (an intent looked up in
        the provider's list first), then new ones."""
        by_key = {r.key: r for r in requests}
        started: list[_Batch] = []
        with state.lock():
            pending = state.load()
            taken = {b.id for b in pending.batches if b.id is not None}
            for record in pending.batches:
                mine = {c: by_key[k] for c, k in record.requests.items() if k in by_key}
                if not mine:
                    continue
                first = next(iter(mine.values()))
                protocol = BATCH_PROTOCOLS[record.provider]
                if record.id is None:
                    adopted = self._found(state, protocol, first.spec, record, taken)
                    if adopted is None:
                        continue
                    record = adopted
                started.append(_Batch(record, protocol, first.spec, state, mine))
                self.resumed.append(record.shown_id)
                for request in mine.values():
                    by_key.pop(request.key, None)
            groups: dict[tuple[str, str], list[_Request]] = {}
            for request in by_key.values():
                groups.setdefault((request.endpoint, request.spec.model), []).append(request)
            chunks = [chunk for group in groups.values() for chunk in _split(group)]
            self._reserve([r for chunk in chunks for r in chunk])
            for chunk in chunks:
                started.append(self._submit(state, chunk))
        for batch in started:
            batch.shown = (
                f"batch {batch.record.shown_id} ({batch.record.model}, {batch.record.endpoint})"
            )
            if batch.record.shown_id in self.resumed:
                self.out.write(f"{batch.shown}: found from an earlier run, collecting it\n")
        return started

    def _found(
        self,
        state: BatchState,
        protocol: BatchProtocol,
        spec: ModelSpec,
        intent: BatchRecord,
        taken: set[str],
    ) -> BatchRecord | None:
        """The record of the batch an intent created, looked up in the provider's list (and
        written in the intent's place), or None (the intent dropped: its create never
        arrived, so its requests are submitted again)."""
        try:
            found = protocol.find(self.http, spec, self.env, intent, taken)
        except BatchMissing as error:  # a server with no list: it cannot be checked, nor wait
            state.replace(intent, None)
            self.out.write(
                f"warning: batch intent {intent.intent} ({intent.model}): the server lists no "
                f"batches ({error}); if the earlier run's create arrived, its batch is paid "
                "again: submitting its requests\n"
            )
            return None
        if found is None:
            state.replace(intent, None)
            self.out.write(
                f"batch intent {intent.intent} ({intent.model}): no batch of the provider answers "
                "it (the earlier run stopped before its create arrived); submitting its requests\n"
            )
            return None
        taken.add(found.id)
        record = intent.model_copy(update={"id": found.id, "found": not found.proven})
        state.replace(intent, record)
        return record

    def _reserve(self, requests: list[_Request]) -> None:
        """BudgetStop (exit 3) before submitting what the budget cannot cover at its worst."""
        budget = self.budget
        if budget is None or not requests:
            return
        worst = sum(estimate_usd(r.messages, r.spec, r.schema, batch=True) for r in requests)
        if budget.calls is not None and self.requests + len(requests) > budget.calls:
            raise BudgetStop(
                f"budget: a batch of {len(requests)} requests would pass calls {budget.calls} "
                f"({self.requests} made); nothing was submitted"
            )
        if budget.usd is not None and self.spent_usd + worst > budget.usd:
            raise BudgetStop(
                f"budget: a batch of {len(requests)} requests may cost up to ${worst:.4f} at the "
                f"batch price, which would pass usd {budget.usd:g} (${self.spent_usd:.4f} spent); "
                "nothing was submitted"
            )

    def _submit(self, state: BatchState, requests: list[_Request]) -> _Batch:
        """Write the intent, create the batch, write its id in the intent's place (call under
        the state's lock). A create whose answer never came keeps the intent: the next run looks
        it up before submitting again."""
        spec = requests[0].spec
        protocol = BATCH_PROTOCOLS[spec.provider]
        lines = [_line(protocol, r) for r in requests]
        intent = BatchRecord(
            intent=uuid.uuid4().hex,
            provider=protocol.name,
            model=spec.model,
            endpoint=requests[0].endpoint,
            submitted_at=time.time(),
            requests={r.key: r.key for r in requests},
        )
        state.add(intent)  # before the create: a kill at any point leaves it to be looked up
        assert intent.intent is not None
        try:
            batch_id = protocol.submit(self.http, spec, self.env, lines, intent.intent)
        except (SentUnanswered, KeyboardInterrupt):  # Terminated too: SIGINT, SIGTERM, SIGHUP
            self.out.write(  # it may have arrived: the intent stays for the next run to look up
                f"batch intent {intent.intent} ({spec.model}): the create was sent and its answer "
                "not heard; rerun the same command: it looks the batch up before submitting again\n"
            )
            raise
        except Exception:
            state.replace(intent, None)  # refused, or never sent: nothing to find again
            raise
        record = intent.model_copy(update={"id": batch_id})
        state.replace(intent, record)  # before any poll: a rerun finds it
        self.batch_ids.append(batch_id)
        self.out.write(
            f"batch {batch_id} ({spec.model}): {len(requests):,} requests submitted to "
            f"{record.endpoint}\n"
        )
        return _Batch(record, protocol, spec, state, {r.key: r for r in requests})

    def _wait(self, batches: list[_Batch]) -> None:
        """Poll every batch until it ended; a signal leaves them running, named."""
        waiting = list(batches)
        delay = self.poll
        said: dict[str, str] = {}
        try:
            while waiting:
                for batch in list(waiting):
                    status = self._status(batch)
                    if status is None:
                        waiting.remove(batch)
                        continue
                    line = (
                        f"{batch.shown}: {status.done:,} of {status.total or len(batch.requests):,} "
                        f"done ({status.failed:,} failed), {status.status}"
                    )
                    if said.get(batch.shown) != line:
                        self.out.write(line + "\n")
                        said[batch.shown] = line
                    if status.state != "running":
                        self._collect(batch, status)
                        waiting.remove(batch)
                if waiting:
                    self.sleep(delay)
                    delay = min(delay * _GROWTH, max(self.poll, 12 * self.poll))
        except KeyboardInterrupt:  # Terminated too: SIGINT, SIGTERM, SIGHUP
            for batch in waiting:
                self.out.write(
                    f"{batch.shown} left running on the provider: rerun the same command to "
                    "collect it\n"
                )
            raise

    def _status(self, batch: _Batch) -> BatchStatus | None:
        assert batch.record.id is not None
        try:
            return batch.protocol.status(self.http, batch.spec, self.env, batch.record.id)
        except BatchMissing as error:
            batch.state.remove(batch.record)
            self.out.write(
                f"warning: {batch.shown} is unknown to the server ({error}); forgotten, its "
                "requests go in the next batch\n"
            )
            return None

    def _collect(self, batch: _Batch, status: BatchStatus) -> None:
        if status.state == "failed":
            batch.state.remove(batch.record)
            why = f": {status.errors}" if status.errors else ""
            raise ProviderError(
                f"{batch.shown} failed{why}; nothing was answered or written (rerun to submit "
                "again)"
            )
        items = {
            i.custom_id: i for i in batch.protocol.results(self.http, batch.spec, self.env, status)
        }
        if batch.record.found and not set(items) & set(batch.requests):
            batch.state.remove(batch.record)  # taken from the list by its time and size only
            self.out.write(
                f"warning: {batch.shown} answers none of the requests of the intent it was taken "
                "for; forgotten, its requests go in the next batch\n"
            )
            return
        answered = 0
        for custom_id, request in batch.requests.items():
            item = items.get(custom_id)
            if item is None:
                kind = {"expired": FailureKind.expired, "cancelled": FailureKind.canceled}.get(
                    status.status, FailureKind.malformed
                )
                item = ItemResult(
                    custom_id, kind=kind.value, message=f"no result ({status.status})"
                )
            response = self._read(request, item)
            answered += int(response.ok)
            with self._lock:
                self._results[request.key] = response
            if response.ok:  # stored at once: a crash after this never pays for it again
                self._store(request.folder).put(request.key, response)
        with self._lock:
            self.requests += len(batch.requests)
            self.spent_usd += sum(
                self._results[r.key].cost_usd or 0.0 for r in batch.requests.values()
            )
        batch.state.remove(batch.record)
        if status.status in ("expired", "cancelled"):
            self.out.write(
                f"warning: {batch.shown} {status.status} with {len(batch.requests) - answered:,} "
                f"of {len(batch.requests):,} requests unanswered (counted as failed calls)\n"
            )

    def _read(self, request: _Request, item: ItemResult) -> LLMResponse:
        """One result read as the live client reads an answer, priced at the batch rate."""
        spec = request.spec
        if item.payload is None:
            message = scrub_text(f"batch: {item.message or item.kind}", self.env)
            return LLMResponse(model=spec.model, error=message, failure=item.kind)
        provider = PROVIDERS[spec.provider]
        try:
            reply = provider.read(item.payload)
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as error:
            detail = scrub_text(f"{type(error).__name__}: {error}", self.env)
            return LLMResponse(
                model=spec.model,
                error=f"malformed reply: {detail}",
                failure=FailureKind.malformed.value,
            )
        model = f"{provider.name}/{reply.model}" if reply.model else spec.model
        cost = cost_of(spec.model, reply.prompt_tokens, reply.completion_tokens, batch=True)
        if cost is None and model != spec.model:
            cost = cost_of(model, reply.prompt_tokens, reply.completion_tokens, batch=True)
        text = scrub_text(reply.text, self.env)
        parsed = parse_reply(text)
        problem = _problem(reply, text, parsed, spec, provider.schema_sent(request.schema))
        answer = LLMResponse(
            text=text,
            parsed=parsed if problem is None else None,
            model=model,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            cost_usd=cost,
            error=None if problem is None else problem[1],
            failure=None if problem is None else problem[0].value,
            finish_reason=reply.finish_reason,
        )
        return with_usage(answer, request.messages, spec, request.schema, batch=True)

    def use(self) -> BatchUse:
        """What went through batches so far, for the summaries (see :mod:`.use`)."""
        with self._lock:
            return BatchUse(
                requests=self.requests,
                submitted=list(self.batch_ids),
                resumed=[i for i in self.resumed if i not in self.batch_ids],
                rounds=self.rounds,
                cost_usd=round(self.spent_usd, 10),
            )

    def summary(self) -> str | None:
        """One line of what went through batches, or None when nothing did."""
        if not self.requests:
            return None
        ids = ", ".join(self.batch_ids + [i for i in self.resumed if i not in self.batch_ids])
        return (
            f"batch: {self.requests:,} requests answered through the provider's batch API "
            f"({ids}), ${self.spent_usd:.4f} at the batch price"
        )


def _line(protocol: BatchProtocol, request: _Request) -> bytes:
    entry = protocol.entry(request.key, request.body)
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _split(requests: list[_Request]) -> list[list[_Request]]:
    """Requests in batches within the provider's count and size limits."""
    protocol = BATCH_PROTOCOLS[requests[0].spec.provider]
    chunks: list[list[_Request]] = [[]]
    size = 0
    for request in requests:
        length = len(_line(protocol, request)) + 1
        current = chunks[-1]
        if current and (
            len(current) >= protocol.max_requests or size + length > protocol.max_bytes
        ):
            chunks.append([])
            size = 0
        chunks[-1].append(request)
        size += length
    return chunks


def run_batched(job: Callable[[], T], engine: BatchEngine) -> T:
    """``job()`` with its model calls sent through the providers' batch APIs (see the module):
    run again after each round of batches until a run defers nothing; its result is returned."""
    token = _ENGINE.set(engine)
    try:
        while True:
            try:
                result = job()
            except BatchPending:
                engine.flush()
                continue
            line = engine.summary()
            if line:
                engine.out.write(line + "\n")
            return result
    finally:
        _ENGINE.reset(token)
        engine.close()
