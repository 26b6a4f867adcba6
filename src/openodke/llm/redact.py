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


_KEY_NAMES: dict[frozenset[Any], tuple[str, ...]] = {}


def _key_names(env: Mapping[str, str]) -> tuple[str, ...]:
    """The key variables' names in ``env`` (``*_API_KEY`` ..., the providers'), found once per
    set of names: every model call scrubs its answer, and reading all of ``os.environ`` each
    time cost more than the call's own work."""
    raw = getattr(env, "_data", None) if env is os.environ else None
    names = frozenset(raw if raw is not None else env)  # os.environ's bytes: no decoding
    found = _KEY_NAMES.get(names)
    if found is None:
        providers = _provider_variables()
        found = tuple(n for n in env if _KEY_VARIABLE.search(n) or n in providers)
        if len(_KEY_NAMES) > 64:
            _KEY_NAMES.clear()
        _KEY_NAMES[names] = found
    return found


def secret_values(env: Mapping[str, str] | None = None, names: Iterable[str] = ()) -> list[str]:
    """The values (8 characters or more) of the key variables set in ``env``: names like
    ``*_API_KEY``, the providers' variables and ``names``; longest first."""
    env = os.environ if env is None else env
    values = set()
    for name in (*_key_names(env), *names):
        value = env.get(name)
        if value is not None and len(value) >= _SHORTEST:
            values.add(value)
    return sorted(values, key=len, reverse=True)


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


_HEADER_HINTS = ("api-key", "api_key", "apikey", "proxy-authorization")
_FIELD_HINTS = (
    'secret"',
    'passwd"',
    'password"',
    'credential"',
    'credentials"',
    'authorization"',
    'bearer"',
    'cookie"',
    'token"',
)


def _may_name_a_credential(lower: str) -> bool:
    """Whether lower-cased JSON text may hold a field ``_TEXT_FIELD`` names: every such name ends
    in one of the hints or in ``key`` after more letters (a bare ``"key"`` never is one)."""
    if lower.count('key"') > lower.count('"key"'):
        return True
    return any(hint in lower for hint in _FIELD_HINTS)


def _patterns(text: str) -> str:
    # Each pattern runs only when the words it needs are in the text: a substring test is ~100x
    # cheaper than a scan (a 1,000-fact facts.jsonl took 0.35 s to scrub, 18,000 JSON pairs).
    if "://" in text:
        text = _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", text)
    if "earer" in text or "Basic" in text:
        text = _BEARER.sub(lambda m: m.group("head") + REDACTED, text)
    lower = text.lower()
    if any(hint in lower for hint in _HEADER_HINTS):
        text = _HEADER_TEXT.sub(lambda m: m.group("head") + m.group("quote") + REDACTED, text)
    if '"' in text and _may_name_a_credential(lower):
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
