"""The model-backed options of ``odke eval pipeline``: ``--validator``, ``--adjudicate``,
``--lenient`` and the ground model's ``--cache``, ``--no-cache``, ``--max-workers``,
``--budget-usd``, ``--budget-calls``.

:func:`make_extras` reads the run config (``--config``, else a bench set's ``odke.json``) and
builds the ground model's client before anything runs, so a config with problems, an unknown
provider or a missing key exits 2 before the pipeline runs or any call is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from openodke.errors import InputError

if TYPE_CHECKING:
    from openodke.eval.pipeline.extras import Extras
    from openodke.eval.pipeline.model_options import ModelOptions

__all__ = [
    "Adjudicate",
    "Lenient",
    "Validator",
    "make_extras",
]

Opt = typer.Option

Validator = Annotated[
    bool,
    Opt(
        "--validator",
        help="Add a + validator row: what the Validator writes from the same output, its stages "
        "from --config (a --bench set's odke.json by default); its refusals are listed.",
    ),
]
Adjudicate = Annotated[
    Path | None,
    Opt(
        "--adjudicate",
        help="Ground each prediction the gold lacks 3 times; write the list here and print the "
        "adjudicated precision beside the strict one.",
    ),
]
Lenient = Annotated[
    Path | None,
    Opt(
        "--lenient",
        help="Ask the ground model whether near misses are the gold fact in other words (both "
        "orders); write the pairs here and print the lenient score beside the strict one.",
    ),
]


def make_extras(
    *,
    validator: bool,
    adjudicate: Path | None,
    lenient: Path | None,
    config: Path | None,
    bench: Path | None,
    options: ModelOptions,
    allow_failures: float | None = None,
    batch: bool = False,
    batch_poll: float | None = None,
) -> Extras:
    """What was asked beside the strict score, with its run config read and its model built.

    The run config is ``--config``, else the bench set's ``odke.json``; ``--adjudicate`` and
    ``--lenient`` without either ask the default ground model. InputError (exit 2) for a
    ``--validator`` with no config, or a config with problems (each printed on its own line).
    """
    from openodke.eval.pipeline.extras import Extras

    extras = Extras(
        validator=validator,
        adjudicate=adjudicate,
        lenient=lenient,
        allow_failures=allow_failures or 0.0,
    )
    if not extras.active:
        return extras
    from openodke.eval.pipeline.judge_client import GroundModel

    for flag, path in (("--adjudicate", adjudicate), ("--lenient", lenient)):
        if path is not None and path.is_dir():
            raise InputError(f"is a folder, expected a file path ({flag})", path=str(path))
    source = config
    if source is None and bench is not None and (bench / "odke.json").is_file():
        source = bench / "odke.json"
    if source is None and validator:
        raise InputError(
            "--validator needs a run config: give --config odke.yaml (a --bench set brings its "
            "own odke.json)"
        )
    if source is not None:
        from openodke.cli.run import report_config_error
        from openodke.run import ConfigError, load_config

        try:
            extras.config = load_config(source)
        except ConfigError as error:
            report_config_error(error)
            raise typer.Exit(2) from None
    extras.model = GroundModel(extras.config, options)
    extras.batch = batch or (extras.config is not None and extras.config.batch)
    extras.batch_poll = batch_poll
    return extras
