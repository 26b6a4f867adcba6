"""The stage registry: run-config names to stage classes, custom classes, and names not built.

A stage is written as a bare name (``sentence``), a mapping ``{use: name, option: value, ...}``, or
either with a custom class ``package.module:Name`` (or ``path/to/file.py:Name``) in place of the
name; a custom class is built with its options as keyword arguments. Built-in classes also get
what they need from the run (:class:`StageContext`: the ontology, the model client and roles, the
config's folder) by parameter name, never from the config. A name the surface puts out of scope
(``neo4j``, ``rdf``, ``html``, ...) is an InputError ``path:line: <name> is not built`` (exit 2);
any other unknown name one with a did-you-mean.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.ontology import Ontology
from openodke.ontology.checks import did_you_mean

__all__ = [
    "BUILT",
    "CONTEXT_PARAMETERS",
    "NOT_BUILT",
    "STAGE_KINDS",
    "StageContext",
    "build_stage",
    "stage_class",
    "stage_spec",
]

STAGE_KINDS: tuple[str, ...] = (
    "loader",
    "chunker",
    "router",
    "extractor",
    "grounder",
    "normalizer",
    "resolver",
    "corroborator",
    "scorer",
    "gate",
    "sink",
)
"""The stage keys of a run config, in pipeline order (``loader`` is per input)."""

_S = "openodke.stages"
BUILT: dict[str, dict[str, str]] = {
    "loader": {
        "text": f"{_S}.loaders:TextLoader",
        "markdown": f"{_S}.loaders:MarkdownLoader",
        "directory": f"{_S}.loaders:DirectoryLoader",
        "jsonl": f"{_S}.records:JsonlLoader",
        "csv": f"{_S}.records:CsvLoader",
    },
    "chunker": {
        "sentence": f"{_S}.chunkers:SentenceChunker",
        "passthrough": f"{_S}.chunkers:PassthroughChunker",
    },
    "router": {"passthrough": f"{_S}.passthrough:PassthroughRouter"},
    "extractor": {
        "pattern": f"{_S}.pattern:PatternExtractor",
        "llm": f"{_S}.llm_extract:LLMExtractor",
        "hybrid": f"{_S}.hybrid:HybridExtractor",
        "triples": f"{_S}.triples:TriplesExtractor",
    },
    "grounder": {
        "span": f"{_S}.grounding:SpanGrounder",
        "llm": f"{_S}.grounding:ModelGrounder",
        "passthrough": f"{_S}.passthrough:PassthroughGrounder",
    },
    "normalizer": {
        "value": f"{_S}.normalize:ValueNormalizer",
        "passthrough": f"{_S}.passthrough:PassthroughNormalizer",
    },
    "resolver": {
        "native": f"{_S}.resolve:NativeResolver",
        "passthrough": f"{_S}.passthrough:PassthroughResolver",
    },
    "corroborator": {
        "signature": f"{_S}.corroborate:SignatureCorroborator",
        "passthrough": f"{_S}.passthrough:PassthroughCorroborator",
    },
    "scorer": {
        "evidence": f"{_S}.score:EvidenceScorer",
        "passthrough": f"{_S}.passthrough:PassthroughScorer",
    },
    "gate": {
        "verdict": "openodke.gate:VerdictGate",
        "passthrough": f"{_S}.passthrough:PassthroughGate",
    },
    "sink": {"jsonl": "openodke.sinks.jsonl:JsonlSink"},
}
"""Kind -> name -> ``module:Class`` of every built-in stage (imported when built)."""

NOT_BUILT: dict[str, frozenset[str]] = {
    "loader": frozenset({"html", "pdf", "docx"}),
    "sink": frozenset({"neo4j", "rdf", "networkx", "bulk", "admin_csv", "cypher", "csv"}),
}
"""Kind -> names the surface puts out of scope for now: naming one is exit 2 ``is not built``."""

CONTEXT_PARAMETERS = ("ontology", "client", "roles", "base_dir", "progress")
"""Constructor parameters a built-in stage receives from the run rather than from its options."""


@dataclass(frozen=True)
class StageContext:
    """What the run hands a stage it builds: never written in the config itself."""

    ontology: Ontology | None = None
    client: Any = None
    roles: Any = None
    base_dir: Path | None = None
    progress: bool | None = None


def stage_spec(value: Any, *, key: str = "stage") -> tuple[str, dict[str, Any]]:
    """``(name, options)`` from a bare name or ``{use: name, ...options}``."""
    if isinstance(value, str) and value.strip():
        return value.strip(), {}
    if isinstance(value, Mapping):
        options = dict(value)
        name = options.pop("use", None)
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{key}: a stage mapping needs `use: <name>`")
        return name.strip(), options
    raise InputError(f"{key}: expected a stage name or {{use: name, ...}}, got {value!r}")


def _import(target: str, spec: str) -> Any:
    module_name, _, attribute = target.rpartition(":")
    if "/" in module_name or module_name.endswith(".py"):
        from openodke.protocols import _import as import_file  # the --run loader's file import

        module = import_file(module_name, spec)
    else:
        module = importlib.import_module(module_name)
    return getattr(module, attribute)


def stage_class(kind: str, name: str) -> Any:
    """The class (or object) ``name`` stands for as a ``kind``: built-in, custom, or an error."""
    if kind not in BUILT:
        hint = did_you_mean(kind, BUILT)
        raise InputError(f"unknown stage kind {kind!r}{hint}")
    if ":" in name:
        module_name, _, attribute = name.rpartition(":")
        if not module_name or not attribute.isidentifier():
            raise InputError(f"{name!r}: expected package.module:Name (or path/to/file.py:Name)")
        try:
            return _import(name, name)
        except InputError as error:
            raise InputError(error.message.replace("--run ", "", 1)) from None
        except ModuleNotFoundError as error:
            raise InputError(f"{name!r}: no module named {error.name!r}") from None
        except AttributeError:
            raise InputError(f"{name!r}: {module_name} has no attribute {attribute!r}") from None
        except Exception as error:
            raise InputError(f"{name!r}: importing {module_name} failed: {error}") from None
    folded = name.casefold()
    if folded in NOT_BUILT.get(kind, ()):
        raise InputError(f"{name} is not built")
    target = BUILT[kind].get(folded)
    if target is None:
        hint = did_you_mean(name, BUILT[kind])
        choices = ", ".join(BUILT[kind])
        raise InputError(f"unknown {kind} {name!r}{hint}; built: {choices}")
    try:
        return _import(target, name)
    except (ImportError, AttributeError):
        raise InputError(f"the {name} {kind} is not built in this install") from None


_NEEDS = {
    "ontology": "an ontology",
    "client": "a model client (models.extract)",
    "roles": "model roles",
    "base_dir": "the config's folder",
}


def _accepted(cls: Any) -> tuple[set[str], set[str], bool]:
    """The parameter names, those without a default, and whether it takes ``**kwargs``."""
    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return set(), set(), True
    plain = [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    required = {p.name for p in plain if p.default is inspect.Parameter.empty}
    return {p.name for p in plain}, required, any(p.kind is p.VAR_KEYWORD for p in parameters)


def build_stage(
    kind: str,
    value: Any,
    context: StageContext | None = None,
    *,
    path: str | None = None,
    line: int | None = None,
) -> Any:
    """The stage ``value`` names, built with its options (and the context it asks for).

    Every problem is an InputError at ``path:line`` naming ``stages.<kind>``: a name not built or
    unknown, an unknown option (with a did-you-mean), an option its class refuses.
    """
    context = context or StageContext()
    key = f"stages.{kind}"
    try:
        name, options = stage_spec(value, key=key)
        target = stage_class(kind, name)
    except InputError as error:
        message = error.message
        if not message.endswith(" is not built") and not message.startswith(key):
            message = f"{key}: {message}"
        raise InputError(message, path=path, line=line) from None
    if not inspect.isclass(target):
        if options:
            raise InputError(
                f"{key}: {name} is not a class, so it takes no options", path=path, line=line
            )
        return target
    accepted, required, open_ended = _accepted(target)
    for option in options:
        if option in CONTEXT_PARAMETERS or (option not in accepted and not open_ended):
            options_known = sorted(accepted - set(CONTEXT_PARAMETERS))
            hint = did_you_mean(option, options_known)
            known = ", ".join(options_known) or "none"
            raise InputError(
                f"{key}: {name} has no option {option!r}{hint}; its options: {known}",
                path=path,
                line=line,
            )
    given = {
        field: getattr(context, field)
        for field in CONTEXT_PARAMETERS
        if field in accepted and getattr(context, field) is not None
    }
    for field in CONTEXT_PARAMETERS:
        if field in required and field not in given:
            raise InputError(f"{key}: {name} needs {_NEEDS[field]}", path=path, line=line)
    try:
        return target(**options, **given)
    except InputError as error:
        raise InputError(f"{key}: {name}: {error.message}", path=path, line=line) from None
    except (TypeError, ValueError) as error:
        raise InputError(f"{key}: {name}: {error}", path=path, line=line) from None
