"""The sections of a run config, each parsed into its model with every problem recorded."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openodke.errors import InputError
from openodke.llm import ModelRoles, ModelSpec
from openodke.llm.base import EXTRACT_MAX_TOKENS, GROUND_MAX_TOKENS
from openodke.ontology.checks import did_you_mean
from openodke.run.config import (
    Budget,
    InputSpec,
    ModelsConfig,
    Reextract,
    Stages,
    StageSpec,
)
from openodke.run.options import KINDS, NOT_BUILT, NOT_BUILT_KEYS, STAGE_OPTIONS, option_fields
from openodke.run.problems import Loc, Problems, resolve_path

__all__ = ["budget", "inputs", "models", "paths", "reextract", "stages"]

_REQUIRED = ("ontology", "inputs", "stages")
_ROLES = ("extract", "ground")
_MODEL_KEYS = (*_ROLES, "replay", "meter")
_LOADER_BY_SUFFIX = {".md": "markdown", ".markdown": "markdown", ".jsonl": "jsonl", ".csv": "csv"}
_NOT_BUILT_SUFFIX = {
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".doc": "docx",
}


# -- stages ---------------------------------------------------------------------------------


def _stage(problems: Problems, kind: str, loc: Loc, value: Any) -> StageSpec | None:
    if isinstance(value, str) and value.strip():
        name, options = value.strip(), {}
    elif isinstance(value, Mapping):
        options = dict(value)
        name = options.pop("use", None)
        if not isinstance(name, str) or not name.strip():
            problems.add(loc, "a stage mapping needs `use: <name>`")
            return None
        name = name.strip()
    else:
        problems.add(loc, f"expected a stage name or {{use: name, ...}}, got {value!r}")
        return None
    line = problems.lines.line(loc)
    if ":" in name:
        module, _, attribute = name.rpartition(":")
        if not module or not attribute.isidentifier():
            problems.add(loc, f"{name!r}: expected package.module:Name (or path/to/file.py:Name)")
            return None
        return StageSpec(use=name, options=options, line=line)
    folded = name.casefold()
    if folded in NOT_BUILT.get(kind, ()):
        problems.not_built(loc, name)
        return None
    built = STAGE_OPTIONS[kind]
    if folded not in built:
        choices = list(built)
        problems.add(
            loc,
            f"unknown {kind} {name!r}{did_you_mean(name, choices)}; built: {', '.join(choices)}"
            " (or a custom class, package.module:Name)",
        )
        return None
    try:
        built[folded].model_validate(options)
    except ValidationError as error:
        problems.pydantic(loc, error, option_fields(kind, folded))
        return None
    return StageSpec(use=folded, options=options, line=line)


def stages(problems: Problems, value: Any) -> Stages | None:
    if not isinstance(value, Mapping):
        problems.add(("stages",), "expected a mapping of stage → name or {use: name, ...}")
        return None
    known = list(KINDS)
    found: dict[str, Any] = {}
    for key, item in value.items():
        key = str(key)
        if key == "loader":
            problems.add(("stages", key), "the loader is set per input: inputs: [{path, loader}]")
            continue
        if key not in known:
            problems.unknown(("stages",), key, known)
            continue
        loc: Loc = ("stages", key)
        if key == "sink":
            items = item if isinstance(item, list) else [item]
            sinks = [
                _stage(problems, key, (*loc, i) if isinstance(item, list) else loc, s)
                for i, s in enumerate(items)
            ]
            found[key] = tuple(s for s in sinks if s is not None)
        elif item is not None:
            found[key] = _stage(problems, key, loc, item)
    if value.get("extractor") is None:  # missing, or written with no value (extractor: null)
        where: Loc = ("stages", "extractor") if "extractor" in value else ("stages",)
        problems.add(where, "stages.extractor is required (llm, pattern, hybrid or triples)")
        return None
    if any(v is None for k, v in found.items() if k != "sink"):
        return None
    return Stages(**found)


# -- inputs ---------------------------------------------------------------------------------


def inputs(problems: Problems, value: Any, base_dir: Path) -> list[InputSpec]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        problems.add(("inputs",), "give at least one input: a path, or {path, loader, ...}")
        return []
    out = []
    for index, item in enumerate(value):
        loc: Loc = ("inputs", index)
        if isinstance(item, str | Path) and str(item).strip():
            where, options, name = str(item), {}, None
        elif isinstance(item, Mapping):
            options = dict(item)
            where = options.pop("path", None)
            name = options.pop("loader", None)
            if not isinstance(where, str) or not where.strip():
                problems.add(loc, "needs a path")
                continue
        else:
            problems.add(loc, f"expected a path or {{path, loader, ...}}, got {item!r}")
            continue
        path = resolve_path(base_dir, where)
        if isinstance(name, Mapping):
            options = {**dict(name), **options}
            name = options.pop("use", None)
        if name is None:
            suffix = path.suffix.casefold()
            name = "directory" if path.is_dir() else _LOADER_BY_SUFFIX.get(suffix)
            name = name or _NOT_BUILT_SUFFIX.get(suffix, "text")
        spec = _stage(problems, "loader", loc, {"use": name, **options})
        if not path.exists():
            problems.add(
                (*loc, "path") if isinstance(item, Mapping) else loc,
                f"no such file or folder: {path}",
            )
        if spec is not None:
            out.append(InputSpec(path=path, loader=spec))
    return out


# -- models ---------------------------------------------------------------------------------


def models(problems: Problems, value: Any, base_dir: Path) -> ModelsConfig:
    if value is None:
        return ModelsConfig()
    if not isinstance(value, Mapping):
        problems.add(("models",), "expected a mapping: extract, ground, replay, meter")
        return ModelsConfig()
    specs: dict[str, ModelSpec] = {}
    for key, item in value.items():
        key = str(key)
        if key in NOT_BUILT_KEYS and key not in _MODEL_KEYS:
            problems.not_built(("models", key), NOT_BUILT_KEYS[key])
            continue
        if key not in _MODEL_KEYS:
            problems.unknown(("models",), key, list(_MODEL_KEYS))
            continue
        if key in _ROLES:
            tokens = EXTRACT_MAX_TOKENS if key == "extract" else GROUND_MAX_TOKENS
            try:
                specs[key] = ModelSpec.parse(item, max_tokens=tokens)
            except ValidationError as error:
                problems.pydantic(("models", key), error, list(ModelSpec.model_fields))
            except TypeError:
                problems.add(("models", key), "expected a model string or a mapping (model, ...)")
    roles = ModelRoles()
    if "ground" in specs:
        roles = ModelRoles(**specs)
    elif "extract" in specs:
        roles = ModelRoles.single(specs["extract"])
        if isinstance(value.get("extract"), Mapping) and "max_tokens" in value["extract"]:
            roles = ModelRoles(extract=specs["extract"], ground=roles.ground)
    replay: dict[str, Path] = {}
    raw_replay = value.get("replay")
    if raw_replay is not None:
        if not isinstance(raw_replay, Mapping):
            problems.add(
                ("models", "replay"), "expected role → file: {extract: x.json, ground: y.json}"
            )
        else:
            for role, file in raw_replay.items():
                if role not in _ROLES:
                    problems.unknown(("models", "replay"), str(role), list(_ROLES))
                elif not isinstance(file, str):
                    problems.add(("models", "replay", role), "expected a file path")
                else:
                    path = resolve_path(base_dir, file)
                    if not path.is_file():
                        problems.add(("models", "replay", role), f"no such file: {path}")
                    replay[role] = path
    meter = problems.check(("models", "meter"), bool, value.get("meter", False))
    return ModelsConfig(
        roles=roles,
        given=tuple(r for r in _ROLES if r in specs),
        replay=replay,
        meter=bool(meter),
    )


# -- the rest -------------------------------------------------------------------------------


def reextract(problems: Problems, value: Any) -> Reextract | None:
    if value is None or value is False:
        return None
    if value is True:
        return Reextract()
    if isinstance(value, Mapping):
        try:
            return Reextract.model_validate(dict(value))
        except ValidationError as error:
            problems.pydantic(("reextract",), error, ["windows"])
            return None
    problems.add(("reextract",), f"expected true, false or {{windows: N}}, got {value!r}")
    return None


def budget(problems: Problems, value: Any) -> Budget | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        problems.add(("budget",), "expected {usd: X, calls: N}")
        return None
    ok = True
    for key in value:
        if key not in ("usd", "calls"):
            hint = did_you_mean(str(key), ["usd", "calls"])
            if hint:
                problems.unknown(("budget",), str(key), ["usd", "calls"])
            else:
                problems.not_built(("budget", key), f"budget.{key}")
            ok = False
    if not ok:
        return None
    try:
        return Budget.model_validate(dict(value))
    except ValidationError as error:
        problems.pydantic(("budget",), error, ["usd", "calls"])
        return None


def prices(problems: Problems, value: Any) -> None:
    """``prices: {MODEL: {input, output}}``: installed for the process, before the table's."""
    from openodke.llm.prices import add_prices, parse_prices

    try:
        add_prices(parse_prices(value), layer="config")
    except InputError as error:
        problems.found.append(
            InputError(error.message, path=problems.path, line=problems.lines.line(("prices",)))
        )


def paths(problems: Problems, key: str, value: Any, base_dir: Path) -> list[Path]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        problems.add((key,), "expected a list of paths")
        return []
    out = []
    for index, item in enumerate(items):
        path = resolve_path(base_dir, item)
        if not path.exists():
            problems.add((key, index), f"no such file or folder: {path}")
        out.append(path)
    return out
