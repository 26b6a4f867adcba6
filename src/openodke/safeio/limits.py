"""How much any reader accepts: nesting, number size, line and file sizes, YAML expansion.

Each limit is far above what a real input needs and far below what would exhaust memory or the
stack. The size limits can be raised for one run through the environment (in megabytes):
``ODKE_MAX_LINE_MB`` (one JSONL line), ``ODKE_MAX_FILE_MB`` (a JSON file read whole) and
``ODKE_MAX_YAML_MB`` (a YAML file). DECISIONS #93.
"""

from __future__ import annotations

import os

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_NAME_BYTES",
    "MAX_NESTING",
    "MAX_YAML_NODES",
    "max_file_bytes",
    "max_line_bytes",
    "max_yaml_bytes",
]

MAX_NESTING = 100
"""Arrays and objects inside one another (JSON) or collections (YAML): deeper is refused."""

MAX_INT_DIGITS = 4300
"""Digits in one integer (Python's own limit for turning text into an int)."""

MAX_YAML_NODES = 250_000
"""Nodes a YAML document may stand for once its aliases are expanded (an alias bomb has 10^9)."""

MAX_NAME_BYTES = 200
"""UTF-8 bytes of an id used as a file name (common file systems allow 255)."""

_MB = 1 << 20


def _megabytes(variable: str, default: int) -> int:
    value = os.environ.get(variable, "")
    try:
        number = int(value)
    except ValueError:
        return default * _MB
    return number * _MB if number > 0 else default * _MB


def max_line_bytes() -> int:
    """Bytes in one line of a JSONL file (64 MB, or ``ODKE_MAX_LINE_MB``)."""
    return _megabytes("ODKE_MAX_LINE_MB", 64)


def max_file_bytes() -> int:
    """Bytes in a JSON file read whole (256 MB, or ``ODKE_MAX_FILE_MB``)."""
    return _megabytes("ODKE_MAX_FILE_MB", 256)


def max_yaml_bytes() -> int:
    """Bytes in a YAML file (16 MB, or ``ODKE_MAX_YAML_MB``)."""
    return _megabytes("ODKE_MAX_YAML_MB", 16)
