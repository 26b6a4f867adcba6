"""The harness under ``odke eval pipeline``: run a pipeline three ways and read what it wrote.

- :func:`run_command` (``--cmd``): a command run with no shell on ``{in}``, writing ``{out}``;
- :func:`run_callable` (``--run``): a Python function called with the Documents;
- :func:`collect` (any mode, and ``--predictions``): the output as Facts matched to documents.
"""

from openodke.eval.harness.callable import run_callable
from openodke.eval.harness.collect import Collected, as_rows, check_last_line, collect
from openodke.eval.harness.runner import IN, OUT, CommandResult, file_names, run_command

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
