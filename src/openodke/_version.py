"""The version, in a module that imports nothing: ``odke --version`` reads it without loading
``importlib.metadata`` (pyproject.toml takes it from here)."""

__version__ = "0.1.0"
