"""A run's ``inputs``: each path read by its loader, ids made unique across all of them.

An input is a path, or ``{path, loader, ...loader options}``. Without ``loader``, a folder goes to
``directory``, ``.md``/``.markdown`` to ``markdown``, ``.jsonl`` to ``jsonl``, ``.csv`` to ``csv``
and anything else to ``text``. Relative paths are the config folder's; document ids are paths
relative to it, repeats numbered ``~2``, ``~3`` (``loaders.unique_ids``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.stages.loaders import unique_ids
from openodke.stages.registry import StageContext, build_stage
from openodke.types import Document

__all__ = ["default_loader", "load_inputs"]

_BY_SUFFIX = {".md": "markdown", ".markdown": "markdown", ".jsonl": "jsonl", ".csv": "csv"}


def default_loader(path: Path) -> str:
    """The loader a path without ``loader`` goes to."""
    if path.is_dir():
        return "directory"
    return _BY_SUFFIX.get(path.suffix.casefold(), "text")


def load_inputs(
    inputs: Sequence[str | Path | Mapping[str, Any]],
    base_dir: Path,
    *,
    path: str | None = None,
    lines: Sequence[int | None] = (),
) -> tuple[list[Document], list[str]]:
    """Every input's documents, in order, with unique ids; and the loaders' warnings.

    ``path`` and ``lines`` (one per input) place errors at the config's ``path:line``.
    """
    if not inputs:
        raise InputError("inputs: give at least one path", path=path)
    documents: list[Document] = []
    warnings: list[str] = []
    for number, item in enumerate(inputs):
        line = lines[number] if number < len(lines) else None
        if isinstance(item, Mapping):
            options = dict(item)
            where = options.pop("path", None)
            if not isinstance(where, str | Path):
                raise InputError(f"inputs[{number}]: needs a path", path=path, line=line)
            spec = options.pop("loader", None)
        else:
            where, options, spec = item, {}, None
        target = Path(where)
        target = target if target.is_absolute() else base_dir / target
        name = spec if spec is not None else default_loader(target)
        value: Any = {"use": name, **options} if options else name
        loader = build_stage("loader", value, StageContext(base_dir=base_dir), path=path, line=line)
        try:
            documents.extend(loader.load(target, base_dir))
        except InputError as error:
            if path is None and error.path is not None:
                raise
            # At the config's line, naming the input and the file the loader could not read.
            raise InputError(f"inputs[{number}]: {error}", path=path, line=line) from None
        warnings.extend(getattr(loader, "warnings", []))
    return unique_ids(documents), warnings
