"""The options every model-calling command takes are declared once (cli/options.py:
CallOptions) and reach each command in one order, as one value (issue 20)."""

from __future__ import annotations

from dataclasses import fields
from types import SimpleNamespace

import pytest
import typer.main

from openodke.cli.main import _register, app
from openodke.cli.options import CALL_OPTIONS, CallOptions

SHARED = [f"--{field.name.replace('_', '-')}" for field in fields(CallOptions)]


def _command(*words: str):  # a (vendored) click command
    _register([*words, "--help"])
    command = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]  # type: ignore[attr-defined]
    return command


@pytest.mark.parametrize(
    ("words", "left_out"),
    [
        (("ground",), ()),
        (("validate",), ()),
        (("run",), ()),
        (("bench", "run"), ()),
        (("eval", "ablation"), ()),
        (("eval", "pipeline"), ("--rpm", "--tpm")),
    ],
    ids=" ".join,
)
def test_each_model_command_takes_the_shared_options_in_one_order(words, left_out):
    flags = [name for param in _command(*words).params for name in param.opts]
    taken = [flag for flag in flags if flag in SHARED]
    assert taken == [flag for flag in SHARED if flag not in left_out]
    assert "calls" not in [param.name for param in _command(*words).params]


def test_the_command_gets_one_value_with_what_was_given(tmp_path, monkeypatch):
    import openodke.cli.run as run_module

    seen: list[CallOptions] = []

    def execute(parsed, dry_run, *, options, from_manifest):  # noqa: ARG001
        seen.append(options)
        raise SystemExit(0)

    monkeypatch.setattr("openodke.run.execute", execute)
    monkeypatch.setattr("openodke.run.load_config", lambda path: SimpleNamespace(batch=False))
    command = _command("run")
    with pytest.raises(SystemExit):
        command.main(
            [str(tmp_path), "--max-workers", "3", "--rpm", "60", "--no-cache", "--json"],
            standalone_mode=False,
        )
    assert run_module.report_config_error  # the module the command lives in was loaded
    options = seen[0]
    assert (options.max_workers, options.rpm, options.no_cache, options.tpm) == (
        3,
        60.0,
        True,
        None,
    )
    assert options.progress is False  # --json: no progress bar
    assert CallOptions() == CALL_OPTIONS  # the marker default is every option unset
