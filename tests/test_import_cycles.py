"""No import circles in src/openodke (issue 20), found by reading the imports, not by running
them: every ``import``/``from ... import`` anywhere in a module (top level, inside functions,
under ``if TYPE_CHECKING``) is an edge to the most specific module it names (``from a.b import
c`` is ``a.b.c`` when that is a module, else ``a.b``, the package's ``__init__``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"

# The six circles issue 20 named, each as the modules in its order: none of them may come back.
BROKEN = [
    ["openodke.bench", "openodke.bench.run", "openodke.eval.pipeline.evaluate"],
    ["openodke.eval.diagnosis.explain", "openodke.eval.diagnosis.precision"],
    ["openodke.eval.diagnosis.fixes", "openodke.eval.report.io", "openodke.eval.report.models"],
    ["openodke.eval.diagnosis.models", "openodke.eval.diagnosis.render"],
    ["openodke.eval.stages.extract", "openodke.eval.stages.first_warnings"],
    ["openodke.stages.loaders", "openodke.stages.records"],
]

# One knot is left, known and not to grow: the report's models reach their exports (HTML,
# notebook, tables, pandas) through methods that import them, and those read the models back.
KNOT = {
    "openodke.eval.compare",
    "openodke.eval.diagnosis.fixes",
    "openodke.eval.engine.items",
    "openodke.eval.report.build",
    "openodke.eval.report.export",
    "openodke.eval.report.html.notebook",
    "openodke.eval.report.html.sections",
    "openodke.eval.report.io",
    "openodke.eval.report.models",
    "openodke.eval.report.tables",
    "openodke.eval.stages.extract",
    "openodke.eval.stages.stage_report",
    "openodke.eval.stats",
    "openodke.eval.stats.bootstrap",
    "openodke.eval.stats.paired",
    "openodke.eval.stats.significance",
    "openodke.eval.stats.units",
}


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Module name -> the openodke modules it imports."""
    files = {}
    for path in (src / "openodke").rglob("*.py"):
        parts = path.relative_to(src).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files else node.module
                    for a in node.names
                ]
            else:
                continue
            graph[name] |= {t for t in targets if t in files and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.add(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(part)
    return found


def test_the_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [{"a", "b", "c"}]


@pytest.mark.parametrize("circle", BROKEN, ids=lambda c: " <-> ".join(m.split(".")[-1] for m in c))
def test_a_named_circle_stays_broken(circle):
    graph = import_graph()
    steps = list(zip(circle, [*circle[1:], circle[0]], strict=True))
    assert not all(b in graph[a] for a, b in steps), f"the circle is back: {' -> '.join(circle)}"


def test_no_circle_outside_the_known_knot():
    outside = [sorted(part) for part in circles(import_graph()) if not part <= KNOT]
    assert outside == []
