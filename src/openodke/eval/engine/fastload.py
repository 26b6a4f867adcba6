"""Reading GoldFact and Fact files straight to columns: the engine's loader, at every size.

Lines are decoded a few hundred kilobytes of the memory-mapped file at a time into msgspec structs
(:mod:`~openodke.eval.engine.structs`), and each block is hashed into
:class:`~openodke.eval.engine.columns.FactColumns` with each row's byte offset, so the few rows the
diagnosis must read in words are found again (:class:`~openodke.eval.engine.rows.FileRows`).
Files past :data:`PARALLEL_BYTES` are read in parts by forked workers; that only decides how many
processes read, never what is read or what a user gets.

Any line the structs refuse sends the whole file through the pydantic reader instead, which
either accepts it (a coercion only pydantic makes) or raises the usual ``path:line: what is
wrong``. So the loader never accepts what the models refuse.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

from openodke.eval.engine.columns import FactColumns, cited_block, gold_column
from openodke.eval.engine.halves import as_child
from openodke.eval.engine.keyhash import line_starts
from openodke.eval.engine.parts import (
    KEY_FIELDS,
    Part,
    PartNames,
    SharedParts,
    capacity,
    fields,
    gather_end_to_end,
    side,
)
from openodke.eval.engine.pause import paused_gc, without_gc
from openodke.eval.engine.rows import FileRows, ModelRows
from openodke.eval.engine.structs import Fact as FactStruct
from openodke.eval.engine.structs import Gold as GoldStruct
from openodke.eval.engine.structs import check_rows
from openodke.safeio import max_line_bytes, open_regular
from openodke.safeio.limits import MAX_NESTING

if TYPE_CHECKING:  # fact_checks reads the report models, which read the diagnosis, which reads this
    from openodke.eval.diagnosis.texts import TextAnswers
    from openodke.eval.pipeline.fact_checks import FactChecks

__all__ = [
    "PARALLEL_BYTES",
    "load_both",
    "load_facts",
    "load_gold",
    "load_gold_answered",
    "paused_gc",
    "without_gc",
]

_FAST_ERRORS = (msgspec.DecodeError, ValueError, UnicodeDecodeError, OSError, RecursionError)
# Bytes decoded at once. Each block pays a few dozen numpy calls whatever its size: at 256 KB
# (300 rows of a Fact file) that was 5-8% of reading; 1 MB blocks still decode to a few MB of
# structs (DECISIONS 304).
_CHUNK = 1 << 20
_Range = tuple[int, int]
_PENDING = ModelRows(())  # a part's rows before the parent knows the whole file's offsets
_BLANK = frozenset(b" \t\r\n")


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


def _chunks(path: Path, span: _Range) -> Iterator[tuple[int, memoryview]]:
    """The lines of ``span`` in blocks of about ``_CHUNK`` bytes, each ending at a line break,
    with the offset it starts at: views of the file mapped into memory, so no byte is copied."""
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    start, end = span
    cap = max_line_bytes()
    while start < end:
        # A line past the limit is left to the careful reader, which names it: never decoded.
        reach = min(end, start + _CHUNK + cap)
        cut = mapped.find(b"\n", min(start + _CHUNK, end) - 1, reach)
        if cut < 0 and reach < end:
            raise ValueError("a line longer than the limit")
        stop = end if cut < 0 else cut + 1
        yield start, view[start:stop]
        _release(mapped, start, stop)
        start = stop


def _release(mapped: mmap.mmap, start: int, stop: int) -> None:
    """Drop the pages of ``[start, stop)`` already decoded from this process's resident set:
    a mapped page once read counts as this process's memory until then (a 300 MB file would
    add 300 MB to the peak). The file is unchanged; a page read again is read from the cache."""
    page = mmap.PAGESIZE
    first = -(-start // page) * page  # whole pages only: the next block may share the last
    last = stop // page * page
    if last > first and hasattr(mapped, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
        mapped.madvise(mmap.MADV_DONTNEED, first, last - first)


def _starts(block: memoryview, rows: int) -> np.ndarray:
    """Where each line of ``block`` holding JSON starts (blank lines skipped, as the decoder
    skips them); ValueError when that is not ``rows`` lines."""
    starts = np.empty(rows, np.int64)
    if line_starts(block, starts) != rows:
        raise ValueError("the lines and the decoded rows disagree")
    return starts


# Set by load_both before its workers fork, so they inherit them instead of receiving a copy.
_CHECKS: FactChecks | None = None
_TEXTS: TextAnswers | None = None
_SHARED: dict[bool, SharedParts] | None = None  # each file's parts' memory, by "is it gold"
_PartOut = tuple[PartNames, dict[str, np.ndarray] | None]
# In a worker: the documents it has named to the parent, per file ("is it gold").
_NAMED: dict[bool, set[int]] = {True: set(), False: set()}


def _part(path: str, span: _Range, gold: bool, shared: int | None = None) -> _PartOut:
    """A byte range of a file as arrays (:mod:`~openodke.eval.engine.parts`) and their names:
    written into part ``shared`` of :data:`_SHARED` (a worker: only the names come back), or
    into arrays of this process's own (given back, only the rows written)."""
    decode = msgspec.json.Decoder(GoldStruct if gold else FactStruct).decode_lines
    checks = None if gold else _CHECKS
    texts = _TEXTS if gold else None
    if shared is None:
        wanted = fields(flags=checks is not None, answers=texts is not None)
        part = Part.allocate(capacity(span[1] - span[0]), wanted)
    else:
        assert _SHARED is not None
        part = _SHARED[gold].part(shared)
    names = part.names.docs
    predicates: dict[int, str] = {}
    types = part.names.types
    with paused_gc():
        for start, block in _chunks(Path(path), span):
            rows: list[Any] = decode(block)
            if gold:
                facts, docs = [g.fact for g in rows], gold_column(rows, names)
            else:
                facts, docs = rows, cited_block(rows, names)
            check_rows(facts, MAX_NESTING)
            columns = FactColumns.build(facts, docs, _PENDING, predicates, types)
            if checks is not None:
                columns.flags = checks.flags(rows, docs)
            if texts is not None:
                columns.answers = texts.block(
                    facts,
                    [g.doc_id for g in rows],
                    (columns.subject_node, columns.object_node),
                    (columns.subject_names, columns.object_names),
                )
            part.add(columns, start + _starts(block, len(rows)))
    if not part.names.rows:
        raise ValueError("no rows")  # the pydantic reader says what is wrong
    if shared is None:
        return part.names, part.written()
    # A worker names each document once per file: the parent joins the parts' names in file
    # order and a worker reads its parts in that order, so one it named before is already
    # there, ahead of this part's (the joined names, and their order, are the same).
    named = _NAMED[gold]
    part.names.docs = {h: name for h, name in part.names.docs.items() if h not in named}
    named.update(part.names.docs)
    return part.names, None


def _joined(path: Path, names: PartNames, arrays: dict[str, np.ndarray], gold: bool) -> FactColumns:
    return side(arrays, names, FileRows(path, arrays["offsets"], gold=gold))


def _slow(path: Path, gold: bool) -> FactColumns:
    """The pydantic reader's rows as columns (it names the first bad line, if any). The models
    are imported here: the fast path and its forked workers start without pydantic."""
    from openodke.eval.engine.jsonl import load_jsonl
    from openodke.eval.stages.labels import GoldFact
    from openodke.types import Fact

    if gold:
        return FactColumns.of_gold(load_jsonl(path, GoldFact))  # the diagnosis answers later
    facts = load_jsonl(path, Fact)
    columns = FactColumns.of_facts(facts)
    if _CHECKS is not None:
        columns.flags = _CHECKS.of_facts(facts)
    return columns


def _read(path: Path, gold: bool) -> FactColumns:
    open_regular(path, what="a JSONL file").close()  # a FIFO or a device: refused, never read
    try:
        names, arrays = _part(str(path), _ranges(path, 1)[0], gold)
        assert arrays is not None
        return _joined(path, names, arrays, gold)
    except (*_FAST_ERRORS, IndexError):
        pass
    return _slow(path, gold)


def load_gold(path: str | Path) -> FactColumns:
    """A GoldFact file as columns (the pydantic reader on any line refused here)."""
    return _read(Path(path), True)


def load_facts(path: str | Path) -> FactColumns:
    """A Fact file as columns (the pydantic reader on any line refused here)."""
    return _read(Path(path), False)


def load_gold_answered(labels: str | Path, texts: TextAnswers | None = None) -> FactColumns:
    """:func:`load_gold` with what the documents' ``texts`` say of each row, as
    :func:`load_both` gives (read in this process)."""
    global _TEXTS
    _TEXTS = texts
    try:
        gold = _read(Path(labels), True)
    finally:
        _TEXTS = None
    if texts is not None and gold.answers is not None:
        texts.join(gold.docs.names.values())
        gold.answered_from = texts.texts
    return gold


# From this many bytes in all, the files are read in parts by worker processes. It only decides
# how many processes read: forking costs about as much as reading a few megabytes.
PARALLEL_BYTES = 8 << 20


def load_both(
    labels: str | Path,
    predictions: str | Path,
    *,
    workers: int | None = None,
    checks: FactChecks | None = None,
    texts: TextAnswers | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> tuple[FactColumns, FactColumns]:
    """Gold and prediction columns, read in parts by ``workers`` processes at once.

    Parts are byte ranges cut at line breaks and joined back in order, so the result is the same
    as reading each file whole. Any part the fast path refuses sends that file through the
    pydantic reader, which names the bad line. With ``checks``, each prediction's flags
    (:mod:`openodke.eval.pipeline.fact_checks`) come back too (``flags``); with ``texts``, what
    the documents' texts say of each gold row (``answers``), worked out as the rows are read.
    ``meanwhile`` is called while the workers read (after they started), or after reading.
    """
    global _CHECKS, _TEXTS
    _CHECKS, _TEXTS = checks, texts
    try:
        gold, said = _load_both(Path(labels), Path(predictions), workers, meanwhile)
    finally:
        _CHECKS = _TEXTS = None
    if texts is not None and gold.answers is not None:
        texts.join(gold.docs.names.values())  # as the workers did, each their own
        gold.answered_from = texts.texts
    return gold, said


def _load_both(
    gold_path: Path, said_path: Path, workers: int | None, meanwhile: Callable[[], object] | None
) -> tuple[FactColumns, FactColumns]:
    for path in (gold_path, said_path):
        open_regular(path, what="a JSONL file").close()
    total = gold_path.stat().st_size + said_path.stat().st_size
    if workers is None:
        workers = 1 if total < PARALLEL_BYTES else min(os.cpu_count() or 1, 4)
    if workers >= 2 and "fork" in multiprocessing.get_all_start_methods():
        # Workers must share this process's string hashes (key_table) and modules: only fork does.
        try:
            return _load_parallel(gold_path, said_path, workers, meanwhile)
        except (BrokenProcessPool, OSError):  # a worker could not start or died, or no memory
            pass  # could be shared: read here instead
    both = _read(gold_path, True), _read(said_path, False)
    if meanwhile is not None:
        meanwhile()
    return both


def _load_parallel(
    gold_path: Path, said_path: Path, workers: int, meanwhile: Callable[[], object] | None
) -> tuple[FactColumns, FactColumns]:
    global _SHARED
    spans = {
        gold: _ranges(path, _shares(path, workers))
        for gold, path in ((True, gold_path), (False, said_path))
    }
    shared = {  # made before the workers fork, so they write where this process reads
        gold: SharedParts(
            [capacity(b - a) for a, b in spans[gold]],
            fields(flags=not gold and _CHECKS is not None, answers=gold and _TEXTS is not None),
        )
        for gold in (True, False)
    }
    _SHARED = shared
    context = multiprocessing.get_context("fork")
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=as_child,  # dies with this process, leaves Ctrl-C to it
            initargs=(os.getpid(),),
        ) as pool:
            try:
                return _collect(pool, (gold_path, said_path), spans, shared, meanwhile)
            except BaseException:
                _stop(pool)  # Ctrl-C, SIGTERM, an error: no worker reads on, none outlives this
                raise
    finally:
        _SHARED = None
        for parts in shared.values():
            parts.close()


def _stop(pool: ProcessPoolExecutor) -> None:
    """End every worker now: pending parts are dropped, running ones killed."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=2)


def _collect(
    pool: ProcessPoolExecutor,
    paths: tuple[Path, Path],
    spans: dict[bool, list[_Range]],
    shared: dict[bool, SharedParts],
    meanwhile: Callable[[], object] | None,
) -> tuple[FactColumns, FactColumns]:
    jobs = {
        gold: [pool.submit(_part, str(path), span, gold, k) for k, span in enumerate(spans[gold])]
        for gold, path in zip((True, False), paths, strict=True)
    }
    if meanwhile is not None:  # the workers are forked by now: this process may import
        meanwhile()
    read: dict[bool, tuple[PartNames, list[int], dict[str, np.ndarray]]] = {}
    slow: dict[bool, FactColumns] = {}
    with paused_gc():
        for gold, path in zip((True, False), paths, strict=True):
            pending, names, rows = jobs[gold], PartNames(), []
            try:
                while pending:  # each part's names joined and let go: every part names the
                    part = pending.pop(0).result()[0]  # documents its rows cite, often all
                    names.add(part)
                    rows.append(part.rows)
                    del part
            except _FAST_ERRORS:
                slow[gold] = _slow(path, gold)
                continue
            # All but the key columns now, while the workers read on; those wait for the
            # other file, to be laid end to end with its own.
            rest = [name for name, _ in shared[gold].wanted if name not in KEY_FIELDS]
            read[gold] = (names, rows, shared[gold].gather(rows, rest))
        gather_end_to_end([(shared[g], read[g][1], read[g][2]) for g in (True, False) if g in read])
    out = [
        slow[g] if g in slow else _joined(path, read[g][0], read[g][2], g)
        for g, path in zip((True, False), paths, strict=True)
    ]
    return out[0], out[1]


def _shares(path: Path, workers: int) -> int:
    """How many parts ``path`` is cut into: up to ``2 * workers``, none under an eighth of
    :data:`PARALLEL_BYTES`.

    Parts are handed to the workers in order as each finishes one, so small parts keep every
    worker busy to the end: a gold file's rows are short and cost more per byte than a Fact
    file's, and cutting the two files by size alone left one worker reading the whole gold file
    while the other ran out of work. Each part sends back the names of the documents its rows
    cite, often all of them, so more parts cost the parent more (DECISIONS.md 279)."""
    smallest = max(PARALLEL_BYTES // 8, 1)
    return max(1, min(2 * workers, path.stat().st_size // smallest))
