"""``load_config`` and ``parse_config``: a run config checked key by key, every problem listed.

Each problem is one ``path:line: key: what is wrong`` (an unknown key with a did-you-mean; a name
out of scope as ``<name> is not built``), and all of them are raised together as a ConfigError
(exit 2). Relative paths resolve against the config's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from openodke.errors import InputError
from openodke.llm import ModelRoles, ModelSpec
from openodke.llm.base import EXTRACT_MAX_TOKENS, GROUND_MAX_TOKENS
from openodke.ontology.checks import did_you_mean
from openodke.run.config import (
    Budget,
    ConfigError,
    InputSpec,
    ModelsConfig,
    Reextract,
    RunConfig,
    Stages,
    StageSpec,
)
from openodke.run.options import KINDS, NOT_BUILT, NOT_BUILT_KEYS, STAGE_OPTIONS, option_fields
from openodke.run.source import LineMap, read_source

__all__ = ["TOP_KEYS", "load_config", "parse_config"]

TOP_KEYS = (
    "ontology",
    "inputs",
    "pythonpath",
    "models",
    "stages",
    "inverses",
    "coverage",
    "reextract",
    "budget",
    "cache",
    "calibration",
)
"""Every top-level key of a run config."""

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
_NOT_BUILT_ONTOLOGY = {".owl": "OWL ontology import", ".ttl": "OWL ontology import", ".rdf": "RDF"}

Loc = tuple[str | int, ...]


def _dotted(loc: Loc) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class _Problems:
    """Collects problems, each placed at the line of its key path."""

    def __init__(self, path: str, lines: LineMap) -> None:
        self.path = path
        self.lines = lines
        self.found: list[InputError] = []

    def add(self, loc: Loc, message: str) -> None:
        where = _dotted(loc)
        text = f"{where}: {message}" if where else message
        self.found.append(InputError(text, path=self.path, line=self.lines.line(loc)))

    def not_built(self, loc: Loc, name: str) -> None:
        self.found.append(
            InputError(f"{name} is not built", path=self.path, line=self.lines.line(loc))
        )

    def unknown(self, loc: Loc, key: str, known: list[str]) -> None:
        self.add(
            (*loc, key),
            f"unknown key{did_you_mean(key, known)}; expected one of " + ", ".join(known),
        )

    def pydantic(self, loc: Loc, error: ValidationError, known: list[str] | None = None) -> None:
        for item in error.errors():
            at = (*loc, *item["loc"])
            if item["type"] == "extra_forbidden":
                key = str(item["loc"][-1])
                choices = known if known is not None else []
                self.add(
                    at,
                    f"unknown option{did_you_mean(key, choices)}"
                    + (f"; its options: {', '.join(choices)}" if choices else ""),
                )
            elif item["type"] == "missing":
                self.add(at, "required")
            else:
                self.add(at, _message(item))

    def check(self, loc: Loc, kind: Any, value: Any) -> Any:
        try:
            return TypeAdapter(kind).validate_python(value)
        except ValidationError as error:
            self.pydantic(loc, error)
            return None


def _message(item: Any) -> str:
    message = str(item["msg"]).removeprefix("Value error, ")
    if (
        "input" in item
        and item["type"] not in ("value_error",)
        and not isinstance(item["input"], dict | list)
    ):
        return f"{message}, got {item['input']!r}"
    return message


def _resolve(base_dir: Path, value: str | Path) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else (base_dir / path)


# -- stages ---------------------------------------------------------------------------------


def _stage(problems: _Problems, kind: str, loc: Loc, value: Any) -> StageSpec | None:
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


def _stages(problems: _Problems, value: Any) -> Stages | None:
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
    if "extractor" not in value:
        problems.add(("stages",), "stages.extractor is required (llm, pattern, hybrid or triples)")
        return None
    if any(v is None for k, v in found.items() if k != "sink"):
        return None
    return Stages(**found)


# -- inputs ---------------------------------------------------------------------------------


def _inputs(problems: _Problems, value: Any, base_dir: Path) -> list[InputSpec]:
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
        path = _resolve(base_dir, where)
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


def _models(problems: _Problems, value: Any, base_dir: Path) -> ModelsConfig:
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
                    path = _resolve(base_dir, file)
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


def _reextract(problems: _Problems, value: Any) -> Reextract | None:
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


def _budget(problems: _Problems, value: Any) -> Budget | None:
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


def _paths(problems: _Problems, key: str, value: Any, base_dir: Path) -> list[Path]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        problems.add((key,), "expected a list of paths")
        return []
    out = []
    for index, item in enumerate(items):
        path = _resolve(base_dir, item)
        if not path.exists():
            problems.add((key, index), f"no such file or folder: {path}")
        out.append(path)
    return out


def parse_config(
    mapping: Mapping[str, Any],
    base_dir: str | Path | None = None,
    *,
    path: str | Path | None = None,
    lines: LineMap | None = None,
    problems: list[InputError] | None = None,
) -> RunConfig:
    """A RunConfig from a mapping, every key checked; ConfigError lists every problem.

    ``base_dir``: where relative paths resolve (the config's folder; default the working
    directory). ``path`` and ``lines`` place each problem at ``path:line``.
    """
    where = str(path) if path is not None else "run config"
    base = Path(base_dir) if base_dir is not None else (Path(path).parent if path else Path.cwd())
    base = base.resolve()
    found = _Problems(where, lines or LineMap())
    found.found.extend(problems or [])
    if not isinstance(mapping, Mapping):
        found.add((), "expected a mapping of keys (ontology, inputs, stages, ...)")
        raise ConfigError(found.found)
    for key in mapping:
        name = str(key)
        if name in NOT_BUILT_KEYS:
            found.not_built((name,), NOT_BUILT_KEYS[name])
        elif name not in TOP_KEYS:
            found.unknown((), name, list(TOP_KEYS))
    for key in _REQUIRED:
        if key not in mapping:
            found.add((), f"{key} is required")
    ontology = None
    if "ontology" in mapping:
        value = mapping["ontology"]
        if not isinstance(value, str) or not value.strip():
            found.add(("ontology",), "expected a path to an ontology (JSON or YAML)")
        else:
            ontology = _resolve(base, value)
            suffix = ontology.suffix.casefold()
            if suffix in _NOT_BUILT_ONTOLOGY:
                found.not_built(("ontology",), _NOT_BUILT_ONTOLOGY[suffix])
            elif not ontology.is_file():
                found.add(("ontology",), f"no such file: {ontology}")
    inputs = _inputs(found, mapping["inputs"], base) if "inputs" in mapping else []
    stages = _stages(found, mapping["stages"]) if "stages" in mapping else None
    models = _models(found, mapping.get("models"), base)
    inverses = found.check(("inverses",), bool | None, mapping.get("inverses"))
    coverage = found.check(("coverage",), bool, mapping.get("coverage", True))
    reextract = _reextract(found, mapping.get("reextract"))
    budget = _budget(found, mapping.get("budget"))
    cache: Path | bool | None = None
    raw_cache = mapping.get("cache")
    if raw_cache is False:
        cache = False
    elif isinstance(raw_cache, str) and raw_cache.strip():
        cache = _resolve(base, raw_cache)
    elif raw_cache not in (None, True):
        found.add(("cache",), f"expected a folder or false, got {raw_cache!r}")
    pythonpath = _paths(found, "pythonpath", mapping.get("pythonpath"), base)
    calibration = _paths(found, "calibration", mapping.get("calibration"), base)
    if found.found or ontology is None or stages is None:
        problems_found = sorted(
            found.found, key=lambda p: p.line if p.line is not None else 1 << 30
        )
        raise ConfigError(problems_found or [InputError("invalid run config", path=where)])
    return RunConfig(
        ontology=ontology,
        inputs=tuple(inputs),
        pythonpath=tuple(pythonpath),
        models=models,
        stages=stages,
        inverses=inverses,
        coverage=bool(coverage),
        reextract=reextract,
        budget=budget,
        cache=cache,
        calibration=tuple(calibration),
        base_dir=base,
        path=Path(path).resolve() if path is not None else None,
        raw=dict(mapping),
    )


def load_config(path: str | Path) -> RunConfig:
    """The run config at ``path`` (YAML, or JSON by suffix), every problem listed with its line."""
    source = read_source(path)
    file = Path(path)
    return parse_config(
        source.data if source.data is not None else {},
        file.resolve().parent,
        path=file,
        lines=source.lines,
        problems=source.problems,
    )
