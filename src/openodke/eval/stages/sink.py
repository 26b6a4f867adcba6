"""The sink check: write one graph several times and count once after each write.

A sink is idempotent when writing the same graph again changes none of the counts: a second run
over the same input must not duplicate facts, entities or links. The count is any callable you
pass (rows per file, nodes per label in a store); ``jsonl_counts`` is the one for JsonlSink.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from openodke.eval.stages.stage_report import StageReport, fmt
from openodke.protocols import bind_stage, call_stage
from openodke.types import KnowledgeGraph

__all__ = ["assert_idempotent", "check_idempotency", "jsonl_counts"]

Count = Callable[[], Mapping[str, int] | int]


def _counted(value: Mapping[str, int] | int) -> dict[str, int]:
    if isinstance(value, bool) or not isinstance(value, int | Mapping):
        raise TypeError(f"a count must return an int or a mapping of name → int, got {value!r}")
    return (
        {"count": value} if isinstance(value, int) else {str(k): int(v) for k, v in value.items()}
    )


def check_idempotency(
    sink: object, graph: KnowledgeGraph, count: Count, *, writes: int = 2
) -> StageReport:
    """Write ``graph`` with ``sink.write`` ``writes`` times, calling ``count()`` after each.

    Metrics: ``writes``; ``counts`` (how many counts were taken per write); ``changed`` (how
    many of them differ from the first write's, None when nothing was counted). Breakdown per
    count: its value after each write and ``unchanged``. The first note says whether every count
    held.
    """
    if writes < 2:
        raise ValueError(f"writes must be at least 2 to compare anything, got {writes}")
    write = bind_stage(sink, "write")
    taken: list[dict[str, int]] = []
    for i in range(1, writes + 1):
        call_stage(write, graph, where=f"write {i} of {writes}")
        taken.append(_counted(call_stage(count, where=f"the count after write {i}")))
    names = list(dict.fromkeys(name for counts in taken for name in counts))
    breakdown: dict[str, dict[str, Any]] = {}
    changed: list[str] = []
    series: dict[str, list[int | None]] = {}
    for name in names:
        values = series[name] = [counts.get(name) for counts in taken]
        held = all(v == values[0] for v in values)
        breakdown[name] = {f"write {i}": v for i, v in enumerate(values, start=1)}
        breakdown[name]["unchanged"] = held
        if not held:
            changed.append(name)
    if not names:
        note = f"nothing was counted over {writes} writes: idempotency is untested"
    elif not changed:
        note = f"idempotent: every count unchanged over {writes} writes"
    else:
        moves = ", ".join(f"{name} " + " → ".join(map(fmt, series[name])) for name in changed)
        note = f"not idempotent over {writes} writes: {moves}"
    return StageReport(
        stage="sink",
        n=len(graph),
        metrics={
            "writes": writes,
            "counts": len(names),
            "changed": len(changed) if names else None,
        },
        breakdown=breakdown,
        notes=(note,),
    )


def assert_idempotent(
    sink: object, graph: KnowledgeGraph, count: Count, *, writes: int = 2
) -> StageReport:
    """``check_idempotency``, raising AssertionError (with the note) when any count changed."""
    report = check_idempotency(sink, graph, count, writes=writes)
    if report.metrics["changed"]:
        raise AssertionError(report.notes[0])
    return report


def jsonl_counts(directory: str | Path) -> Callable[[], dict[str, int]]:
    """A count for JsonlSink: non-blank lines in each ``*.jsonl`` file in ``directory``, by name.

    The folder is read on each call, so the callable can be made before the first write.
    """
    folder = Path(directory)

    def count() -> dict[str, int]:
        if not folder.is_dir():
            return {}
        return {
            path.name: sum(1 for line in path.read_bytes().splitlines() if line.strip())
            for path in sorted(folder.glob("*.jsonl"))
        }

    return count
