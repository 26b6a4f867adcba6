"""The providers' batch engines as they document them: OpenAI's Batch API, Anthropic's Message Batches.

OpenAI: the requests go up as a JSONL file (``POST {base}/files``, ``purpose=batch``), one line
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`` each, and ``POST
{base}/batches`` starts it (``completion_window: 24h``); ``GET {base}/batches/{id}`` says how it
goes; its ``output_file_id`` and ``error_file_id`` are read at ``GET {base}/files/{id}/content``.
Anthropic: ``POST {base}/v1/messages/batches`` with ``{"requests": [{"custom_id", "params"}]}``;
``GET .../batches/{id}``; its ``results_url`` gives one JSONL line per request. Every body is the
one the live call sends (the provider adapter builds both), with the live call's headers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from openodke.errors import ProviderError
from openodke.llm.base import ModelSpec
from openodke.llm.batch.http import BatchHttp
from openodke.llm.failures import FailureKind
from openodke.llm.providers import PROVIDERS

__all__ = ["BATCH_PROTOCOLS", "BatchProtocol", "BatchStatus", "ItemResult"]


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

    def entry(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """One request as the batch carries it."""
        raise NotImplementedError

    def submit(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], entries: list[bytes]
    ) -> str:
        """Start a batch of ``entries`` (each one JSON line, no newline); its id."""
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
    endpoint = "/v1/chat/completions"

    def _base(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        return PROVIDERS["openai"].base(spec, env)

    def entry(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``."""
        return {"custom_id": custom_id, "method": "POST", "url": self.endpoint, "body": body}

    def submit(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], entries: list[bytes]
    ) -> str:
        """Upload the JSONL file, then create the batch over it."""
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
            },
        )
        return _batch_id(created, f"{base}/batches")

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

    def _url(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        return PROVIDERS["anthropic"].url(spec, env) + "/batches"

    def entry(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``{"custom_id", "params"}``."""
        return {"custom_id": custom_id, "params": body}

    def submit(
        self, http: BatchHttp, spec: ModelSpec, env: Mapping[str, str], entries: list[bytes]
    ) -> str:
        """``POST .../v1/messages/batches`` with every request."""
        url = self._url(spec, env)
        content = b'{"requests":[' + b",".join(entries) + b"]}"
        created = http.post(url, self.headers(spec, env), "creating the batch", content=content)
        return _batch_id(created, url)

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
