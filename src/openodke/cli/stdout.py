"""Standard output that outlives its reader: ``odke eval pipeline ... | head`` still writes files.

A command prints its tables before it writes ``--report``, ``--items`` and the track record. When
the reader of a pipe goes away (``head`` has its lines), the next write raises BrokenPipeError;
uncaught, that would end the command before its files are written. Wrapped, standard output
drops what is written from then on (its descriptor pointed at ``/dev/null``, so the
interpreter's last flush is quiet too) and the command finishes its work and exits as it would
have. This module imports the standard library alone.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

__all__ = ["ReaderSafe"]


class ReaderSafe:
    """A text stream that stops writing, silently, once its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        """Write ``text``, or drop it once the reader has gone."""
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        """Flush, or do nothing once the reader has gone."""
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_gone()

    def _reader_gone(self) -> None:
        self.gone = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
