"""Reading untrusted files within bounds: regular files only, bounded lines, nesting, numbers,
text and YAML expansion. Every reader of a user's file goes through here; a refusal is an
InputError ``path:line: what is wrong`` (exit 2)."""

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
from openodke.safeio.limits import (
    MAX_INT_DIGITS,
    MAX_NAME_BYTES,
    MAX_NESTING,
    MAX_YAML_NODES,
    max_file_bytes,
    max_line_bytes,
    max_yaml_bytes,
)
from openodke.safeio.yamlio import load_yaml, read_yaml

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
