"""``odke [GROUP] [COMMAND] --help`` answered from the click command typer builds, without parsing
the command line: typer coerces every option value it parses with a pydantic ``TypeAdapter``
(the help flag's own unset value included), and importing pydantic and building one took about
half of `odke eval extract --help` (issue 20, DECISIONS #241). The text is the one click prints."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import typer
import typer.main

__all__ = ["help_text"]


def help_text(app: typer.Typer, args: Sequence[str], prog_name: str) -> str | None:
    """The help of the command ``args`` names when they are command names then ``--help``;
    None for any other command line (an option, an argument, a name no group has: click parses
    those and says what is wrong)."""
    if not args or args[-1] != "--help" or any(word.startswith("-") for word in args[:-1]):
        return None
    command = _command_tree(app, target=args[-2] if len(args) > 1 else None)
    context = typer.Context(command, info_name=prog_name, **command.context_settings)
    for word in args[:-1]:
        group = getattr(command, "get_command", None)
        found = group(context, word) if group is not None else None
        if found is None:
            return None
        command = found
        context = typer.Context(command, info_name=word, parent=context, **command.context_settings)
    return command.get_help(context)


def _command_tree(app: typer.Typer, target: str | None) -> Any:
    """The click command typer builds for ``app``, each command but ``target`` as a group's help
    lists it: its name and help, without the parameters (reading every command's signature and
    type hints was most of `odke --help`, which lists 30 commands and shows none)."""
    build = typer.main.get_command_from_info

    def listed(command_info: Any, **settings: Any) -> Any:
        name = command_info.name or typer.main.get_command_name(command_info.callback.__name__)
        if name == target:
            return build(command_info, **settings)
        use_help = command_info.help
        use_help = (
            inspect.getdoc(command_info.callback)
            if use_help is None
            else inspect.cleandoc(use_help)
        )
        return (command_info.cls or typer.core.TyperCommand)(
            name=name,
            context_settings=command_info.context_settings,
            help=use_help,
            epilog=command_info.epilog,
            short_help=command_info.short_help,
            options_metavar=command_info.options_metavar,
            add_help_option=command_info.add_help_option,
            no_args_is_help=command_info.no_args_is_help,
            hidden=command_info.hidden,
            deprecated=command_info.deprecated,
            rich_markup_mode=settings["rich_markup_mode"],
            rich_help_panel=command_info.rich_help_panel,
        )

    typer.main.get_command_from_info = listed
    try:
        return typer.main.get_command(app)
    finally:
        typer.main.get_command_from_info = build
