"""``odke eval pipeline``: run a pipeline three ways, read what it wrote, score and diagnose it.

The harness:

- :func:`run_command` (``--cmd``): a command run with no shell on ``{in}``, writing ``{out}``;
- :func:`run_callable` (``--run``): a Python function called with the Documents;
- :func:`collect` (any mode, and ``--predictions``): the output as Facts matched to documents.

Then ``evaluate`` scores the Facts (one report row, with ``fact_checks`` for conformance and
hallucination) and ``findings`` diagnoses them and offers fixes. ``extras`` adds what
``--validator`` (``validator_row``), ``--adjudicate`` and ``--lenient`` ask for, through one
ground-role client (``judge_client``).

The names below load on first use: ``odke eval extract`` imports ``findings`` (this package's
``__init__`` first) and needs none of the harness (the adapters, the ontology behind them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openodke._lazy import lazy_names

if TYPE_CHECKING:
    from openodke.eval.pipeline.callable import run_callable
    from openodke.eval.pipeline.collect import Collected, as_rows, check_last_line, collect
    from openodke.eval.pipeline.runner import IN, OUT, CommandResult, file_names, run_command

__all__ = [
    "IN",
    "OUT",
    "Collected",
    "CommandResult",
    "as_rows",
    "check_last_line",
    "collect",
    "file_names",
    "run_callable",
    "run_command",
]

_HOMES = {
    "run_callable": "openodke.eval.pipeline.callable",
    **dict.fromkeys(
        ("Collected", "as_rows", "check_last_line", "collect"), "openodke.eval.pipeline.collect"
    ),
    **dict.fromkeys(
        ("IN", "OUT", "CommandResult", "file_names", "run_command"), "openodke.eval.pipeline.runner"
    ),
}
"""Where each public name lives."""

__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__)
