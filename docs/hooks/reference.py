"""mkdocs hook: the reference pages, generated from the code at build time.

- ``reference/cli/``: one page per ``odke`` command and subcommand, from the click tree typer
  builds (usage, help text, every option with its type and default).
- ``reference/formats/``: one page per file format, from the pydantic models (fields, types,
  defaults, descriptions) and, where one is committed, a link to the JSON Schema.

Nothing generated is committed: the pages are added to the build's files, so they cannot go
stale. ``tests/docs`` imports :func:`cli_pages` and :func:`format_pages` to check that every
command has a page.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

# (slug, title, model dotted path, what the file is, where it is read or written)
FORMATS: tuple[tuple[str, str, str, str], ...] = (
    (
        "documents",
        "Documents",
        "openodke.types.Document",
        "A document a pipeline reads: a folder of `.txt` files (the id is the file name) or JSONL "
        "rows of this shape (`--documents`).",
    ),
    (
        "facts",
        "Facts (`facts.jsonl`)",
        "openodke.types.Fact",
        "One fact per line: what a pipeline writes (`--predictions`), what a sink writes, and the "
        "`fact` of every label row. Edges have `object_entity`, properties `object_value`.",
    ),
    (
        "triples",
        "Triples rows",
        "openodke.interop.triples.TripleRow",
        "The plain format any script can write: one row per triple with the entities' names as "
        "written; odke keys them (`Type:name`). Schema: `openodke/interop/triples.schema.json`.",
    ),
    (
        "gold",
        "Gold facts (extraction labels)",
        "openodke.eval.stages.labels.GoldFact",
        "The labels of `odke eval extract` and `odke eval pipeline --labels`: one fact a document "
        "states, per line.",
    ),
    (
        "grounding-labels",
        "Grounding labels",
        "openodke.eval.stages.labels.GroundingLabel",
        "The labels of `odke eval ground`: a fact, the passage, and the verdict a person gave.",
    ),
    (
        "pair-labels",
        "Pair labels (resolve)",
        "openodke.eval.stages.labels.PairLabel",
        "The labels of `odke eval resolve`: two entity keys and whether they are the same.",
    ),
    (
        "calibration-labels",
        "Calibration labels (score)",
        "openodke.eval.stages.labels.CalibrationLabel",
        "The labels of `odke eval score`: a fact with its confidence and whether it is true.",
    ),
    (
        "gate-labels",
        "Gate labels",
        "openodke.eval.stages.labels.GateLabel",
        "The labels of `odke eval gate`: what a gate should do with a fact.",
    ),
    (
        "route-labels",
        "Route labels",
        "openodke.eval.stages.labels.RouteLabel",
        "The labels of `odke eval route`: whether a passage should be extracted.",
    ),
    (
        "ontology",
        "Ontology",
        "openodke.ontology.model.OntologyData",
        "Entity types and predicates with their labels, aliases, domains and ranges (`--ontology`).",
    ),
    (
        "run-config",
        "Run config (`odke.yaml`)",
        "openodke.run.config.RunConfig",
        "What `odke run`, `odke validate --config` and `odke eval ablation` run: the stages, the "
        "models, the budget and the cache.",
    ),
    (
        "eval-report",
        "Eval report (`report.json`)",
        "openodke.eval.report.models.EvalReport",
        "What `--report` writes and `--json` prints. Schema: `openodke/eval/eval_report.schema.json`.",
    ),
    (
        "stage-report",
        "Stage report",
        "openodke.eval.stages.stage_report.StageReport",
        "What a stage command (`odke eval ground`, `resolve`, ...) reports.",
    ),
    (
        "validation-report",
        "Validation report",
        "openodke.validate.report.ValidationReport",
        "What `odke validate` writes beside the facts it kept.",
    ),
    (
        "items",
        "Items (`items.jsonl`)",
        "openodke.eval.engine.items.DocItem",
        "One row per document (the bootstrap unit) with its counts: what `--items` writes and "
        "`odke eval compare` pairs.",
    ),
    (
        "refused",
        "Refused facts (`refused.jsonl`)",
        "openodke.gate.refused.RefusedFact",
        "What a gate refused, with the verdict and the reason: read by `odke eval refusals`.",
    ),
)


def _load(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


# -- commands ------------------------------------------------------------------------------


def _ctx(command: Any, name: str) -> Any:
    """A context for ``command`` (typer vendors click: use the command's own context class)."""
    return command.context_class(command, info_name=name)


def _is_group(command: Any) -> bool:
    return hasattr(command, "list_commands")


def root_command() -> Any:
    """The ``odke`` click group with every command module registered."""
    import typer.main

    from openodke.cli import main

    register = getattr(main, "_register", None)
    if register is not None:
        register([])
    command = typer.main.get_command(main.app)
    assert _is_group(command)
    return command


def walk(group: Any, path: tuple[str, ...] = ("odke",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under ``group`` (itself first), depth first, sorted by name."""
    yield path, group
    if _is_group(group):
        ctx = _ctx(group, path[-1])
        for name in sorted(group.list_commands(ctx)):
            sub = group.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from walk(sub, (*path, name))


def slug(path: tuple[str, ...]) -> str:
    """The page name of a command: ``odke eval pipeline`` -> ``odke-eval-pipeline``."""
    return "-".join(path)


def _type_name(param: Any, ctx: Any) -> str:
    """An option's value type across typer versions (typer 0.29 vendors its own click)."""
    if getattr(param, "is_flag", False):
        return "flag"
    kind = getattr(getattr(param, "type", None), "name", None)
    if kind is None and callable(getattr(param, "display_type", None)):
        kind = str(param.display_type(ctx)).strip("<>")
    return str(kind or "text")


def _option_row(param: Any, ctx: Any) -> str:
    if param.param_type_name == "argument":
        names = f"`{str(param.name).upper()}`"
        kind = f"argument ({_type_name(param, ctx)})"
    else:
        names = ", ".join(f"`{name}`" for name in (*param.opts, *param.secondary_opts))
        kind = _type_name(param, ctx)
    help_text = " ".join((getattr(param, "help", None) or "").split())
    default = param.default
    shown = (
        ""
        if default is None or default is False or callable(default) or default in ((), [])
        else f"`{default}`"
    )
    required = "yes" if param.required else ""
    return f"| {names} | {kind} | {required} | {shown} | {_cell(help_text)} |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def command_page(path: tuple[str, ...], command: Any) -> str:
    """One command's reference page in Markdown."""
    ctx = _ctx(command, " ".join(path))
    usage = " ".join(command.collect_usage_pieces(ctx))
    lines = [f"# `{' '.join(path)}`", ""]
    help_text = (command.help or command.short_help or "").strip()
    if help_text:
        lines += [_help_markdown(help_text), ""]
    lines += ["```text", f"{' '.join(path)} {usage}".rstrip(), "```", ""]
    if _is_group(command):
        ctx_group = _ctx(command, path[-1])
        lines += ["| command | what it does |", "| --- | --- |"]
        for name in sorted(command.list_commands(ctx_group)):
            sub = command.get_command(ctx_group, name)
            if sub is None or sub.hidden:
                continue
            short = _cell(" ".join((sub.get_short_help_str(limit=120) or "").split()))
            lines.append(f"| [`{' '.join((*path, name))}`]({slug((*path, name))}.md) | {short} |")
        lines.append("")
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        lines += [
            "| option | type | required | default | meaning |",
            "| --- | --- | --- | --- | --- |",
            *(_option_row(p, ctx) for p in params),
            "",
        ]
    return "\n".join(lines)


def _help_markdown(text: str) -> str:
    """Help text as Markdown: typer's ``\\b`` markers go; indented lines stay as written."""
    out: list[str] = []
    in_block = False
    for line in text.replace("\b", "").splitlines():
        indented = line.startswith("    ") or line.startswith("  $") or line.startswith("  odke")
        if indented and not in_block:
            out.append("```text")
            in_block = True
        elif not indented and in_block and line.strip():
            out.append("```")
            in_block = False
        out.append(line.strip() if in_block else line)
    if in_block:
        out.append("```")
    return "\n".join(out)


def cli_pages() -> dict[str, str]:
    """``{relative path: Markdown}`` for every command, with an index."""
    pages: dict[str, str] = {}
    index = [
        "# Commands",
        "",
        "Every `odke` command and subcommand, generated from the CLI itself. `odke COMMAND --help` "
        "prints the same. Global options: `--version`, `--debug` (anywhere on the line: show the "
        "traceback of an error).",
        "",
        "| command | what it does |",
        "| --- | --- |",
    ]
    for path, command in walk(root_command()):
        pages[f"reference/cli/{slug(path)}.md"] = command_page(path, command)
        short = _cell(" ".join((command.get_short_help_str(limit=120) or "").split()))
        index.append(f"| [`{' '.join(path)}`]({slug(path)}.md) | {short} |")
    pages["reference/cli/index.md"] = "\n".join(index) + "\n"
    return pages


# -- file formats ---------------------------------------------------------------------------


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return (
            f"[{schema['$ref'].rsplit('/', 1)[-1]}](#{schema['$ref'].rsplit('/', 1)[-1].lower()})"
        )
    if "anyOf" in schema:
        return " or ".join(_type_of(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items") or (schema.get("prefixItems") or [{}])[0]
        return f"list of {_type_of(items)}"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return f"map of {_type_of(extra) if isinstance(extra, dict) else 'any'}"
    return str(kind)


def _fields_table(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", ()))
    lines = ["| field | type | required | default | meaning |", "| --- | --- | --- | --- | --- |"]
    for name, field in (schema.get("properties") or {}).items():
        default = f"`{json.dumps(field['default'])}`" if "default" in field else ""
        meaning = " ".join((field.get("description") or "").split())
        lines.append(
            f"| `{name}` | {_type_of(field)} | {'yes' if name in required else ''} "
            f"| {_cell(default)} | {_cell(meaning)} |"
        )
    return lines


def format_page(title: str, dotted: str, intro: str) -> str:
    """One file format's page: its fields and those of every model it nests."""
    model = _load(dotted)
    schema = model.model_json_schema(mode="validation")
    lines = [f"# {title}", "", intro, "", f"Model: `{dotted}`.", ""]
    doc = " ".join((model.__doc__ or "").split())
    if doc:
        lines += [doc, ""]
    lines += _fields_table(schema)
    for name, sub in sorted((schema.get("$defs") or {}).items()):
        lines += ["", f"## {name}", ""]
        text = " ".join((sub.get("description") or "").split())
        if text:
            lines += [text, ""]
        if "properties" in sub:
            lines += _fields_table(sub)
        else:
            lines.append(f"One of: {_type_of({k: v for k, v in sub.items() if k != 'title'})}.")
    return "\n".join(lines) + "\n"


def format_pages() -> dict[str, str]:
    """``{relative path: Markdown}`` for every file format, with an index."""
    pages: dict[str, str] = {}
    index = [
        "# File formats",
        "",
        "Every file odke reads or writes, generated from the models that read and write it. Rows "
        "are JSON Lines (one object per line, UTF-8); reports are JSON with `schema_version` first.",
        "",
        "| format | what it is |",
        "| --- | --- |",
    ]
    for slug_, title, dotted, intro in FORMATS:
        pages[f"reference/formats/{slug_}.md"] = format_page(title, dotted, intro)
        index.append(f"| [{title}]({slug_}.md) | {_cell(intro)} |")
    pages["reference/formats/index.md"] = "\n".join(index) + "\n"
    return pages


# -- the mkdocs hook ------------------------------------------------------------------------


_PAGES: dict[str, str] = {}


def _section(prefix: str) -> list[Any]:
    """The nav of one generated folder: its index first, then each page under its title."""
    entries: list[Any] = [f"{prefix}/index.md"]
    for path, content in _PAGES.items():
        if path.startswith(prefix + "/") and not path.endswith("/index.md"):
            title = content.splitlines()[0].lstrip("# ").replace("`", "")
            entries.append({title: path})
    return entries


def _fill(nav: Any) -> Any:
    if isinstance(nav, list):
        return [_fill(entry) for entry in nav]
    if isinstance(nav, dict):
        return {key: _fill(value) for key, value in nav.items()}
    if nav in ("reference/cli/index.md", "reference/formats/index.md"):
        return _section(nav.rsplit("/", 1)[0])
    return nav


def on_config(config: Any) -> Any:
    """Generate the pages once and list them in the nav under their index pages."""
    _PAGES.clear()
    _PAGES.update({**cli_pages(), **format_pages()})
    config["nav"] = _fill(config["nav"])
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated reference pages to the build."""
    from mkdocs.structure.files import File

    for path, content in _PAGES.items():
        files.append(File.generated(config, path, content=content))
    return files
