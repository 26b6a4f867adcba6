"""The ``odke`` command line. :func:`entry` is the console script's entry point.

It is defined here, in a module that imports nothing slow, so that Ctrl-C, SIGTERM or SIGHUP
while the commands load (half a second) ends the run quietly with 128 + the signal's number, as it
does once they have loaded (:mod:`openodke.cli.main`).
"""

from __future__ import annotations

__all__ = ["entry"]


def entry(argv: list[str] | None = None) -> None:
    """Run ``odke``: load the commands, then hand over to :func:`openodke.cli.main.main`."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if [word for word in args if word != "--debug"][:1] == ["--version"]:
        from openodke.cli.version import version_text

        sys.stdout.write(version_text())  # before typer and the commands load: at once
        sys.exit(0)
    import gc

    from openodke.threads import one_thread

    one_thread()  # before numpy loads: its BLAS reads the thread counts then
    before = gc.get_threshold()
    gc.set_threshold(*_THRESHOLDS)
    try:
        _start(args, argv)
    finally:
        gc.set_threshold(*before)


_THRESHOLDS = (20_000, 50, 1_000)
"""The cyclic collector's thresholds while a command runs (the defaults: 700, 10, 10). A command
imports ~500 modules and builds thousands of small models, none of them cyclic garbage; at the
defaults the collector rescanned them over and over (`odke run` already raised them while it
builds its facts, run/steps.py). It still runs, so cycles are freed. DECISIONS #289."""


def _start(args: list[str], argv: list[str] | None) -> None:
    import sys

    try:
        from openodke.cli import signals

        with signals.handled():
            from openodke.cli.main import main as run
        if argv is None:  # the console script: nothing of the caller's runs after the command
            # A signal outside the command's own handling (main's, which puts these back when
            # it is done) ends the process at once, quietly, however late it lands.
            signals.after_the_command()
    except KeyboardInterrupt as error:
        sys.stderr.write("interrupted while starting; nothing was read or written\n")
        sys.exit(128 + getattr(error, "signum", 2))  # 2: SIGINT, before our handler was in
    try:
        run(argv)
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as error:  # escaped the boundary (raised while handling a signal)
        if "--debug" in args:
            raise
        stopped = signals.received()
        sys.stderr.write(
            "interrupted\n"
            if stopped is not None
            else f"error: odke failed unexpectedly: {type(error).__name__}; rerun with --debug\n"
        )
        sys.exit(128 + stopped if stopped is not None else 1)
