"""Keeping keys out of anything written: configs copied into manifests, reports and track records.

``strip_secrets`` drops fields whose name says they hold a secret (``api_key``, ``password``,
``authorization``, ...) and replaces any string equal to, or containing, the value of a key
variable set in the environment (a name ending in ``_API_KEY``, ``_KEY``, ``_TOKEN`` or
``_SECRET``). ``api_key_env`` is kept: it names a variable, it is not a key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["REDACTED", "strip_secrets"]

REDACTED = "<redacted>"
_SECRET_FIELD = re.compile(
    r"^(api[_-]?key|x-api-key|authorization|password|passwd|secret|client[_-]?secret|"
    r"access[_-]?token|auth[_-]?token|bearer)$",
    re.IGNORECASE,
)
_KEY_VARIABLE = re.compile(r"(_API_KEY|_KEY|_TOKEN|_SECRET)$")
_SHORTEST = 8  # shorter values ("1", "true") would redact ordinary text


def _secret_values(env: Mapping[str, str]) -> list[str]:
    return sorted(
        {
            value
            for name, value in env.items()
            if _KEY_VARIABLE.search(name) and len(value) >= _SHORTEST
        },
        key=len,
        reverse=True,
    )


def strip_secrets(value: Any, env: Mapping[str, str] | None = None) -> Any:
    """A copy of ``value`` (mappings, lists, strings) with secret fields dropped and key values
    replaced by ``<redacted>``."""
    secrets = _secret_values(os.environ if env is None else env)
    return _strip(value, secrets)


def _strip(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, Mapping):
        return {
            key: _strip(item, secrets)
            for key, item in value.items()
            if not (isinstance(key, str) and _SECRET_FIELD.match(key))
        }
    if isinstance(value, list | tuple):
        return type(value)(_strip(item, secrets) for item in value)
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    return value
