"""Reading a model's reply text: the JSON value it is, or the first JSON object inside it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from openodke.llm.base import Message

__all__ = ["first_line", "joined", "parse_reply"]

_DECODER = json.JSONDecoder()


def parse_reply(text: str) -> Any:
    """The reply as JSON when it is JSON, else the first JSON object in it, else None.

    Code fences and prose around the object are skipped; a reply with no decodable object is None
    (prose stays for the caller to read as a bare word or leave unparseable).
    """
    stripped = text.strip()
    if not stripped:
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    start = stripped.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(stripped, start)
        except ValueError:
            start = stripped.find("{", start + 1)
            continue
        return value
    return None


def joined(messages: Sequence[Message]) -> str:
    """The messages' contents joined by newlines: what recorded answers match against."""
    return "\n".join(str(message.get("content", "")) for message in messages)


def first_line(messages: Sequence[Message]) -> str:
    """The first non-empty line of the last user message (or of any message), for error text."""
    for message in reversed(messages):
        if message.get("role") == "user":
            for line in str(message.get("content", "")).splitlines():
                if line.strip():
                    return line.strip()[:120]
    for line in joined(messages).splitlines():
        if line.strip():
            return line.strip()[:120]
    return ""
