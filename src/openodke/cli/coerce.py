"""Option values of the plain types without pydantic (typer 0.29 and later).

Typer 0.29 coerces every option value a command line parses through a pydantic ``TypeAdapter``
it builds at parse time, even for a ``str`` or a ``Path``: the first one imports
``typer._adapters`` and the parts of pydantic only it uses, and ``coerce_cli_path`` builds one
more adapter per path given. Our commands declare plain types only (``str``, ``bool``, ``int`` and
``float`` with typer's ``min``/``max``, ``Path``, ``list[str]``), so :func:`install` puts a
runtime parameter in front of typer's that converts the values whose result is certain exactly
as those adapters do (a ``str`` as given, ``Path(text)`` then typer's own path checks, decimal
digits as ``int``/``float`` within the bounds) and hands every other value, every other type and
every refusal to typer's own adapter, built when first needed, so typer's error messages and
edge cases (``+5``, ``1e3``, ``inf``, clamping, choices, files) are untouched.
``tests/cli/test_coerce.py`` checks it against typer's adapters value by value (DECISIONS #285).

With a typer that has no ``build_runtime_param`` (before 0.29) :func:`install` does nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["install"]

_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_TYPER = object()  # "not certain here: ask typer's adapter"
_installed = False


def _within(number: float, info: Any) -> bool:
    return (info.min is None or number >= info.min) and (info.max is None or number <= info.max)


def _number(kind: type, value: Any, info: Any) -> Any:
    if info.clamp:
        return _TYPER
    if isinstance(value, str):
        if (_INT if kind is int else _FLOAT).fullmatch(value) is None:
            return _TYPER
        try:
            number = kind(value)
        except ValueError:  # past Python's 4,300 digits for int(): typer's adapter says
            return _TYPER
    elif type(value) is int or (kind is float and type(value) is float):
        number = kind(value)
    else:
        return _TYPER
    return number if _within(number, info) else _TYPER


def plain_value(annotation: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
    """``value`` as typer's adapter for ``annotation`` would give it, or ``_TYPER`` when only
    that adapter can say (another type, another spelling, out of bounds, an error)."""
    if info.parser is not None:
        return _TYPER
    if annotation is str:
        return value if isinstance(value, str) else _TYPER
    if annotation is int or annotation is float:
        return _number(annotation, value, info)
    if annotation is Path and info.path_type is None:
        if not isinstance(value, str | Path):
            return _TYPER
        from typer._param_types import coerce_cli_path

        given = value if isinstance(value, Path) else Path(value)
        return coerce_cli_path(given, info, path_type=Path, param=param, ctx=ctx)
    if annotation == list[str]:
        items = list(value) if isinstance(value, list | tuple) else [value]
        return items if all(isinstance(item, str) for item in items) else _TYPER
    return _TYPER


def install() -> None:
    """Put :func:`plain_value` in front of typer's coercion (once; a no-op on older typer)."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        import typer.core as core
        from typer._coercion import RuntimeParam
    except ImportError:  # typer before 0.29: click coerces, no pydantic
        return
    found = getattr(core, "build_runtime_param", None)
    if found is None or not callable(getattr(RuntimeParam, "_coerce_value", None)):
        return  # typer's private coercion changed shape: leave it all to typer
    build: Callable[[Any], Any] = found

    try:

        @dataclass(frozen=True)
        class PlainRuntimeParam(RuntimeParam):  # type: ignore[misc]
            descriptor: Any = None
            built: dict[str, Any] = field(default_factory=dict)

            def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
                got = plain_value(self.annotation, self.parameter_info, value, param, ctx)
                if got is not _TYPER:
                    return got
                if "typer" not in self.built:
                    self.built["typer"] = build(self.descriptor)
                return self.built["typer"]._coerce_value(value, param=param, ctx=ctx)

    except TypeError:  # a RuntimeParam whose fields no longer take these: typer decides
        return

    def plain_build(descriptor: Any) -> Any:
        if descriptor.file_annotation is not None or descriptor.is_choice:
            return build(descriptor)
        return PlainRuntimeParam(
            annotation=descriptor.annotation,
            parameter_info=descriptor.parameter_info,
            descriptor=descriptor,
        )

    core.build_runtime_param = plain_build
