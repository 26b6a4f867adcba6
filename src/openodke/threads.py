"""BLAS thread pools held to one thread in ``odke``'s own process, never in the programs it runs.

No command multiplies a matrix worth a thread, and OpenBLAS's threads spin for about a tenth of
a second after numpy loads, on the cores ``odke eval extract``'s file readers work on (4% of its
CPU on 200k + 200k facts). The variables are read when numpy loads, so :func:`one_thread` runs
first thing; a variable the caller set is left as it is, and a program ``odke`` starts (an
extraction pipeline, ``--cmd``) gets the caller's environment back (:func:`child_environment`).
DECISIONS 322.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["NAMES", "child_environment", "one_thread"]

NAMES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_SET: list[str] = []  # the ones one_thread set, not the caller


def one_thread() -> None:
    """Set each of :data:`NAMES` the caller did not set to 1."""
    for name in NAMES:
        if name not in os.environ:
            os.environ[name] = "1"
            _SET.append(name)


def child_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a program ``odke`` runs: the caller's (without what
    :func:`one_thread` set), with ``extra``."""
    env = {name: value for name, value in os.environ.items() if name not in _SET}
    env.update(extra or {})
    return env
