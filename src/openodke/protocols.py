"""The stage contracts a user can pass in Python or name with ``--run package.module:Name``.

A stage is any object with the method below (structural typing: no base class to inherit), or, for
``--run``, a plain function with the method's arguments. ``load_stage`` turns a ``--run`` spec into
the object: a class is built with no arguments, anything else (a function, an instance) is
returned as it is.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openodke.errors import InputError, OdkeError, PipelineError
from openodke.types import Document, Fact, KnowledgeGraph

__all__ = [
    "Extractor",
    "Gate",
    "Grounder",
    "Router",
    "RouteVerdict",
    "Scorer",
    "Sink",
    "ValidationVerdict",
    "as_route_verdict",
    "as_validation_verdict",
    "bind_stage",
    "call_stage",
    "load_stage",
]


class RouteVerdict(BaseModel):
    """What a router decided for one chunk or document."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["extract", "skip", "defer"] = Field(
        description="extract: send it on; skip: drop it; defer: hold it for later."
    )
    scope: Literal["chunk", "document"] = Field(
        default="chunk", description="Whether the decision covers the chunk or its document."
    )
    label: str | None = Field(default=None, description="A free label (fact, marketing, ...).")
    reason: str | None = Field(default=None, description="Why, in a few words.")


class ValidationVerdict(BaseModel):
    """What a gate decided for one fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["accept", "refuse", "conflict"] = Field(
        description="accept: write it; refuse: drop it; conflict: write it and flag it."
    )
    reason: str | None = Field(default=None, description="Why, in a few words.")


_ACTIONS = frozenset(get_args(ValidationVerdict.model_fields["action"].annotation))
_ROUTE_FIELDS = frozenset(RouteVerdict.model_fields)  # the class property is 1 us a read


@runtime_checkable
class Extractor(Protocol):
    """Reads facts out of a document."""

    def extract(self, document: Document) -> Iterable[Fact]:
        """Every fact the document states, each citing it."""
        ...


@runtime_checkable
class Grounder(Protocol):
    """Checks a fact against the text it cites."""

    def ground(self, fact: Fact, document: Document) -> Fact:
        """A copy of ``fact`` with its ``verdict`` stamped; grounders never drop a fact."""
        ...


@runtime_checkable
class Scorer(Protocol):
    """Sets a fact's confidence."""

    def score(self, fact: Fact) -> Fact:
        """A copy of ``fact`` with ``confidence`` in [0, 1]."""
        ...


@runtime_checkable
class Gate(Protocol):
    """Decides whether a fact is written."""

    def decide(self, fact: Fact) -> ValidationVerdict:
        """accept, refuse or conflict, with a reason (any object with ``action`` will do)."""
        ...


@runtime_checkable
class Router(Protocol):
    """Decides whether a text is worth extracting from."""

    def route(self, text: str) -> RouteVerdict:
        """extract, skip or defer, with a label (any object with ``action`` will do)."""
        ...


@runtime_checkable
class Sink(Protocol):
    """Writes a graph somewhere; writing the same graph twice must change nothing."""

    def write(self, graph: KnowledgeGraph) -> Any:
        """Write (or replace) the graph."""
        ...


def _verdict_fields(verdict: Any) -> dict[str, Any]:
    # A stage may answer with our model, another object with the same attributes, a mapping,
    # or a bare action string; enums are read by value.
    if isinstance(verdict, str):
        return {"action": verdict}
    if isinstance(verdict, Mapping):
        fields = dict(verdict)
    else:
        fields = {
            name: getattr(verdict, name)
            for name in ("action", "scope", "label", "reason")
            if hasattr(verdict, name)
        }
    return {k: getattr(v, "value", v) for k, v in fields.items()}


def as_validation_verdict(verdict: Any) -> ValidationVerdict:
    """Read a gate's answer (ValidationVerdict, a look-alike, a mapping or a string)."""
    if type(verdict) is ValidationVerdict and verdict.action in _ACTIONS:
        return verdict  # ours, frozen, valid: as read again (hasattr on a model raised per field)
    fields = _verdict_fields(verdict)
    try:
        return ValidationVerdict(action=fields.get("action"), reason=fields.get("reason"))
    except ValidationError as error:
        raise InputError(f"a gate answered {verdict!r}: {_first(error)}") from None


def as_route_verdict(verdict: Any) -> RouteVerdict:
    """Read a router's answer (RouteVerdict, a look-alike, a mapping or a string)."""
    fields = _verdict_fields(verdict)
    known = {k: v for k, v in fields.items() if k in _ROUTE_FIELDS and v is not None}
    try:
        return RouteVerdict(**known)
    except ValidationError as error:
        raise InputError(f"a router answered {verdict!r}: {_first(error)}") from None


def _first(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(p) for p in problem["loc"])
    return f"{where}: {problem['msg']}" if where else problem["msg"]


def load_stage(spec: str) -> object:
    """Import ``package.module:Name`` (or ``path/to/file.py:Name``) and return the stage.

    A class is built with no arguments; a function or any other object is returned as it is.
    A malformed spec, a module that does not import, a missing attribute, or a class that cannot
    be built with no arguments is an InputError (exit 2).
    """
    module_name, sep, attribute = spec.rpartition(":")
    if not sep or not module_name or not attribute.isidentifier():
        raise InputError(f"--run {spec!r}: expected package.module:Name (or path/to/file.py:Name)")
    module = _import(module_name, spec)
    try:
        target = getattr(module, attribute)
    except AttributeError:
        raise InputError(f"--run {spec!r}: {module_name} has no attribute {attribute!r}") from None
    if not inspect.isclass(target):
        return target
    try:
        return target()
    except TypeError as error:
        raise InputError(
            f"--run {spec!r}: {attribute} cannot be built with no arguments ({error})"
        ) from None


def _import(module_name: str, spec: str) -> Any:
    if module_name.endswith(".py") or "/" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise InputError(f"--run {spec!r}: no such file {module_name}")
        file_spec = importlib.util.spec_from_file_location(f"_odke_run_{path.stem}", path)
        if file_spec is None or file_spec.loader is None:
            raise InputError(f"--run {spec!r}: cannot import {module_name}")
        module = importlib.util.module_from_spec(file_spec)
        sys.modules[file_spec.name] = module
        try:
            file_spec.loader.exec_module(module)
        except Exception as error:
            sys.modules.pop(file_spec.name, None)
            raise InputError(f"--run {spec!r}: importing {module_name} failed: {error}") from None
        return module
    # As `python -m` does, look in the working directory first, where a user's package usually is.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            raise InputError(f"--run {spec!r}: no module named {error.name!r}") from None
        raise InputError(f"--run {spec!r}: importing {module_name} failed: {error}") from None
    except Exception as error:
        raise InputError(f"--run {spec!r}: importing {module_name} failed: {error}") from None


def bind_stage(stage: object, method: str) -> Any:
    """``stage.<method>``, or ``stage`` itself when it is a plain callable (a ``--run`` function).

    InputError when it is neither, naming what was expected.
    """
    if inspect.isclass(stage):
        raise InputError(f"{stage.__name__} is a class: pass an instance of it, not the class")
    bound = getattr(stage, method, None)
    if callable(bound):
        return bound
    if callable(stage):
        return stage
    raise InputError(
        f"{type(stage).__name__} has no {method}() method and is not a function: "
        f"a stage here must define {method}()"
    )


def call_stage(function: Any, *args: Any, where: str) -> Any:
    """Call a user's stage; any error it raises becomes a PipelineError (exit 1) naming ``where``."""
    try:
        return function(*args)
    except OdkeError:
        raise
    except Exception as error:
        name = getattr(function, "__qualname__", type(function).__name__)
        raise PipelineError(f"{name} failed on {where}: {type(error).__name__}: {error}") from error
    except SystemExit as done:  # the stage's exit is not odke's: odke reports it, exit 1
        name = getattr(function, "__qualname__", type(function).__name__)
        raise PipelineError(exited(name, done, where)) from None


def exited(name: str, done: SystemExit, where: str) -> str:
    """What a stage that called ``sys.exit`` did, in words."""
    return (
        f"{name} called sys.exit({done.code!r}) on {where}: a stage returns its rows or raises; "
        "odke does not take its exit status as its own"
    )
