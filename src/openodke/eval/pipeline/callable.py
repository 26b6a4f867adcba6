"""The ``--run`` mode: call a user's function (or Extractor) on the Documents and take what it
returns.

- a function, or an object with ``run()``, is called once with the list of Documents;
- a class or object with ``extract()`` and no ``run()`` (an Extractor stage, as ``odke eval
  extract --run`` takes) is called once per Document, and what it returns for a document cites
  that document unless it says otherwise.

Either returns (or yields) triples rows as dicts, TripleRows, Facts or Fact dicts in any mix, or,
with ``--adapter langchain`` or ``langextract``, the library's own GraphDocuments or annotated
documents (or the dicts their dumps hold). ``odke eval extract --run`` calls a plain function once
per Document (the stage contract): a failure in either says which shape each command wants.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from openodke.errors import OdkeError, PipelineError
from openodke.eval.pipeline.collect import as_rows
from openodke.protocols import bind_stage, call_stage, exited, load_stage
from openodke.types import Document, Fact

__all__ = ["RUN_CONTRACT", "iter_each", "run_callable", "run_each", "streamed_call"]

RUN_CONTRACT = (
    "eval pipeline --run calls a function once with the list of Documents, or a class with "
    "extract(document) once per Document, and takes triples rows, TripleRows or Facts (with "
    "--adapter langchain or langextract: GraphDocuments or annotated documents); eval extract "
    "--run calls a function, or a class's extract(document), once per Document"
)
"""What each command's ``--run`` takes, in words, for error messages."""


def run_callable(
    spec: str | object,
    documents: Sequence[Document],
    *,
    adapter: str = "triples",
    timeout: float | None = None,
) -> list[Any]:
    """Load ``spec`` (``my_pkg.extract:run`` or ``path/to/file.py:run``, or the function or
    object itself) and call it.

    A function (or an object's ``run``) is called once with the list of Documents; an Extractor
    (``extract()`` and no ``run()``) once per Document. With the ``triples`` adapter the items come
    back as TripleRows and Facts for :func:`~openodke.eval.pipeline.collect.collect` (a Fact that
    cites nothing, or a row dict with no ``doc``, from an Extractor cites its document); with
    another adapter they come back as returned, for the adapter to read.

    With ``timeout``, the calls (and a returned generator) must finish within that many seconds
    (timed by SIGALRM, in the main thread): past it, a PipelineError.

    Raises:
        InputError: the spec does not load (exit 2), or an item is not a valid row.
        PipelineError: the function raised, called ``sys.exit``, ran past ``timeout``, or
            returned something other than an iterable of rows (exit 1); the message names the
            function and what ``--run`` takes.
    """
    stage = load_stage(spec) if isinstance(spec, str) else spec
    docs = list(documents)
    label = spec if isinstance(spec, str) else getattr(spec, "__qualname__", type(spec).__name__)
    with _deadline(timeout, label):
        items = _call(stage, docs)
    if adapter.strip().casefold() != "triples":
        return items
    return list(as_rows(items, where=f"--run {label}"))


@contextmanager
def streamed_call(
    spec: str | object, documents: Sequence[Document], *, timeout: float | None = None
) -> Iterator[Iterator[Any]]:
    """:func:`run_callable` with the ``triples`` adapter, its items given as they come: a
    function's returned list or generator is read one item at a time (not listed), an
    Extractor's a document at a time (:func:`iter_each`). The items are as returned (for
    :func:`~openodke.eval.pipeline.collect.iter_rows`); ``timeout`` covers the whole block.

    Raises:
        InputError: the spec does not load.
        PipelineError: as :func:`run_callable`, while the items are read too.
    """
    stage = load_stage(spec) if isinstance(spec, str) else spec
    docs = list(documents)
    label = spec if isinstance(spec, str) else getattr(spec, "__qualname__", type(spec).__name__)
    with _deadline(timeout, label):
        yield _lazily(stage, docs)


def _lazily(stage: object, docs: list[Document]) -> Iterator[Any]:
    if callable(getattr(stage, "extract", None)) and not callable(getattr(stage, "run", None)):
        return iter_each(stage, docs)
    function = bind_stage(stage, "run")
    name = getattr(function, "__qualname__", type(function).__name__)
    where = f"{len(docs)} document{'' if len(docs) == 1 else 's'}"
    try:
        returned = call_stage(function, docs, where=where)
    except PipelineError as error:
        raise _with_contract(error) from error.__cause__
    return _each(_checked(returned, name, where), name, where)


class _PastDeadline(BaseException):
    """Raised into the user's code when ``--timeout`` passes (a BaseException: an ``except
    Exception`` in that code does not swallow it)."""


@contextmanager
def _deadline(seconds: float | None, spec: str) -> Iterator[None]:
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert seconds is not None

    def expire(signum: int, frame: object) -> None:
        raise _PastDeadline

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _PastDeadline:
        raise PipelineError(
            f"--run {spec} did not return within --timeout {seconds:g} s: stopped"
        ) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(stage: object, docs: list[Document]) -> list[Any]:
    return list(_lazily(stage, docs))


def run_each(stage: object, documents: Sequence[Document]) -> list[Any]:
    """Call an Extractor's ``extract`` (or a plain function) once per Document: what it returns,
    each item citing its document unless it cites one (``odke eval extract --run``)."""
    return list(iter_each(stage, documents))


def iter_each(stage: object, documents: Sequence[Document]) -> Iterator[Any]:
    """:func:`run_each` one document at a time: each document's items are given before the next
    document's call (``--run`` reads them into columns as they come)."""
    extract = bind_stage(stage, "extract")
    name = getattr(extract, "__qualname__", type(stage).__name__)
    return _per_document(extract, name, documents)


def _per_document(extract: Any, name: str, documents: Sequence[Document]) -> Iterator[Any]:
    for doc in documents:
        try:
            returned = call_stage(extract, doc, where=f"document {doc.id}")
        except PipelineError as error:
            raise _with_contract(error) from error.__cause__
        for item in _listed(returned, name, doc.id):
            yield _cite(item, doc.id)


def _with_contract(error: PipelineError) -> PipelineError:
    """The error, saying what ``--run`` takes when the function may have had the other shape
    (a TypeError or AttributeError: a list where a Document was meant, or the other way)."""
    if isinstance(error.__cause__, TypeError | AttributeError):
        return PipelineError(f"{error} ({RUN_CONTRACT})")
    return error


def _listed(returned: Any, name: str, where: str) -> list[Any]:
    """What a call returned, as a list; PipelineError when it is not a list of items."""
    return list(_each(_checked(returned, name, where), name, where))


def _checked(returned: Any, name: str, where: str) -> Iterable[Any]:
    """``returned``, or PipelineError when it is not an iterable of items."""
    # A model, a mapping or a string is iterable but is not a list of rows.
    if not isinstance(returned, Iterable) or isinstance(
        returned, str | bytes | Mapping | BaseModel
    ):
        raise PipelineError(
            f"{name} returned {type(returned).__name__}: expected a list of triples rows, "
            f"TripleRows or Facts (on {where}; {RUN_CONTRACT})"
        )
    return returned


def _each(returned: Iterable[Any], name: str, where: str) -> Iterator[Any]:
    """The items of ``returned`` one at a time (a generator runs the pipeline as it is read):
    what the function raises, or its ``sys.exit``, is a PipelineError naming it."""
    try:
        items = iter(returned)
        while True:
            try:
                item = next(items)
            except StopIteration:
                return
            yield item
    except OdkeError:
        raise
    except Exception as error:
        raise PipelineError(f"{name} failed on {where}: {type(error).__name__}: {error}") from error
    except SystemExit as done:
        raise PipelineError(exited(name, done, where)) from None


def _cite(item: Any, doc_id: str) -> Any:
    """An Extractor's item for one document, citing that document when it names none."""
    from openodke.eval.stages.extract import with_source

    if isinstance(item, Fact):
        return with_source(item, doc_id)
    if isinstance(item, Mapping) and not isinstance(item.get("subject"), Mapping):
        return item if item.get("doc") is not None else {**item, "doc": doc_id}
    if isinstance(item, Mapping):
        try:
            return with_source(Fact.model_validate(dict(item)), doc_id)
        except ValueError:
            return item  # as_rows names what is wrong with it
    return item
