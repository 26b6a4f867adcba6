"""Keeping keys out of anything written: configs copied into manifests, reports and track records,
and every file a command writes.

``strip_secrets`` drops fields whose name says they hold a secret: the name is, or ends (after
``_``, ``-`` or ``.``) in, ``key``, ``api_key``, ``token``, ``password``, ``passwd``, ``pwd``,
``secret``, ``credential(s)``, ``auth``, ``authorization``, ``bearer`` or ``cookie``
(``api_key``, ``x-api-key``, ``hf_token``, ``db_password``, ``client_secret``); and it replaces
any string equal to, or containing, the value of a key variable set in the environment: a name
ending in ``_API_KEY``, ``_KEY``, ``_TOKEN``, ``_SECRET``, ``_PASSWORD`` or ``_CREDENTIALS``,
every provider's key variable, and every variable an ``api_key_env`` field of the value names.
``api_key_env`` itself is kept: it names a variable, it is not a key. ``max_tokens`` is kept: a
plural is a count, not a token.

``scrub_text`` replaces those variables' values in any text about to be written (the last line
of defence: a report, an items file, a log). DECISIONS #97.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["REDACTED", "scrub_text", "secret_values", "strip_secrets"]

REDACTED = "<redacted>"
_SECRET_FIELD = re.compile(
    r"(?:^|[_.\-])(?:api[_-]?key|x-api-key|key|token|password|passwd|pwd|secret|credentials?|"
    r"auth|authorization|bearer|cookie)$",
    re.IGNORECASE,
)
_KEY_VARIABLE = re.compile(r"(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD|_CREDENTIALS)$")
_SHORTEST = 8  # shorter values ("1", "true") would redact ordinary text


def _provider_variables() -> set[str]:
    from openodke.llm.providers import PROVIDERS

    return {p.key_env for p in PROVIDERS.values() if p.key_env}


def _named_variables(value: Any, into: set[str], depth: int = 0) -> set[str]:
    """Every variable an ``api_key_env`` field inside ``value`` names."""
    if depth > 100:
        return into
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key == "api_key_env" and isinstance(item, str):
                into.add(item)
            else:
                _named_variables(item, into, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _named_variables(item, into, depth + 1)
    return into


def secret_values(env: Mapping[str, str] | None = None, names: Iterable[str] = ()) -> list[str]:
    """The values (8 characters or more) of the key variables set in ``env``: names like
    ``*_API_KEY``, the providers' variables and ``names``; longest first."""
    env = os.environ if env is None else env
    wanted = _provider_variables() | set(names)
    return sorted(
        {
            value
            for name, value in env.items()
            if (_KEY_VARIABLE.search(name) or name in wanted) and len(value) >= _SHORTEST
        },
        key=len,
        reverse=True,
    )


def strip_secrets(value: Any, env: Mapping[str, str] | None = None) -> Any:
    """A copy of ``value`` (mappings, lists, strings) with secret fields dropped and key values
    replaced by ``<redacted>``."""
    secrets = secret_values(env, _named_variables(value, set()))
    return _strip(value, secrets)


def scrub_text(text: str, env: Mapping[str, str] | None = None) -> str:
    """``text`` with the value of every key variable set in ``env`` replaced by ``<redacted>``."""
    for secret in secret_values(env):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def _strip(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, Mapping):
        return {
            key: _strip(item, secrets)
            for key, item in value.items()
            if not (isinstance(key, str) and _SECRET_FIELD.search(key))
        }
    if isinstance(value, list | tuple):
        return type(value)(_strip(item, secrets) for item in value)
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    return value
