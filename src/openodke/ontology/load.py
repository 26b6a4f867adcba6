"""Reading an ontology: a JSON or YAML file to a mapping, a mapping to a checked model, pydantic
classes to a mapping. The public loaders are :class:`~openodke.ontology.Ontology`'s classmethods
and the ``ontology_from_*`` functions beside it (``ontology.py``); these are the steps they take.

Loading is strict by default: every problem (unknown keys, wrong values, and what ``validate()``
finds) is gathered and raised at once as an OntologyLoadError, one ``dotted.path: message`` each.
"""

from __future__ import annotations

import enum
import json
import types
import typing
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from openodke.errors import InputError, OntologyLoadError
from openodke.ontology.checks import check_ontology, did_you_mean
from openodke.ontology.model import EntityType, OntologyData, Predicate, Qualifier
from openodke.safeio import decode, load_yaml, max_yaml_bytes, parse_json, read_bytes

__all__ = ["build", "pydantic_mapping", "read_json", "read_yaml"]

OntologyT = TypeVar("OntologyT", bound=OntologyData)


def build(
    model: type[OntologyT], data: Any, *, strict: bool = True, path: str | Path | None = None
) -> OntologyT:
    """Build ``model`` from a mapping; OntologyLoadError lists every problem found.

    With ``strict=False`` only what stops the model being built (an unknown key, a wrong value)
    raises; the problems ``validate()`` finds are left for the caller to read.
    """
    where = None if path is None else str(path)
    if not isinstance(data, dict):
        raise OntologyLoadError(
            [f"expected an object at the top level, got {type(data).__name__}"], path=where
        )
    try:
        ontology = model.model_validate(data)
    except ValidationError as error:
        raise OntologyLoadError(_problems(error), path=where) from None
    if strict:
        errors = [str(d) for d in check_ontology(ontology) if d.severity == "error"]
        if errors:
            raise OntologyLoadError(errors, path=where)
    return ontology


def read_json(path: str | Path) -> Any:
    """An ontology JSON file's data; invalid JSON is an InputError at ``path:line``."""
    name = str(path)
    data = read_bytes(name, what="an ontology file")
    if not data.strip().lstrip(b"\xef\xbb\xbf").strip():
        raise InputError("empty file: expected an ontology object", path=name)
    return parse_json(data, path=name)


def read_yaml(path: str | Path) -> Any:
    """An ontology YAML file's data; invalid YAML is an InputError at ``path:line``; anchors
    and aliases are bounded (:mod:`openodke.safeio`)."""
    name = str(path)
    raw = read_bytes(
        name, what="an ontology file", limit=max_yaml_bytes(), variable="ODKE_MAX_YAML_MB"
    )
    text = decode(raw, path=name)
    if not text.strip():
        raise InputError("empty file: expected an ontology object", path=name)
    return load_yaml(text, path=name)


_FIELDS_AT: dict[str, type[BaseModel]] = {
    "types": EntityType,
    "predicates": Predicate,
}


def _problems(error: ValidationError) -> list[str]:
    """Every pydantic error as ``dotted.path: message``, unknown keys with a did-you-mean."""
    problems: list[str] = []
    for item in error.errors():
        loc = [str(part) for part in item["loc"]]
        where = ".".join(loc) or "ontology"
        if item["type"] == "extra_forbidden":
            hint = did_you_mean(loc[-1], _model_at(loc[:-1]).model_fields)
            problems.append(f"{where}: unknown key{hint}")
        elif item["type"] == "missing":
            problems.append(f"{where}: missing required field")
        else:
            found = item.get("input")
            got = ""
            if not isinstance(found, dict | list) and item["type"] != "value_error":
                got = f", got {json.dumps(found, default=str)[:60]}"
            problems.append(f"{where}: {item['msg']}{got}")
    return problems


def _model_at(loc: list[str]) -> type[BaseModel]:
    if len(loc) >= 2 and loc[0] in _FIELDS_AT:
        if len(loc) >= 4 and loc[0] == "predicates" and loc[2] == "qualifiers":
            return Qualifier
        return _FIELDS_AT[loc[0]]
    return OntologyData


_LITERALS: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    datetime: "datetime",
    date: "date",
}


def pydantic_mapping(*models: type[BaseModel], name: str = "untitled") -> dict[str, Any]:
    """The ontology mapping pydantic classes describe (see ``ontology_from_pydantic``)."""
    known = {model.__name__: model for model in models}
    data: dict[str, Any] = {"name": name, "types": {}, "predicates": {}}
    problems: list[str] = []
    for model in models:
        doc = (model.__doc__ or "").strip().split("\n\n")[0]
        data["types"][model.__name__] = {"description": " ".join(doc.split())}
        for field_name, field in model.model_fields.items():
            target, multi = _unwrap(field.annotation)
            if (
                isinstance(target, type)
                and target.__name__ in known
                and target is known[target.__name__]
            ):
                range_name = target.__name__
            else:
                range_name = _literal_name(target)
            entry = data["predicates"].setdefault(
                field_name,
                {
                    "description": field.description or "",
                    "range": range_name,
                    "cardinality": "multi" if multi else "single",
                    "domain": [],
                    "required": field.is_required(),
                },
            )
            if entry["range"] != range_name:
                problems.append(
                    f"{model.__name__}.{field_name}: range '{range_name}' differs from "
                    f"'{entry['range']}' on another class"
                )
            entry["domain"].append(model.__name__)
    if problems:
        raise OntologyLoadError(problems)
    return data


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """The innermost type of an annotation, and whether a collection wrapped it."""
    multi = False
    while True:
        origin = typing.get_origin(annotation)
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if origin in (typing.Union, types.UnionType) and len(args) == 1:
            annotation = args[0]
        elif origin in (list, tuple, set, frozenset) and args:
            multi = True
            annotation = args[0]
        elif origin is typing.Annotated and args:
            annotation = args[0]
        else:
            return annotation, multi


def _literal_name(target: Any) -> str:
    if isinstance(target, type):
        if issubclass(target, enum.Enum):
            return "string"
        for base, literal in _LITERALS.items():
            if issubclass(target, base):
                return literal
    return "string"
