"""Problems found while parsing a run config, each placed at its key's line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from openodke.errors import InputError
from openodke.ontology.checks import did_you_mean
from openodke.run.source import LineMap

__all__ = ["Loc", "Problems", "dotted", "resolve_path"]

Loc = tuple[str | int, ...]
"""A key path in a config: keys and list indexes."""


def dotted(loc: Loc) -> str:
    """A key path as written in messages: ``stages.extractor.options``, ``inputs[0].tier``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class Problems:
    """Collects problems, each placed at the line of its key path."""

    def __init__(self, path: str, lines: LineMap) -> None:
        self.path = path
        self.lines = lines
        self.found: list[InputError] = []

    def add(self, loc: Loc, message: str) -> None:
        """One problem at ``loc``'s line: ``key.path: message``."""
        where = dotted(loc)
        text = f"{where}: {message}" if where else message
        self.found.append(InputError(text, path=self.path, line=self.lines.line(loc)))

    def not_built(self, loc: Loc, name: str) -> None:
        """``<name> is not built`` at ``loc``'s line."""
        self.found.append(
            InputError(f"{name} is not built", path=self.path, line=self.lines.line(loc))
        )

    def unknown(self, loc: Loc, key: str, known: list[str]) -> None:
        """An unknown key under ``loc``, with a did-you-mean among ``known``."""
        self.add(
            (*loc, key),
            f"unknown key{did_you_mean(key, known)}; expected one of " + ", ".join(known),
        )

    def pydantic(self, loc: Loc, error: ValidationError, known: list[str] | None = None) -> None:
        """Every error of a pydantic validation under ``loc``."""
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
        """``value`` validated as ``kind``; None (and a problem) when it is not one."""
        try:
            return TypeAdapter(kind).validate_python(value)
        except ValidationError as error:
            self.pydantic(loc, error)
            return None


_PLAIN_WORD = re.compile(r"[A-Za-z_ .\-]{0,24}")


def shown_value(value: Any) -> str:
    """A config value as an error may show it: numbers, booleans, null and short plain words as
    they are; any other string (a key pasted into the wrong field, say) only by its length."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str):
        from openodke.llm.redact import scrub_text

        if _PLAIN_WORD.fullmatch(value) and scrub_text(value) == value:
            return repr(value)
        return f"a string of {len(value)} characters (not shown)"
    return f"a {type(value).__name__}"


def _message(item: Any) -> str:
    message = str(item["msg"]).removeprefix("Value error, ")
    if (
        "input" in item
        and item["type"] not in ("value_error",)
        and not isinstance(item["input"], dict | list)
    ):
        return f"{message}, got {shown_value(item['input'])}"
    return message


def resolve_path(base_dir: Path, value: str | Path) -> Path:
    """``value`` as a path, relative ones resolved against ``base_dir`` (the config's folder)."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else (base_dir / path)
