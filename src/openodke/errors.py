"""Every error openodke raises on purpose, and the exit code each maps to.

Library code raises these; only the CLI turns them into an exit code and one line on stderr.
"""

from __future__ import annotations

__all__ = [
    "BudgetStop",
    "CallsFailed",
    "CompareGateFailed",
    "GateFailed",
    "InputError",
    "ModelConfigError",
    "OdkeError",
    "OntologyLoadError",
    "OutputError",
    "PipelineError",
    "ProviderError",
    "ProviderUnavailable",
    "ReportBug",
    "RunStop",
    "Terminated",
    "exit_code_for",
]


class OdkeError(Exception):
    """Base class: an expected failure with a one-line message and an exit code."""

    exit_code: int = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(OdkeError, ValueError):
    """Unreadable or invalid input. The message reads `path:line: what is wrong`."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class ModelConfigError(InputError):
    """A model that cannot be called: an unknown provider prefix or a missing key, found before any call.

    The message names the variable, never its value.
    """


class OntologyLoadError(InputError):
    """An ontology that does not load; the message lists every problem found."""

    def __init__(self, problems: list[str], *, path: str | None = None) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems), path=path)


class PipelineError(OdkeError):
    """A pipeline that failed: a command exited non-zero, timed out or wrote nothing."""

    exit_code = 1


class ProviderError(OdkeError):
    """A model provider call that failed after its retries."""

    exit_code = 1


class RunStop(OdkeError):
    """Something that ends a model run at once, however many calls remain: a budget about to be
    passed, a provider that refuses the key or cannot be reached. Code that turns a call's
    exception into a failed call re-raises these."""


class ProviderUnavailable(RunStop, ProviderError):
    """The provider refuses the key (401/403) or cannot be reached (connection refused): every
    further call would fail the same way, so the run stops after the first few with this."""

    exit_code = 1


class CallsFailed(ProviderError):
    """Model calls failed and left more facts or documents unchecked than ``--allow-failures``."""

    exit_code = 1


class GateFailed(OdkeError):
    """A gate on one run (``--fail-under`` on a score) that did not pass."""

    exit_code = 1


class CompareGateFailed(GateFailed):
    """A compare gate (`--fail-under`, worse, `--fail-on-inconclusive`) that did not pass."""


class OutputError(OdkeError, OSError):
    """An output that could not be written for a reason outside the input (a full disk)."""

    exit_code = 1


class ReportBug(OdkeError):
    """A report that fails its own schema when written: a bug in openodke, exit 1."""

    exit_code = 1


class BudgetStop(RunStop):
    """The next model call would pass the run's budget."""

    exit_code = 3


class Terminated(KeyboardInterrupt):
    """A signal that ends the run (SIGINT, SIGTERM, SIGHUP), raised where the program is.

    A KeyboardInterrupt, so every clean-up that Ctrl-C runs (ending a ``--cmd`` process group,
    removing temp folders) runs for the others too. The exit code is 128 + the signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_code_for(error: BaseException) -> int:
    """The process exit code for an error: its own for OdkeError, 128 + the signal for a
    Terminated, 130 for Ctrl-C, else 1."""
    if isinstance(error, OdkeError):
        return error.exit_code
    if isinstance(error, Terminated):
        return 128 + error.signum
    if isinstance(error, KeyboardInterrupt):
        return 130
    return 1
