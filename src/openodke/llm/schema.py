"""Answers checked against their schema, and schemas made valid for OpenAI's strict mode.

``strict_schema`` rewrites a JSON schema the way OpenAI's ``strict: true`` structured output
requires: every object gets ``additionalProperties: false`` and lists every property as
required, and a property that was optional becomes nullable (``null`` added to its type, or its
``enum``). A free-form object (no ``properties``) cannot be strict: the function returns None and
the schema is sent without ``strict`` (DECISIONS #141).

``schema_problem`` is what the client checks an answer with: None when the parsed answer fits,
else the first problem, as ``at entities/0/facts: 'quote' is a required property``.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping
from typing import Any

__all__ = ["schema_problem", "strict_schema"]

_validators: dict[str, Any] = {}
_lock = threading.Lock()


class _NotStrict(Exception):
    pass


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    if isinstance(kind, str):
        node["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list):
        if "null" not in kind:
            node["type"] = [*kind, "null"]
    else:
        return {"anyOf": [node, {"type": "null"}]}
    if isinstance(node.get("enum"), list) and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def _strict(node: Any, depth: int = 0) -> Any:
    if depth > 64 or not isinstance(node, dict):
        if depth > 64:
            raise _NotStrict
        return node
    node = dict(node)
    kinds = node.get("type")
    is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds)
    if is_object:
        properties = node.get("properties")
        if not isinstance(properties, dict) or not properties:
            raise _NotStrict  # a free-form object: strict mode has no way to say it
        required = set(node.get("required") or ())
        strict_props = {}
        for name, sub in properties.items():
            sub = _strict(sub, depth + 1)
            if name not in required and isinstance(sub, dict):
                sub = _nullable(dict(sub))
            strict_props[name] = sub
        node["properties"] = strict_props
        node["required"] = list(properties)
        node["additionalProperties"] = False
    if "items" in node:
        node["items"] = _strict(node["items"], depth + 1)
    for combinator in ("anyOf", "oneOf", "allOf"):
        if isinstance(node.get(combinator), list):
            node[combinator] = [_strict(sub, depth + 1) for sub in node[combinator]]
    return node


_strict_made: dict[str, dict[str, Any] | None] = {}


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """``schema`` rewritten for OpenAI's strict mode, or None when it cannot be (see the module).

    Made once per schema (every call of a run sends the same one, twice: the body and the
    check); the result is shared, so it must not be changed."""
    text = json.dumps(schema, sort_keys=True)
    if text in _strict_made:
        return _strict_made[text]
    try:
        result = _strict(copy.deepcopy(dict(schema)))
    except _NotStrict:
        result = None
    made = result if isinstance(result, dict) and result.get("type") == "object" else None
    with _lock:
        if len(_strict_made) > 256:
            _strict_made.clear()
        _strict_made[text] = made
    return made


def _validator(schema: Mapping[str, Any]) -> Any:
    import jsonschema  # here: a run answered from the cache checks nothing (~0.1 s of start-up)

    text = json.dumps(schema, sort_keys=True)
    with _lock:
        found = _validators.get(text)
        if found is None:
            cls = jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft202012Validator
            )
            found = cls(schema)
            if len(_validators) > 256:
                _validators.clear()
            _validators[text] = found
    return found


def schema_problem(parsed: Any, schema: Mapping[str, Any]) -> str | None:
    """None when ``parsed`` fits ``schema``; else its first problem, where it is and what."""
    import jsonschema

    try:
        error = jsonschema.exceptions.best_match(_validator(schema).iter_errors(parsed))
    except jsonschema.exceptions.SchemaError as problem:
        return f"the schema itself is invalid: {problem.message}"
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return f"at {where}: {message}" if where else message
