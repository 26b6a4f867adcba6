"""Keeping keys out of anything written: configs copied into manifests, reports and track records,
caches, summaries, error text, and every file a command writes. One redaction for all of them.

``strip_secrets`` drops fields whose name says they hold a secret: the name is, or ends (after
``_``, ``-`` or ``.``) in, ``key``, ``api_key``, ``token``, ``password``, ``passwd``, ``pwd``,
``secret``, ``credential(s)``, ``auth``, ``authorization``, ``bearer`` or ``cookie``
(``api_key``, ``x-api-key``, ``hf_token``, ``db_password``, ``client_secret``), in any case style
(``openaiApiKey``, ``X-Api-Key``, ``AccessToken`` are split at their capitals first); and every
string goes through ``scrub_text``. ``api_key_env`` itself is kept: it names a variable, it is not
a key. ``max_tokens`` is kept: a plural is a count, not a token.

``scrub_text`` is the last line of defence for any text about to be written (a report, an items
file, a summary, a cache entry, an error): it replaces the value of every key variable set in the
environment (a name ending, in any case, in ``_API_KEY``, ``_KEY``, ``_TOKEN``, ``_SECRET``,
``_PASSWORD`` or ``_CREDENTIALS``, every provider's key variable, and every variable an
``api_key_env`` names), credentials written into a URL (``http://user:SECRET@host``), a bearer
token, a header written as text (``X-Api-Key: ...``), and the value of a credential-named field
in JSON text (``"openaiApiKey": "..."``). DECISIONS #97, #144.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "REDACTED",
    "is_secret_field",
    "scrub_text",
    "secret_values",
    "shown_url",
    "strip_secrets",
]

REDACTED = "<redacted>"
_SECRET_FIELD = re.compile(
    r"(?:^|[_.\- ])(?:api[_-]?key|x-api-key|key|token|password|passwd|pwd|secret|credentials?|"
    r"auth|authorization|bearer|cookie|access[_-]?key|private[_-]?key)$",
    re.IGNORECASE,
)
_CAPITAL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_VARIABLE = re.compile(r"(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD|_CREDENTIALS)$", re.IGNORECASE)
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s@\\\"'<>]+@")
_BEARER = re.compile(
    # a credential after the scheme: 16+ token characters with a digit ("Basic Instinct" is a film)
    r"(?P<head>\b(?:Bearer|Basic|bearer)\s+)(?=[A-Za-z0-9._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{16,}"
)
_HEADER_TEXT = re.compile(
    r"(?P<head>\b(?:x-api-key|api[-_]?key|x-goog-api-key|proxy-authorization)\s*[:=]\s*)"
    r"(?P<quote>[\"']?)(?P<value>[^\s\"',;}]{4,})",
    re.IGNORECASE,
)
_JSON_FIELD = re.compile(r'"(?P<name>[^"\\]{1,80})"(?P<sep>\s*:\s*)"(?P<value>(?:[^"\\]|\\.)*)"')


def is_secret_field(name: str) -> bool:
    """True when a field named ``name`` holds a secret, in any case style (``openaiApiKey``)."""
    if name in ("api_key_env", "apiKeyEnv"):
        return False
    return bool(_SECRET_FIELD.search(_CAPITAL.sub("_", name)))


def shown_url(url: str) -> str:
    """``url`` with any credentials in it (``user:pass@``) replaced, for messages."""
    return _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", url)


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


_TEXT_FIELD = re.compile(
    r"(?:api[_-]?key|secret|passw(?:or)?d|credentials?|authorization|bearer|cookie|"
    r"(?:access|auth|refresh|id|bearer)[_-]?token|(?:access|private|secret)[_-]?key)$",
    re.IGNORECASE,
)
"""In JSON text, only a field whose name plainly says credential is redacted: ``key`` and
``token`` alone name other things there (an entity's ``key``)."""


def _json_field(match: re.Match[str]) -> str:
    name = _CAPITAL.sub("_", match.group("name"))
    if not _TEXT_FIELD.search(name) or not match.group("value"):
        return match.group(0)
    return f'"{match.group("name")}"{match.group("sep")}"{REDACTED}"'


def _patterns(text: str) -> str:
    if "://" in text:
        text = _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", text)
    text = _BEARER.sub(lambda m: m.group("head") + REDACTED, text)
    text = _HEADER_TEXT.sub(lambda m: m.group("head") + m.group("quote") + REDACTED, text)
    if '"' in text:
        text = _JSON_FIELD.sub(_json_field, text)
    return text


def _replace(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _patterns(text)


def scrub_text(text: str, env: Mapping[str, str] | None = None, names: Iterable[str] = ()) -> str:
    """``text`` with every secret it holds replaced by ``<redacted>`` (see the module)."""
    return _replace(text, secret_values(env, names))


def _strip(value: Any, secrets: list[str], depth: int = 0) -> Any:
    if depth > 200:
        return REDACTED
    if isinstance(value, Mapping):
        return {
            key: _strip(item, secrets, depth + 1)
            for key, item in value.items()
            if not (isinstance(key, str) and is_secret_field(key))
        }
    if isinstance(value, list | tuple):
        return type(value)(_strip(item, secrets, depth + 1) for item in value)
    if isinstance(value, str):
        return _replace(value, secrets)
    return value
