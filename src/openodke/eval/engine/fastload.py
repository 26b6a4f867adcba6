"""The fast path for large extraction files: JSONL straight to columns of key hashes.

``odke eval extract`` on a million rows cannot afford a pydantic model per row, so this module
decodes lines with msgspec structs that mirror :class:`~openodke.types.Fact` and
:class:`~openodke.eval.stages.labels.GoldFact` field for field (unknown keys forbidden), a few hundred
kilobytes of the memory-mapped file at a time, and hashes each block's keys and documents
(:mod:`~openodke.eval.engine.keyhash`) into a :class:`~openodke.eval.engine.key_table.KeyTable` and
:class:`~openodke.eval.engine.key_table.DocColumn`. Large files are read in parts by forked workers.

Any line the structs refuse sends the whole file through the pydantic reader instead, which
either accepts it (a coercion only pydantic makes) or raises the usual ``path:line: what is
wrong``. So the fast path never accepts what the models refuse, and a test checks both paths
give the same metrics.
"""

from __future__ import annotations

import functools
import gc
import mmap
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec
import numpy as np

from openodke.eval.engine.jsonl import load_jsonl
from openodke.eval.engine.key_table import DocColumn, KeyTable
from openodke.eval.engine.keyhash import doc_hashes, fact_hashes
from openodke.eval.engine.matching import fact_key
from openodke.eval.stages.extract import KeyRows, PredictionKeyRows
from openodke.eval.stages.labels import GoldFact
from openodke.types import Fact, normalise_value

if TYPE_CHECKING:  # fact_checks reads the report models, which read the diagnosis, which reads this
    from openodke.eval.pipeline.fact_checks import FactChecks

__all__ = [
    "PARALLEL_BYTES",
    "load_both",
    "load_gold_keys",
    "load_prediction_keys",
    "paused_gc",
    "without_gc",
]

_Tier = Literal["unverified", "community", "authoritative", "curated"]
_Value = str | int | float | bool


class _Resolution(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    method: str
    score: float | None = None
    linker: str | None = None


class _Entity(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    key: str
    type: str = "Thing"
    label: str | None = None
    aliases: tuple[str, ...] = ()
    external_id: str | None = None
    resolution: _Resolution | None = None
    attributes: dict[str, Any] = {}


class _Span(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    doc_id: str
    start: int
    end: int
    quote: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError("span offsets out of order")


class _Evidence(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    doc_id: str
    span: _Span | None = None
    mention: _Span | None = None
    span_origin: Literal["cited", "located", "context"] = "cited"
    uri: str | None = None
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None


class _Support(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    source: str
    documents: tuple[str, ...] = ()
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None


class _Fact(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    subject: _Entity
    predicate: str
    id: str | None = None
    object_entity: _Entity | None = None
    object_value: _Value | None = None
    polarity: Literal["asserted", "denied", "partial"] = "asserted"
    qualifiers: dict[str, Any] = {}
    identity_keys: tuple[str, ...] = ()
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: tuple[_Evidence, ...] = ()
    extractor: str = "unknown"
    confidence: float = 0.0
    verdict: Literal["unchecked", "supported", "contradicted", "not_found"] = "unchecked"
    support: int = 1
    supported_by: tuple[_Support, ...] = ()
    retired_at: datetime | None = None

    def __post_init__(self) -> None:
        if (self.object_entity is None) == (self.object_value is None):
            raise ValueError("exactly one of object_entity and object_value must be set")


class _Gold(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    doc_id: str
    fact: _Fact


def _scoped(f: _Fact) -> str:
    q = f.qualifiers
    pairs = tuple(sorted((k, repr(q[k])) for k in f.identity_keys if k in q))
    return repr(pairs) if pairs else ""


# A part's blocks share one names dict per column (the last argument below), so joining the
# blocks' tables never merges dicts.


def _table(facts: list[_Fact], predicates: dict[int, str]) -> KeyTable:
    """The facts' key table (:func:`~openodke.eval.engine.keyhash.fact_hashes`)."""
    n = len(facts)
    subject, obj, predicate = (np.empty(n, np.int64) for _ in range(3))
    literal = np.empty(n, np.uint8)
    fact_hashes(facts, normalise_value, _scoped, subject, obj, predicate, literal, predicates)
    return KeyTable(subject, obj, literal.view(bool), predicate, predicates)


def _cited(rows: list[_Fact], names: dict[int, str]) -> DocColumn:
    """Each prediction's cited documents."""
    n = len(rows)
    hashes, counts = np.empty(n, np.int64), np.empty(n, np.int64)
    doc_hashes(rows, True, hashes, counts, names)
    more = {
        j: tuple(dict.fromkeys(e.doc_id for e in rows[j].evidence))
        for j in np.flatnonzero(counts > 1).tolist()
    }
    return DocColumn(hashes, names, counts > 0, more)


def _gold_docs(rows: list[_Gold], names: dict[int, str]) -> DocColumn:
    hashes = np.empty(len(rows), np.int64)
    doc_hashes(rows, False, hashes, hashes, names)  # no counts for gold: any buffer will do
    return DocColumn(hashes, names, np.ones(len(rows), dtype=bool))


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of rows are built (see below)."""
    # Millions of small containers make the cyclic collector rescan the heap over and over;
    # nothing here builds a cycle, so it is paused while rows load, and what was loaded is moved
    # out of its sight (gc.freeze) so it is not rescanned later either. Refcounting frees it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


F = TypeVar("F", bound=Callable[..., Any])


def without_gc(function: F) -> F:
    """Run ``function`` with the cyclic collector paused (see :func:`paused_gc`)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with paused_gc():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


_FAST_ERRORS = (msgspec.DecodeError, ValueError, UnicodeDecodeError, OSError)
_CHUNK = 256 << 10  # bytes decoded at once: small enough that its rows stay in the CPU cache
_Range = tuple[int, int]


def _ranges(path: Path, parts: int) -> list[_Range]:
    """``parts`` byte ranges of the file that start and end at line breaks (BOM skipped)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        start = 3 if handle.read(3) == b"\xef\xbb\xbf" else 0
        cuts = [start]
        for k in range(1, parts):
            handle.seek(max(cuts[-1], start + (size - start) * k // parts))
            handle.readline()
            cuts.append(min(handle.tell(), size))
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _chunks(path: Path, span: _Range) -> Iterator[memoryview]:
    """The lines of ``span`` in blocks of about ``_CHUNK`` bytes, each ending at a line break:
    views of the file mapped into memory, so no byte is copied."""
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    start, end = span
    while start < end:
        cut = mapped.find(b"\n", min(start + _CHUNK, end) - 1, end)
        stop = end if cut < 0 else cut + 1
        yield view[start:stop]
        start = stop


def _gold_part(path: str, span: _Range) -> tuple[DocColumn, KeyTable]:
    decode = msgspec.json.Decoder(_Gold).decode_lines
    docs: list[DocColumn] = []
    keys: list[KeyTable] = []
    names: dict[int, str] = {}
    predicates: dict[int, str] = {}
    with paused_gc():
        for block in _chunks(Path(path), span):
            rows = decode(block)
            docs.append(_gold_docs(rows, names))
            keys.append(_table([g.fact for g in rows], predicates))
    if not keys:
        raise ValueError("no rows")  # the pydantic reader says what is wrong
    return DocColumn.concat(docs), KeyTable.concat(keys)


# Set by load_both before its workers fork, so they inherit it instead of receiving a copy.
_CHECKS: FactChecks | None = None


def _prediction_part(path: str, span: _Range) -> tuple[DocColumn, KeyTable, bytes | None]:
    decode = msgspec.json.Decoder(_Fact).decode_lines
    docs: list[DocColumn] = []
    keys: list[KeyTable] = []
    names: dict[int, str] = {}
    predicates: dict[int, str] = {}
    checks = _CHECKS
    flags: list[np.ndarray] = []
    with paused_gc():
        for block in _chunks(Path(path), span):
            rows = decode(block)
            cited = _cited(rows, names)
            docs.append(cited)
            keys.append(_table(rows, predicates))
            if checks is not None:
                flags.append(checks.flags(rows, cited))
    if not keys:
        raise ValueError("no rows")
    raw = np.concatenate(flags).tobytes() if checks is not None else None
    return DocColumn.concat(docs), KeyTable.concat(keys), raw


def _gold_slow(path: Path) -> KeyRows:
    gold = load_jsonl(path, GoldFact)
    return KeyRows([row.doc_id for row in gold], [fact_key(row.fact) for row in gold])


def _predictions_slow(path: Path) -> PredictionKeyRows:
    facts = load_jsonl(path, Fact)
    flags = None
    if _CHECKS is not None:
        flags = _CHECKS.of_facts(facts)
    return PredictionKeyRows([f.doc_ids for f in facts], [fact_key(f) for f in facts], flags)


def load_gold_keys(path: str | Path) -> KeyRows:
    """Each GoldFact line's document and key; the pydantic reader on any line refused here."""
    try:
        return KeyRows(*_gold_part(str(path), _ranges(Path(path), 1)[0]))
    except (*_FAST_ERRORS, IndexError):
        pass
    return _gold_slow(Path(path))


def load_prediction_keys(path: str | Path) -> PredictionKeyRows:
    """Each Fact line's cited documents and key; the pydantic reader on any line refused here."""
    try:
        cited, keys, flags = _prediction_part(str(path), _ranges(Path(path), 1)[0])
        return PredictionKeyRows(cited, keys, _flags(flags))
    except (*_FAST_ERRORS, IndexError):
        pass
    return _predictions_slow(Path(path))


def _flags(raw: bytes | None) -> np.ndarray | None:
    return None if raw is None else np.frombuffer(raw, dtype=np.int8)


# Above this many bytes in all, the files are read in parts by worker processes.
PARALLEL_BYTES = 64 << 20


def load_both(
    labels: str | Path,
    predictions: str | Path,
    *,
    workers: int | None = None,
    checks: FactChecks | None = None,
) -> tuple[KeyRows, PredictionKeyRows]:
    """Gold and prediction keys, large files read in parts by ``workers`` processes at once.

    Parts are byte ranges cut at line breaks and joined back in order, so the result is the same
    as reading each file whole. Any part the fast path refuses sends that file through the
    pydantic reader, which names the bad line. With ``checks``, each prediction's flags
    (:mod:`openodke.eval.pipeline.fact_checks`) come back too.
    """
    global _CHECKS
    _CHECKS = checks
    try:
        return _load_both(Path(labels), Path(predictions), workers)
    finally:
        _CHECKS = None


def _load_both(
    gold_path: Path, said_path: Path, workers: int | None
) -> tuple[KeyRows, PredictionKeyRows]:
    total = gold_path.stat().st_size + said_path.stat().st_size
    workers = workers or min(os.cpu_count() or 1, 4)
    if total < PARALLEL_BYTES or workers < 2:
        return load_gold_keys(gold_path), load_prediction_keys(said_path)
    try:
        return _load_parallel(gold_path, said_path, workers)
    except BrokenProcessPool:  # a worker could not start or died: read here instead
        return load_gold_keys(gold_path), load_prediction_keys(said_path)


def _load_parallel(
    gold_path: Path, said_path: Path, workers: int
) -> tuple[KeyRows, PredictionKeyRows]:
    if "fork" not in multiprocessing.get_all_start_methods():
        # Workers must share this process's string hashes (key_table) and modules: only fork does.
        return load_gold_keys(gold_path), load_prediction_keys(said_path)
    gold_parts = _ranges(gold_path, workers)
    said_parts = _ranges(said_path, workers)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        gold_jobs = [pool.submit(_gold_part, str(gold_path), span) for span in gold_parts]
        said_jobs = [pool.submit(_prediction_part, str(said_path), span) for span in said_parts]
        with paused_gc():
            try:
                docs, keys = zip(*(job.result() for job in gold_jobs), strict=True)
                gold = KeyRows(DocColumn.concat(docs), KeyTable.concat(keys))
            except _FAST_ERRORS:
                gold = _gold_slow(gold_path)
            try:
                cited, said_keys, flags = zip(*(job.result() for job in said_jobs), strict=True)
                raw = b"".join(f or b"" for f in flags) if _CHECKS is not None else None
                said = PredictionKeyRows(
                    DocColumn.concat(cited), KeyTable.concat(said_keys), _flags(raw)
                )
            except _FAST_ERRORS:
                said = _predictions_slow(said_path)
    return gold, said
