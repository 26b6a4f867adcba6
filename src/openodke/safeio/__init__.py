"""Reading untrusted files within bounds: regular files only, bounded lines, nesting, numbers,
text and YAML expansion. Every reader of a user's file goes through here; a refusal is an
InputError ``path:line: what is wrong`` (exit 2).

The JSON and YAML readers (pydantic, PyYAML) load when first named: the scoring engine's readers
need only :mod:`~openodke.safeio.files` and :mod:`~openodke.safeio.limits`, and its forked
workers start without either."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openodke._lazy import lazy_names
from openodke.safeio.files import (
    FileTooLarge,
    decode,
    first_line,
    iter_lines,
    name_problem,
    open_regular,
    read_bytes,
    read_text,
    walk_files,
)
from openodke.safeio.limits import (
    MAX_INT_DIGITS,
    MAX_NAME_BYTES,
    MAX_NESTING,
    MAX_YAML_NODES,
    max_file_bytes,
    max_line_bytes,
    max_yaml_bytes,
)

if TYPE_CHECKING:
    from openodke.safeio.jsonio import (
        JSONSyntaxError,
        check_strings,
        iter_json_lines,
        load_jsonl,
        needs_care,
        parse_json,
        read_json,
        validation_message,
    )
    from openodke.safeio.yamlio import load_yaml, read_yaml

_HOMES = {
    **dict.fromkeys(
        (
            "JSONSyntaxError",
            "check_strings",
            "iter_json_lines",
            "load_jsonl",
            "needs_care",
            "parse_json",
            "read_json",
            "validation_message",
        ),
        "openodke.safeio.jsonio",
    ),
    "load_yaml": "openodke.safeio.yamlio",
    "read_yaml": "openodke.safeio.yamlio",
}
"""Where each name loaded on first use lives."""

__all__ = [
    "FileTooLarge",
    "JSONSyntaxError",
    "MAX_INT_DIGITS",
    "MAX_NAME_BYTES",
    "MAX_NESTING",
    "MAX_YAML_NODES",
    "check_strings",
    "decode",
    "iter_json_lines",
    "first_line",
    "iter_lines",
    "load_jsonl",
    "load_yaml",
    "max_file_bytes",
    "max_line_bytes",
    "max_yaml_bytes",
    "name_problem",
    "needs_care",
    "open_regular",
    "parse_json",
    "read_bytes",
    "read_json",
    "read_text",
    "read_yaml",
    "validation_message",
    "walk_files",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__)
