"""Rebuild ``src/openodke/llm/prices.json`` from genai-prices' data (pydantic/genai-prices, MIT).

    .venv/bin/pip download --no-deps genai-prices -d /tmp/gp && unzip -q /tmp/gp/*.whl -d /tmp/gp/x
    .venv/bin/python tools/update_prices.py /tmp/gp/x [--today 2026-12-02]

genai-prices is a maintained table of what each provider charges, with every rate's source. Its
Python package needs ``httpx2`` and fetches updates at run time, so openodke does not depend on it:
this script reads the package's data module offline (``data.py``, loaded without the package's
``__init__``) and writes the Anthropic and OpenAI models' standard and Message/Batch API rates,
USD per million tokens, as of ``--today``, in the spec's format (``{"<provider>/<model>":
{input, output}}``, with ``batch_input``/``batch_output`` where there is a batch rate), and the
version it came from in ``prices-source.txt``. A tiered price keeps its
base rate (openodke's prompts are far below the first tier). Decision 150.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import sys
import types
from decimal import Decimal
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "src" / "openodke" / "llm" / "prices.json"
SOURCE = OUT.with_name("prices-source.txt")
PROVIDERS = ("anthropic", "openai")


def _load(root: Path) -> Any:
    """genai_prices.data, imported without running genai_prices/__init__.py."""
    folder = root / "genai_prices"
    package = types.ModuleType("genai_prices")
    package.__path__ = [str(folder)]
    sys.modules["genai_prices"] = package
    for name in ("types", "data"):
        spec = importlib.util.spec_from_file_location(f"genai_prices.{name}", folder / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["genai_prices.data"]


def _version(root: Path) -> str:
    for info in root.glob("genai_prices-*.dist-info"):
        return info.name.removeprefix("genai_prices-").removesuffix(".dist-info")
    return "unknown"


def _rate(value: Any) -> float | None:
    if value is None:
        return None
    base = getattr(value, "base", value)  # TieredPrices: the base rate
    return float(Decimal(base))


def _active(prices: Any, today: datetime.date) -> Any:
    """The ModelPrice in force on ``today`` (the last conditional price whose start has passed)."""
    if not isinstance(prices, list):
        return prices
    chosen = None
    for conditional in prices:
        start = getattr(conditional.constraint, "start_date", None)
        if start is None or start <= today:
            chosen = conditional.prices
    return chosen


def _names(model: Any) -> list[str]:
    """The model's id and every exact name its match clause lists."""
    names = [model.id]
    stack = [model.match]
    while stack:
        clause = stack.pop()
        equals = getattr(clause, "equals", None)
        if isinstance(equals, str):
            names.append(equals)
        stack += list(getattr(clause, "or_", None) or [])
    return list(dict.fromkeys(names))


def table(data: Any, today: datetime.date) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    for provider in data.providers:
        if provider.id not in PROVIDERS:
            continue
        for model in provider.models:
            price = _active(model.prices, today)
            if price is None:
                continue
            row = {"input": _rate(price.input_mtok), "output": _rate(price.output_mtok)}
            if row["input"] is None or row["output"] is None:
                continue
            for variant in getattr(model, "price_variants", None) or []:
                if variant.when == {"processing": "batch"}:
                    start = getattr(variant.constraint, "start_date", None)
                    if start is None or start <= today:
                        row["batch_input"] = _rate(variant.prices.input_mtok)
                        row["batch_output"] = _rate(variant.prices.output_mtok)
            for name in _names(model):
                rows.setdefault(f"{provider.id}/{name}", row)
    return dict(sorted(rows.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the unpacked genai-prices wheel")
    parser.add_argument("--today", type=datetime.date.fromisoformat, default=datetime.date.today())
    args = parser.parse_args()
    rows = table(_load(args.root), args.today)
    lines = [f" {json.dumps(name)}: {json.dumps(row)}" for name, row in rows.items()]
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    assert json.loads(text) == rows
    OUT.write_text(text, encoding="utf-8")
    source = f"genai-prices {_version(args.root)} (github.com/pydantic/genai-prices, MIT)"
    SOURCE.write_text(f"{source}, as of {args.today.isoformat()}\n", encoding="utf-8")
    print(f"wrote {len(rows)} models to {OUT}")


if __name__ == "__main__":
    main()
