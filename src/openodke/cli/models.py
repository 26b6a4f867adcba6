"""``odke models``: the providers, their environment variables (set or not) and the priced models."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from openodke.llm.providers import ProviderInfo

__all__ = ["register"]

_HELP = """List the model providers, the environment variables each reads (set or not; a value is never shown) and the models the price table prices.

A model string is <provider>/<model>. A model not listed under priced models is unpriced: its cost is null, never guessed.

Examples:

  odke models

  odke models --json
"""


def _provider_lines(info: ProviderInfo) -> list[str]:
    parts = []
    if info.endpoint_env:
        parts.append(
            f"endpoint {info.endpoint_env}: {'set' if info.endpoint_env_set else 'not set'}"
        )
    if info.key_env:
        need = "required" if info.key_required else "optional here"
        parts.append(f"key {info.key_env}: {'set' if info.key_env_set else 'not set'} ({need})")
    else:
        parts.append("no key (api_key_env sends one)")
    return [f"  {info.prefix:<10} POST {info.endpoint}", f"  {'':<10} {'; '.join(parts)}"]


def register(app: typer.Typer) -> None:
    """Add ``models`` to the root ``odke`` app."""

    @app.command("models", help=_HELP)
    def models(
        as_json: Annotated[bool, typer.Option("--json", help="Print the lists as JSON.")] = False,
    ) -> None:
        from openodke.llm.prices import table_source
        from openodke.llm.providers import describe_providers, priced_models

        providers = describe_providers()
        priced = priced_models()
        if as_json:
            payload = {
                "providers": [info.model_dump() for info in providers],
                "priced_models": [row.model_dump() for row in priced],
            }
            typer.echo(json.dumps(payload, indent=2))
            return
        lines = ["Providers (a model string is <provider>/<model>):"]
        for info in providers:
            lines += _provider_lines(info)
        width = max(len(row.model) for row in priced)
        lines += ["", "Priced models (USD per million tokens, input / output):"]
        lines += [
            f"  {row.model:<{width}}  {row.input:>6.2f} / {row.output:>6.2f}" for row in priced
        ]
        lines += [
            "",
            f"Prices from {table_source()}; a dated name takes its model's price; "
            "ollama/ models cost 0 (your machine).",
            "Any other model is unpriced: its cost is null, never guessed; give one with "
            "--price in=X,out=Y or prices: in a run config.",
        ]
        typer.echo("\n".join(lines))
