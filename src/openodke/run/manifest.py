"""What a run adds to ``manifest.json``, and ``--from-manifest``: replaying a recorded run.

The run's keys go after the sink's, never replacing one: ``manifest_version`` (1),
``config_sha256`` and ``config`` (resolved: paths absolute, the models as run; secrets
redacted), ``config_dir`` (the config's folder, which document ids are relative to), ``models``
(per role ``asked`` and ``served``), ``prompts``, ``ontology_fingerprint``, ``documents_sha256``
(id → SHA-256 of its text), ``openodke``, ``started_at`` and ``finished_at``.

**Secrets.** A config value under a key named like a secret (``api_key``, ``token``,
``password``, ``secret``, ``authorization``, ...) is written as ``<redacted>``, and any string
holding the value of a key variable set in the environment is redacted too
(``openodke.llm.strip_secrets``). ``api_key_env`` names a variable and is kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from openodke import __version__
from openodke.errors import InputError
from openodke.llm import strip_secrets
from openodke.llm.redact import REDACTED
from openodke.ontology import Ontology
from openodke.run.config import RunConfig, StageSpec
from openodke.run.parse import load_config, parse_config
from openodke.safeio import decode, read_bytes, read_json
from openodke.types import Document

__all__ = [
    "MANIFEST_VERSION",
    "check_manifest",
    "config_from_manifest",
    "documents_sha256",
    "manifest_keys",
    "read_manifest",
    "redact",
    "resolved_config",
    "sha256_text",
]

MANIFEST_VERSION = 1

_SECRET = re.compile(
    r"(^|_)(api_?key|key|token|access_token|auth_token|password|passwd|secret|client_secret|"
    r"authorization|bearer|credentials?)$",
    re.IGNORECASE,
)
_PATH_OPTIONS = {("extractor", "path"), ("sink", "directory")}


def sha256_text(text: str) -> str:
    """SHA-256 hex of ``text`` as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def redact(value: Any) -> Any:
    """A copy with every secret-named key's value ``<redacted>`` and key values from the
    environment replaced (see the module docstring)."""

    def walk(item: Any) -> Any:
        if isinstance(item, Mapping):
            return {key: REDACTED if _secret_key(key) else walk(v) for key, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        if isinstance(item, str):
            return strip_secrets(item)  # a key variable's value inside any string
        return item

    return walk(value)


def _secret_key(key: Any) -> bool:
    return isinstance(key, str) and key != "api_key_env" and _SECRET.search(key) is not None


def _stage(kind: str, spec: StageSpec, base: Path) -> Any:
    options = dict(spec.options)
    for k, name in _PATH_OPTIONS:
        if k == kind and isinstance(options.get(name), str):
            path = Path(options[name])
            options[name] = str(path if path.is_absolute() else base / path)
    return {"use": spec.use, **options} if options else spec.use


def resolved_config(config: RunConfig, roles: Any = None) -> dict[str, Any]:
    """The config as run: every path absolute, the models as resolved (``--model`` applied),
    each stage as ``{use, ...options}``; keys the config did not set are left out."""
    base = config.base_dir
    out: dict[str, Any] = {"ontology": str(config.ontology)}
    out["inputs"] = [
        {"path": str(item.path), "loader": item.loader.use, **item.loader.options}
        for item in config.inputs
    ]
    if config.pythonpath:
        out["pythonpath"] = [str(p) for p in config.pythonpath]
    roles = roles if roles is not None else config.models.roles
    models: dict[str, Any] = {
        "extract": roles.extract.model_dump(mode="json", exclude_defaults=True),
        "ground": roles.ground.model_dump(mode="json", exclude_defaults=True),
    }
    if config.models.replay:
        models["replay"] = {role: str(path) for role, path in config.models.replay.items()}
    if config.models.meter:
        models["meter"] = True
    out["models"] = models
    stages: dict[str, Any] = {}
    for kind in type(config.stages).model_fields:
        value = getattr(config.stages, kind)
        if kind == "sink":
            if value:
                sinks = [_stage(kind, s, base) for s in value]
                stages[kind] = sinks[0] if len(sinks) == 1 else sinks
        elif value is not None:
            stages[kind] = _stage(kind, value, base)
    out["stages"] = stages
    for key in ("inverses", "coverage", "reextract", "budget", "cache", "calibration"):
        if key in config.raw:
            value = getattr(config, key)
            if hasattr(value, "model_dump"):
                value = value.model_dump(mode="json")
            elif isinstance(value, Path):
                value = str(value)
            elif isinstance(value, tuple):
                value = [str(v) for v in value]
            out[key] = value
    return redact(out)


def documents_sha256(documents: Sequence[Document]) -> dict[str, str]:
    """Document id → SHA-256 of its text."""
    return {doc.id: sha256_text(doc.text) for doc in documents}


def manifest_keys(
    config: RunConfig,
    *,
    roles: Any,
    models: dict[str, Any],
    prompts: list[str],
    ontology: Ontology,
    documents: Sequence[Document],
    started_at: datetime,
    finished_at: datetime,
) -> dict[str, Any]:
    """The keys a run adds to its manifest (see the module docstring)."""
    if config.path is not None and config.path.is_file():
        raw = decode(read_bytes(config.path, what="a run config"), path=str(config.path))
    else:
        raw = json.dumps(config.raw, sort_keys=True, separators=(",", ":"), default=str)
    return {
        "manifest_version": MANIFEST_VERSION,
        "config_sha256": sha256_text(raw),
        "config": resolved_config(config, roles),
        "config_dir": str(config.base_dir.resolve()),
        "models": models,
        "prompts": prompts,
        "ontology_fingerprint": ontology.fingerprint(),
        "documents_sha256": documents_sha256(documents),
        "openodke": __version__,
        "started_at": started_at.isoformat(),
        "finished_at": finished_at.isoformat(),
    }


def read_manifest(path: str | Path) -> dict[str, Any]:
    """A run's ``manifest.json``: InputError (exit 2) unless it is one a run wrote."""
    file = Path(path)
    if not os.path.lexists(file):
        raise InputError("no such manifest", path=str(file))
    data = read_json(file, what="JSON")
    if not isinstance(data, dict) or "manifest_version" not in data:
        raise InputError("not a run manifest (no manifest_version)", path=str(file))
    if data["manifest_version"] != MANIFEST_VERSION:
        raise InputError(
            f"manifest_version {data['manifest_version']}; this version reads {MANIFEST_VERSION}",
            path=str(file),
        )
    for key in ("config", "ontology_fingerprint", "documents_sha256"):
        if key not in data:
            raise InputError(f"the manifest has no {key}", path=str(file))
    return data


def config_from_manifest(path: str | Path, config: str | Path | None = None) -> RunConfig:
    """The run config to replay: ``config`` when given, else the manifest's own ``config``."""
    if config is not None:
        return load_config(config)
    data = read_manifest(path)
    file = Path(path)
    # Document ids are relative to the config's folder: the replay reads them from there, not
    # from the folder the manifest was written to (a manifest without config_dir: from there).
    base = data.get("config_dir")
    folder = Path(base) if isinstance(base, str) and base else file.resolve().parent
    return parse_config(data["config"], folder, path=f"{file} (config)")


def check_manifest(path: str | Path, ontology: Ontology, documents: Sequence[Document]) -> None:
    """InputError (exit 2) naming what changed when the ontology or any document differs from
    the manifest's: a replay of changed inputs is not a replay."""
    data = read_manifest(path)
    where = str(path)
    problems: list[str] = []
    if ontology.fingerprint() != data["ontology_fingerprint"]:
        problems.append("the ontology changed since this run (its fingerprint differs)")
    recorded: dict[str, str] = data["documents_sha256"]
    now = documents_sha256(documents)
    changed = sorted(doc for doc in recorded if doc in now and now[doc] != recorded[doc])
    missing = sorted(doc for doc in recorded if doc not in now)
    added = sorted(doc for doc in now if doc not in recorded)
    for label, ids in (("changed", changed), ("missing", missing), ("new", added)):
        if ids:
            shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            problems.append(f"documents {label} since this run: {shown}")
    if problems:
        raise InputError("; ".join(problems) + "; refusing to replay", path=where)
