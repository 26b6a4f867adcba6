"""``load_config`` and ``parse_config``: a run config checked key by key, every problem listed.

Each problem is one ``path:line: key: what is wrong`` (an unknown key with a did-you-mean; a name
out of scope as ``<name> is not built``), and all of them are raised together as a ConfigError
(exit 2). Relative paths resolve against the config's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.run import sections
from openodke.run.config import ConfigError, RunConfig
from openodke.run.options import NOT_BUILT_KEYS
from openodke.run.problems import Problems, resolve_path, shown_value
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
    "prices",
    "cache",
    "calibration",
    "batch",
)
"""Every top-level key of a run config."""

_REQUIRED = ("ontology", "inputs", "stages")
_NOT_BUILT_ONTOLOGY = {".owl": "OWL ontology import", ".ttl": "OWL ontology import", ".rdf": "RDF"}


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
    found = Problems(where, lines or LineMap())
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
            ontology = resolve_path(base, value)
            suffix = ontology.suffix.casefold()
            if suffix in _NOT_BUILT_ONTOLOGY:
                found.not_built(("ontology",), _NOT_BUILT_ONTOLOGY[suffix])
            elif not ontology.is_file():
                found.add(("ontology",), f"no such file: {ontology}")
    inputs = sections.inputs(found, mapping["inputs"], base) if "inputs" in mapping else []
    stages = sections.stages(found, mapping["stages"]) if "stages" in mapping else None
    models = sections.models(found, mapping.get("models"), base)
    inverses = found.check(("inverses",), bool | None, mapping.get("inverses"))
    coverage = found.check(("coverage",), bool, mapping.get("coverage", True))
    batch = found.check(("batch",), bool, mapping.get("batch", False))
    reextract = sections.reextract(found, mapping.get("reextract"))
    budget = sections.budget(found, mapping.get("budget"))
    sections.prices(found, mapping.get("prices"))
    cache: Path | bool | None = None
    raw_cache = mapping.get("cache")
    if raw_cache is False:
        cache = False
    elif isinstance(raw_cache, str) and raw_cache.strip():
        cache = resolve_path(base, raw_cache)
    elif raw_cache not in (None, True):
        found.add(("cache",), f"expected a folder or false, got {shown_value(raw_cache)}")
    pythonpath = sections.paths(found, "pythonpath", mapping.get("pythonpath"), base)
    calibration = sections.paths(found, "calibration", mapping.get("calibration"), base)
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
        batch=bool(batch),
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
