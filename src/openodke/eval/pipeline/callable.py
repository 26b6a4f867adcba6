"""The ``--run`` mode: call a user's function on the Documents and take the rows it returns."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel

from openodke.errors import OdkeError, PipelineError
from openodke.eval.pipeline.collect import as_rows
from openodke.interop import TripleRow
from openodke.protocols import bind_stage, call_stage, load_stage
from openodke.types import Document, Fact

__all__ = ["run_callable"]


def run_callable(spec: str, documents: Sequence[Document]) -> list[TripleRow | Fact]:
    """Load ``spec`` (``my_pkg.extract:run`` or ``path/to/file.py:run``) and call it once.

    The function gets the list of Documents and returns (or yields) triples rows as dicts,
    TripleRows, Facts or Fact dicts, in any mix; they come back as TripleRows and Facts, for
    :func:`~openodke.eval.pipeline.collect.collect`. A class is built with no arguments and its
    ``run`` method called (or the instance itself, when callable).

    Raises:
        InputError: the spec does not load (exit 2), or an item is not a valid row.
        PipelineError: the function raised, or returned something other than an iterable of
            rows (exit 1); the message names the function.
    """
    function = bind_stage(load_stage(spec), "run")
    name = getattr(function, "__qualname__", type(function).__name__)
    docs = list(documents)
    where = f"{len(docs)} document{'' if len(docs) == 1 else 's'}"
    returned = call_stage(function, docs, where=where)
    # A model, a mapping or a string is iterable but is not a list of rows.
    if not isinstance(returned, Iterable) or isinstance(
        returned, str | bytes | Mapping | BaseModel
    ):
        raise PipelineError(
            f"{name} returned {type(returned).__name__}: expected a list of triples rows, "
            "TripleRows or Facts"
        )
    try:
        items = list(returned)  # a generator runs the pipeline here
    except OdkeError:
        raise
    except Exception as error:
        raise PipelineError(f"{name} failed on {where}: {type(error).__name__}: {error}") from error
    return as_rows(items, where=f"--run {spec}")
