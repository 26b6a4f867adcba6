"""What ``odke --version`` prints; light, so the version needs neither typer nor the engine."""

from __future__ import annotations

__all__ = ["version_text"]


def version_text() -> str:
    """The version, and on a second line which engine scores (compiled or pure Python)."""
    from openodke._version import __version__
    from openodke.eval.engine.compiled import engine_line

    return f"openodke {__version__}\n{engine_line()}\n"
