"""The providers' batch engines as they document them: OpenAI's Batch API, Anthropic's Message Batches.

OpenAI: the requests go up as a JSONL file (``POST {base}/files``, ``purpose=batch``), one line
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`` each, and ``POST
{base}/batches`` starts it (``completion_window: 24h``); ``GET {base}/batches/{id}`` says how it
goes; its ``output_file_id`` and ``error_file_id`` are read at ``GET {base}/files/{id}/content``.
Anthropic: ``POST {base}/v1/messages/batches`` with ``{"requests": [{"custom_id", "params"}]}``;
``GET .../batches/{id}``; its ``results_url`` gives one JSONL line per request. Every body is the
one the live call sends (the provider adapter builds both), with the live call's headers.

A batch whose create may have reached the provider unanswered (the command was killed) is found
again in the provider's list (:meth:`BatchProtocol.find`): OpenAI's ``GET {base}/batches`` gives
each batch's ``metadata``, where the create put the intent's id; Anthropic's ``GET
.../v1/messages/batches`` keeps no client data, so a batch created within minutes of the intent
with as many requests is taken, and its results are checked to answer the intent's custom_ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

from openodke.errors import ProviderError
from openodke.llm.base import ModelSpec
from openodke.llm.batch.http import BatchHttp
from openodke.llm.batch.state import DAY, BatchRecord
from openodke.llm.failures import FailureKind
from openodke.llm.providers import PROVIDERS

__all__ = ["BATCH_PROTOCOLS", "BatchProtocol", "BatchStatus", "Found", "ItemResult"]

INTENT_KEY = "odke_intent"
"""The metadata key (OpenAI) that carries the intent's id with the batch."""
SKEW = 600.0
"""Seconds either side of the intent a batch may be stamped (the provider's clock is not ours)."""
_PAGES = 50
"""At most this many pages of the provider's list are read looking for one batch."""


@dataclass(frozen=True)
class Found:
    """A batch of the provider's list that answers an intent; ``proven`` when its metadata names
    the intent (else its results are checked before they are used)."""

    id: str
    proven: bool


@dataclass(frozen=True)
class BatchStatus:
    """Where a batch is: ``state`` running, ended or failed, and its counts."""

    state: str
    status: str
    total: int
    done: int
    failed: int
    raw: Mapping[str, Any]
    errors: str = ""


@dataclass(frozen=True)
class ItemResult:
    """One request's result: the reply body the live call would get, or why there is none."""

    custom_id: str
    payload: Any = None
    kind: str | None = None
    message: str | None = None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _lines(text: str) -> Iterator[Any]:
    for line in text.splitlines():
        if line.strip():
            try:
                yield json.loads(line)
            except ValueError:
                continue  # a torn line: its request is reported missing


class BatchProtocol:
    """One provider's batch engine."""

    name: str
    max_requests: int
    max_bytes: int
    retention: float
    """Seconds the provider keeps a batch's results after it was created."""

    def entry(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """One request as the batch carries it."""
        raise NotImplementedError

    def submit(
        self,
        http: BatchHttp,
        spec: ModelSpec,
        env: Mapping[str, str],
        entries: list[bytes],
        intent: str,
    ) -> str:
        """Start a batch of ``entries`` (each one JSON line, no newline) carrying ``intent``
        where the provider keeps client data; its id."""
        raise NotImplementedError

    def find(
        self,
        http: BatchHttp,
        spec: ModelSpec,
        env: Mapping[str, str],
        record: BatchRecord,
        taken: set[str],
    ) -> Found | None:
        """The batch the intent ``record`` created, from the provider's list (newest first, read
        back to a little before the intent), or None when its create never arrived. Batches in
        ``taken`` belong to other entries."""
        raise NotImplementedError

    def status(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], batch_id: str
    ) -> BatchStatus:
        """The batch's status now."""
        raise NotImplementedError

    def results(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], status: BatchStatus
    ) -> list[ItemResult]:
        """Every result an ended batch has."""
        raise NotImplementedError

    def headers(self, spec: ModelSpec, env: Mapping[str, str]) -> dict[str, str]:
        """The live call's headers, with its key."""
        provider = PROVIDERS[self.name]
        variable = provider.key_variable(spec)
        return provider.headers(env.get(variable) if variable else None)


class OpenAIBatches(BatchProtocol):
    """OpenAI's Batch API (any server that speaks it)."""

    name = "openai"
    max_requests = 50_000
    max_bytes = 200 * 1024 * 1024
    retention = 30 * DAY
    endpoint = "/v1/chat/completions"

    def _base(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        return PROVIDERS["openai"].base(spec, env)

    def entry(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``."""
        return {"custom_id": custom_id, "method": "POST", "url": self.endpoint, "body": body}

    def submit(
        self,
        http: BatchHttp,
        spec: ModelSpec,
        env: Mapping[str, str],
        entries: list[bytes],
        intent: str,
    ) -> str:
        """Upload the JSONL file, then create the batch over it (the intent in its metadata)."""
        base = self._base(spec, env)
        headers = self.headers(spec, env)
        upload = {k: v for k, v in headers.items() if k != "content-type"}  # multipart sets it
        content = b"".join(line + b"\n" for line in entries)
        uploaded = http.post(
            f"{base}/files",
            upload,
            "uploading the batch file",
            files={"file": ("odke-batch.jsonl", content, "application/jsonl")},
            data={"purpose": "batch"},
        )
        file_id = uploaded.get("id") if isinstance(uploaded, Mapping) else None
        if not isinstance(file_id, str) or not file_id:
            raise ProviderError(f"uploading the batch file: {base}/files gave no file id")
        created = http.post(
            f"{base}/batches",
            headers,
            "creating the batch",
            json={
                "input_file_id": file_id,
                "endpoint": self.endpoint,
                "completion_window": "24h",
                "metadata": {INTENT_KEY: intent},
            },
        )
        return _batch_id(created, f"{base}/batches")

    def find(
        self,
        http: BatchHttp,
        spec: ModelSpec,
        env: Mapping[str, str],
        record: BatchRecord,
        taken: set[str],
    ) -> Found | None:
        """``GET {base}/batches?limit=100`` (then ``&after=``): the batch whose ``metadata``
        names the intent."""
        url = f"{self._base(spec, env)}/batches?limit=100"
        for batch in _listed(http, url, "after", self.headers(spec, env)):
            created = batch.get("created_at")
            if _int(created) and _int(created) < record.submitted_at - SKEW:
                return None
            metadata = batch.get("metadata")
            if (
                isinstance(metadata, Mapping)
                and metadata.get(INTENT_KEY) == record.intent
                and isinstance(batch.get("id"), str)
            ):
                return Found(batch["id"], proven=True)
        return None

    def status(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], batch_id: str
    ) -> BatchStatus:
        """``GET {base}/batches/{id}``: validating, in_progress, finalizing, completed, failed,
        expired, cancelling, cancelled."""
        raw = http.get_json(
            f"{self._base(spec, env)}/batches/{batch_id}",
            self.headers(spec, env),
            f"batch {batch_id}",
        )
        raw = raw if isinstance(raw, Mapping) else {}
        status = str(raw.get("status", ""))
        counts = raw.get("request_counts") or {}
        counts = counts if isinstance(counts, Mapping) else {}
        state = {"completed": "ended", "expired": "ended", "cancelled": "ended", "failed": "failed"}
        errors = raw.get("errors") or {}
        data = errors.get("data") if isinstance(errors, Mapping) else None
        said = "; ".join(
            str(e.get("message") or e.get("code")) for e in (data or []) if isinstance(e, Mapping)
        )
        return BatchStatus(
            state=state.get(status, "running"),
            status=status or "unknown",
            total=_int(counts.get("total")),
            done=_int(counts.get("completed")) + _int(counts.get("failed")),
            failed=_int(counts.get("failed")),
            raw=raw,
            errors=said,
        )

    def results(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], status: BatchStatus
    ) -> list[ItemResult]:
        """The output file's lines and the error file's."""
        out: list[ItemResult] = []
        base = self._base(spec, env)
        for field in ("output_file_id", "error_file_id"):
            file_id = status.raw.get(field)
            if not isinstance(file_id, str) or not file_id:
                continue
            text = http.get(
                f"{base}/files/{file_id}/content",
                self.headers(spec, env),
                "reading the batch results",
            ).text
            for row in _lines(text):
                item = _openai_item(row)
                if item is not None:
                    out.append(item)
        return out


def _openai_item(row: Any) -> ItemResult | None:
    if not isinstance(row, Mapping) or not isinstance(row.get("custom_id"), str):
        return None
    custom_id = row["custom_id"]
    response = row.get("response")
    error = row.get("error")
    if isinstance(response, Mapping) and response.get("status_code") == 200:
        return ItemResult(custom_id, payload=response.get("body"))
    if isinstance(error, Mapping):
        code = str(error.get("code") or "")
        kind = FailureKind.expired if code == "batch_expired" else FailureKind.http
        if code == "batch_cancelled":
            kind = FailureKind.canceled
        return ItemResult(custom_id, kind=kind.value, message=str(error.get("message") or code))
    status = response.get("status_code") if isinstance(response, Mapping) else None
    body = response.get("body") if isinstance(response, Mapping) else None
    said = body.get("error", {}).get("message") if isinstance(body, Mapping) else None
    said = said if isinstance(said, str) else json.dumps(body)[:200]
    return ItemResult(custom_id, kind=FailureKind.http.value, message=f"HTTP {status}: {said}")


class AnthropicBatches(BatchProtocol):
    """Anthropic's Message Batches."""

    name = "anthropic"
    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024
    retention = 29 * DAY

    def _url(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        return PROVIDERS["anthropic"].url(spec, env) + "/batches"

    def entry(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``{"custom_id", "params"}``."""
        return {"custom_id": custom_id, "params": body}

    def submit(
        self,
        http: BatchHttp,
        spec: ModelSpec,
        env: Mapping[str, str],
        entries: list[bytes],
        intent: str,
    ) -> str:
        """``POST .../v1/messages/batches`` with every request (Message Batches keep no client
        data: the intent is found again by :meth:`find`)."""
        url = self._url(spec, env)
        content = b'{"requests":[' + b",".join(entries) + b"]}"
        created = http.post(url, self.headers(spec, env), "creating the batch", content=content)
        return _batch_id(created, url)

    def find(
        self,
        http: BatchHttp,
        spec: ModelSpec,
        env: Mapping[str, str],
        record: BatchRecord,
        taken: set[str],
    ) -> Found | None:
        """``GET .../v1/messages/batches?limit=100`` (then ``&after_id=``): the batch created
        within :data:`SKEW` of the intent with as many requests, nearest in time; an ended one
        only when its results answer the intent's custom_ids."""
        headers = self.headers(spec, env)
        url = f"{self._url(spec, env)}?limit=100"
        wanted = set(record.requests)
        best: tuple[float, str] | None = None
        for batch in _listed(http, url, "after_id", headers):
            created = _stamp(batch.get("created_at"))
            if created is not None and created < record.submitted_at - SKEW:
                break
            batch_id = batch.get("id")
            counts = batch.get("request_counts")
            counts = counts if isinstance(counts, Mapping) else {}
            total = sum(_int(v) for v in counts.values())
            if (
                not isinstance(batch_id, str)
                or batch_id in taken
                or created is None
                or abs(created - record.submitted_at) > SKEW
                or total != len(wanted)
            ):
                continue
            if batch.get("processing_status") == "ended":
                status = BatchStatus("ended", "ended", total, total, 0, batch)
                answered = {i.custom_id for i in self.results(http, spec, env, status)}
                if answered != wanted:
                    continue
            distance = abs(created - record.submitted_at)
            if best is None or distance < best[0]:
                best = (distance, batch_id)
        return None if best is None else Found(best[1], proven=False)

    def status(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], batch_id: str
    ) -> BatchStatus:
        """``processing_status``: in_progress, canceling, ended."""
        raw = http.get_json(
            f"{self._url(spec, env)}/{batch_id}", self.headers(spec, env), f"batch {batch_id}"
        )
        raw = raw if isinstance(raw, Mapping) else {}
        status = str(raw.get("processing_status", ""))
        counts = raw.get("request_counts") or {}
        counts = counts if isinstance(counts, Mapping) else {}
        failed = sum(_int(counts.get(k)) for k in ("errored", "canceled", "expired"))
        done = failed + _int(counts.get("succeeded"))
        return BatchStatus(
            state="ended" if status == "ended" else "running",
            status=status or "unknown",
            total=done + _int(counts.get("processing")),
            done=done,
            failed=failed,
            raw=raw,
        )

    def results(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], status: BatchStatus
    ) -> list[ItemResult]:
        """The ``results_url`` lines; the key is sent only to the API's own host."""
        url = status.raw.get("results_url")
        if not isinstance(url, str) or not url:
            raise ProviderError(f"batch {status.raw.get('id')}: ended with no results_url")
        own = urlsplit(self._url(spec, env))
        there = urlsplit(url)
        if (there.scheme, there.netloc) != (own.scheme, own.netloc):
            raise ProviderError(
                f"batch {status.raw.get('id')}: its results_url is on another host "
                f"({there.netloc}); the key is not sent there"
            )
        text = http.get(url, self.headers(spec, env), "reading the batch results").text
        return [item for row in _lines(text) if (item := _anthropic_item(row)) is not None]


_ANTHROPIC_KINDS = {
    "errored": FailureKind.http,
    "canceled": FailureKind.canceled,
    "expired": FailureKind.expired,
}


def _anthropic_item(row: Any) -> ItemResult | None:
    if not isinstance(row, Mapping) or not isinstance(row.get("custom_id"), str):
        return None
    result = row.get("result")
    result = result if isinstance(result, Mapping) else {}
    kind = result.get("type")
    if kind == "succeeded":
        return ItemResult(row["custom_id"], payload=result.get("message"))
    failure = _ANTHROPIC_KINDS.get(str(kind), FailureKind.malformed)
    error = result.get("error")
    inner = error.get("error") if isinstance(error, Mapping) else None
    said = inner.get("message") if isinstance(inner, Mapping) else None
    if said is None and isinstance(error, Mapping):
        said = error.get("message")
    message = str(said) if said else f"the batch says {kind}"
    return ItemResult(row["custom_id"], kind=failure.value, message=message)


def _listed(
    http: BatchHttp, url: str, cursor: str, headers: Mapping[str, str]
) -> Iterator[Mapping[str, Any]]:
    """The batches of a provider's list, newest first, page after page (``cursor=last_id``)."""
    after: str | None = None
    for _ in range(_PAGES):
        page = http.get_json(
            url if after is None else f"{url}&{cursor}={quote(after, safe='')}",
            headers,
            "listing the batches",
        )
        data = page.get("data") if isinstance(page, Mapping) else None
        if not isinstance(data, list):
            return
        yield from (b for b in data if isinstance(b, Mapping))
        last = page.get("last_id")
        if not page.get("has_more") or not isinstance(last, str) or not last or not data:
            return
        after = last


def _stamp(value: Any) -> float | None:
    """Seconds since the epoch from an RFC 3339 time (Anthropic's ``created_at``)."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _batch_id(created: Any, url: str) -> str:
    batch_id = created.get("id") if isinstance(created, Mapping) else None
    if not isinstance(batch_id, str) or not batch_id:
        raise ProviderError(f"creating the batch: {url} gave no batch id")
    return batch_id


BATCH_PROTOCOLS: dict[str, BatchProtocol] = {
    "openai": OpenAIBatches(),
    "anthropic": AnthropicBatches(),
}
"""The providers with a batch engine; ``ollama`` has none."""
