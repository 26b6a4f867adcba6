"""``--trace``: what the extractor was offered, read from a run's manifest or its config, no call.

A manifest (``manifest.json``: it has ``manifest_version`` or ``stats``) gives ``stats.coverage``
(``{snippet_limit, offered: {type: [predicates]}, never_offered: ...}``) directly; one without it
falls back to its resolved ``config``. A run config (``odke.yaml`` / ``odke.json``) gives the
extractor's ``types`` and ``snippet_limit`` (25 when unset), which the ontology's snippets turn into
the relations offered per type. Extractors:

- ``llm``: its ``types`` and ``snippet_limit``;
- ``hybrid``: its ``llm`` options as for ``llm``, as the run's own ``stats.coverage`` records it (the
  model part's: the pattern reads only the records its mappings name, so a relation the model
  was never shown is never offered in the texts it reads); ``llm: false`` is the pattern alone;
- ``pattern``: the ``mappings``' predicates, offered to ``subject_type`` (every type when unset);
- ``triples`` or a custom extractor: nothing says what it was shown, so bucket 1 stays null (None).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from openodke.errors import InputError, OdkeError
from openodke.eval.diagnosis.models import Offered

if TYPE_CHECKING:  # the ontology and the YAML reader load when a trace is read: most runs give none
    from openodke.ontology import Ontology

__all__ = [
    "config_from_trace",
    "models_from_trace",
    "offered_from_config",
    "offered_from_trace",
    "read_trace",
]


def read_trace(path: str | Path) -> dict[str, Any]:
    """The trace file's mapping (YAML by suffix, else JSON); InputError when unreadable."""
    from openodke.safeio import read_json, read_yaml

    file = Path(path)
    if file.suffix.casefold() in (".yaml", ".yml"):
        data = read_yaml(file, what="a manifest or run config")
    else:
        data = read_json(file, what="a manifest or run config")
    if not isinstance(data, dict):
        raise InputError("expected a manifest or run config (a mapping)", path=str(file))
    return data


def _is_manifest(data: dict[str, Any]) -> bool:
    return "manifest_version" in data or "stats" in data


def config_from_trace(path: str | Path) -> dict[str, Any] | None:
    """The run config a trace holds: a manifest's ``config``, or the run config itself."""
    data = read_trace(path)
    if _is_manifest(data):
        config = data.get("config")
        return config if isinstance(config, dict) else None
    return data


def _extractor(config: dict[str, Any], where: str) -> dict[str, Any]:
    stages = config.get("stages")
    if not isinstance(stages, dict) or "extractor" not in stages:
        raise InputError("the run config has no stages.extractor", path=where)
    spec = stages["extractor"]
    if isinstance(spec, str):
        return {"use": spec}
    if not isinstance(spec, dict):
        raise InputError("stages.extractor: expected a name or a mapping", path=where)
    return spec


def _llm_offered(ontology: Ontology, options: dict[str, Any]) -> Offered:
    from openodke.ontology.snippet import DEFAULT_SNIPPET_LIMIT

    types = options.get("types")
    limit = options.get("snippet_limit", DEFAULT_SNIPPET_LIMIT)
    return Offered.from_ontology(
        ontology, types=list(types) if types is not None else None, snippet_limit=limit
    )


def _pattern_offered(ontology: Ontology, options: dict[str, Any]) -> dict[str, set[str]]:
    mappings = options.get("mappings") or {}
    predicates = {str(p) for p in (mappings.values() if isinstance(mappings, dict) else ())}
    subject = options.get("subject_type")
    types = [str(subject)] if subject else list(ontology.types)
    return {t: set(predicates) for t in types}


def offered_from_config(
    config: dict[str, Any], ontology: Ontology, *, where: str = "run config"
) -> Offered | None:
    """What a run config's extractor offered each type; None when its extractor cannot say."""
    spec = _extractor(config, where)
    use = spec.get("use")
    if use == "llm":
        return _llm_offered(ontology, spec)
    if use == "pattern":
        return Offered(
            by_type={t: tuple(sorted(p)) for t, p in _pattern_offered(ontology, spec).items()}
        )
    if use == "hybrid":
        llm = spec.get("llm", {})
        pattern = _pattern_offered(ontology, spec.get("pattern") or {})
        if llm is False:
            return Offered(by_type={t: tuple(sorted(p)) for t, p in pattern.items()})
        # What odke run's manifest records for it (HybridExtractor.coverage): the model part's.
        return _llm_offered(ontology, llm if isinstance(llm, dict) else {})
    return None


def _ontology_for(config: dict[str, Any], base: Path, where: str) -> Ontology:
    name = config.get("ontology")
    if not name:
        raise InputError("the run config names no ontology; pass --ontology", path=where)
    from openodke.ontology import Ontology

    path = Path(str(name))
    return Ontology.load(path if path.is_absolute() else base / path)


def offered_from_trace(path: str | Path, ontology: Ontology | None = None) -> Offered | None:
    """What the extractor was offered per type, from a manifest or run config (see module doc).

    ``ontology`` defaults to the one the run config names (relative to its folder). None means
    the trace cannot say (a triples or custom extractor), so bucket 1 stays null.
    """
    file = Path(path)
    data = read_trace(file)
    where = str(file)
    try:
        return _offered(data, file, where, ontology)
    except OdkeError:
        raise
    except (TypeError, ValueError, AttributeError) as error:
        # A value of the wrong type deep in a hand-written config (types: 3, stats: [])
        message = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise InputError(
            f"cannot tell what the extractor was offered: {message}", path=where
        ) from None


def _offered(
    data: dict[str, Any], file: Path, where: str, ontology: Ontology | None
) -> Offered | None:
    if _is_manifest(data):
        coverage = (data.get("stats") or {}).get("coverage")
        if isinstance(coverage, dict) and isinstance(coverage.get("offered"), dict):
            return Offered(
                by_type={str(t): tuple(map(str, ps)) for t, ps in coverage["offered"].items()},
                snippet_limit=coverage.get("snippet_limit"),
            )
        config = data.get("config")
        if not isinstance(config, dict):
            raise InputError("the manifest has neither stats.coverage nor config", path=where)
        data = config
    _extractor(data, where)  # a config without an extractor is wrong before its ontology is read
    if ontology is None:
        ontology = _ontology_for(data, file.parent, where)
    return offered_from_config(data, ontology, where=where)


def models_from_trace(path: str | Path) -> tuple[dict[str, str], list[str]]:
    """The models (role → model) and prompt ids the traced run used: a manifest's ``models``
    (each role's ``served`` model, else ``asked``) and ``prompts``; a run config's ``models``
    (no prompts: a config does not say which ran). Nothing readable: empty."""
    data = read_trace(path)
    if _is_manifest(data):
        found = data.get("models")
        prompts = data.get("prompts")
        listed = [str(p) for p in prompts] if isinstance(prompts, list) else []
    else:
        found, listed = data.get("models"), []
    models: dict[str, str] = {}
    for role, value in (found or {}).items() if isinstance(found, dict) else ():
        if role not in ("extract", "ground"):
            continue  # replay, cache, meter: not a model
        if isinstance(value, dict):
            value = value.get("served") or value.get("asked") or value.get("model")
        if isinstance(value, str) and value:
            models[str(role)] = value
    return models, listed
