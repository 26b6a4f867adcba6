"""The generated reference covers every command and file format (docs/hooks/reference.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "docs/hooks/reference.py")
assert _spec is not None and _spec.loader is not None
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


@pytest.fixture(scope="module")
def cli_pages() -> dict[str, str]:
    return reference.cli_pages()


def test_every_command_and_subcommand_has_a_page(cli_pages: dict[str, str]) -> None:
    paths = [path for path, _ in reference.walk(reference.root_command())]
    assert ("odke", "eval", "pipeline") in paths and ("odke", "bench", "run") in paths
    for path in paths:
        page = cli_pages[f"reference/cli/{reference.slug(path)}.md"]
        assert page.startswith(f"# `{' '.join(path)}`")
    index = cli_pages["reference/cli/index.md"]
    assert all(f"({reference.slug(path)}.md)" in index for path in paths)


def test_a_command_page_lists_its_options(cli_pages: dict[str, str]) -> None:
    page = cli_pages["reference/cli/odke-eval-pipeline.md"]
    for option in ("`--labels`", "`--predictions`", "`--report`", "`--items`", "`--json`"):
        assert option in page


@pytest.mark.parametrize("row", reference.FORMATS, ids=[row[0] for row in reference.FORMATS])
def test_every_format_page_has_its_fields(row: tuple[str, str, str, str]) -> None:
    slug, title, dotted, intro = row
    page = reference.format_page(title, dotted, intro)
    model = reference._load(dotted)
    for name, field in model.model_fields.items():
        assert f"`{field.alias or name}`" in page, (slug, name)
