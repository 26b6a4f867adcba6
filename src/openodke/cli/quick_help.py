"""``odke [GROUP] [COMMAND] --help`` answered from the click command typer builds, without parsing
the command line: typer coerces every option value it parses with a pydantic ``TypeAdapter``
(the help flag's own unset value included), and importing pydantic and building one took about
half of `odke eval extract --help` (issue 20, DECISIONS #241). The text is the one click prints."""

from __future__ import annotations

from collections.abc import Sequence

import typer
import typer.main

__all__ = ["help_text"]


def help_text(app: typer.Typer, args: Sequence[str], prog_name: str) -> str | None:
    """The help of the command ``args`` names when they are command names then ``--help``;
    None for any other command line (an option, an argument, a name no group has: click parses
    those and says what is wrong)."""
    if not args or args[-1] != "--help" or any(word.startswith("-") for word in args[:-1]):
        return None
    command = typer.main.get_command(app)
    context = typer.Context(command, info_name=prog_name, **command.context_settings)
    for word in args[:-1]:
        group = getattr(command, "get_command", None)
        found = group(context, word) if group is not None else None
        if found is None:
            return None
        command = found
        context = typer.Context(command, info_name=word, parent=context, **command.context_settings)
    return command.get_help(context)
