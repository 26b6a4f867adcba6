"""The options the eval commands share, and their checks: light to import, so a command's
module can take them without loading the others' evaluators."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from openodke.errors import InputError

if TYPE_CHECKING:
    from openodke.run import RunOptions

__all__ = [
    "BATCH_PRICE_NOTE",
    "CALL_OPTIONS",
    "FACTS",
    "TEXTS",
    "Adapter",
    "AsJson",
    "Batch",
    "BatchPoll",
    "BudgetCalls",
    "BudgetUsd",
    "Cache",
    "CallOptions",
    "Config",
    "Describe",
    "Documents",
    "DryRun",
    "Html",
    "FailUnder",
    "Items",
    "Labels",
    "Locate",
    "MaxWorkers",
    "NoCache",
    "Ontology",
    "PerSheet",
    "Predictions",
    "Report",
    "ResultJson",
    "Run",
    "calls_options",
    "naming",
    "one_source",
    "write_page",
]

T = TypeVar("T")

Labels = Annotated[
    Path | None, typer.Option("--labels", help="Label rows, one JSON object per line.")
]
Predictions = Annotated[
    Path | None,
    typer.Option("--predictions", help="Prediction rows (a sink's facts.jsonl or links.jsonl)."),
]
Run = Annotated[
    str | None,
    typer.Option("--run", help="Run a stage over the labels: package.module:Name."),
]
Ontology = Annotated[Path | None, typer.Option("--ontology", help="Ontology JSON or YAML.")]
Documents = Annotated[
    Path | None, typer.Option("--documents", help="A folder of texts, or Document JSONL.")
]
Config = Annotated[Path | None, typer.Option("--config", help="A run config (odke.yaml).")]
TypeMap = Annotated[
    Path | None,
    typer.Option(
        "--type-map",
        help='A JSON object, your type -> the gold\'s: {"Organization": "Company"}.',
    ),
]
Match = Annotated[
    str,
    typer.Option(
        "--match",
        help="identity: entities by name and type; names: (subject name, predicate, object) "
        "only; exact: keys and types as written (no case or `Type:` folding).",
    ),
]
Describe = Annotated[
    bool, typer.Option("--describe", help="Print what to label and what to predict, then exit.")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
ResultJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Print the calls and their price; make none.")
]
PerSheet = Annotated[int, typer.Option("--per-sheet", help="Items per sheet.")]
# How `ground` and `validate` read another system's facts (required in one, not the other: the
# two options are shared as typer.Option values, the type around them is the command's).
FACTS = typer.Option("--facts", help="Facts: triples rows, Fact rows, or --adapter output.")
TEXTS = typer.Option("--texts", help="The texts: a folder, or Document JSONL.")
Adapter = Annotated[
    str, typer.Option("--adapter", help="triples, langchain, langextract or graphrag.")
]
Locate = Annotated[
    bool, typer.Option("--locate", help="Find a window naming both ends when uncited.")
]
Items = Annotated[
    Path | None,
    typer.Option("--items", help='Write {"id", "correct"} per labelled item, for compare.'),
]
Report = Annotated[Path | None, typer.Option("--report", help="Write the eval report here.")]
Html = Annotated[
    Path | None,
    typer.Option("--html", help="Write the report as one self-contained HTML page here."),
]
FailUnder = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-under",
        metavar="X",
        help="Exit 1 when the low end of the F1 range is under X; metric=X for precision or "
        "recall (repeat for several). The report records each gate.",
    ),
]

# The options of every command that calls a model (surface.md, CLI).
Cache = Annotated[Path | None, typer.Option("--cache", help="The response cache folder.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Do not cache model answers.")]
MaxWorkers = Annotated[
    int | None, typer.Option("--max-workers", min=1, help="Model calls at once (8).")
]
BudgetUsd = Annotated[
    float | None,
    typer.Option("--budget-usd", min=0, help="Stop before the calls pass X USD (exit 3)."),
]
BudgetCalls = Annotated[
    int | None, typer.Option("--budget-calls", min=0, help="Stop before N model calls (exit 3).")
]
Prices = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        help="USD per million tokens, in=X,out=Y (every model) or MODEL=in=X,out=Y; repeatable. "
        "Wins over prices: in a config and the price table.",
    ),
]


def give_prices(values: list[str] | None) -> None:
    """Install ``--price`` values for this process (InputError, exit 2, on a bad one)."""
    if not values:
        return  # the model clients load only for a run that prices or calls a model
    from openodke.llm.prices import add_prices, parse_price

    for value in values:
        add_prices(parse_price(value))


AllowFailures = Annotated[
    float | None,
    typer.Option(
        "--allow-failures",
        min=0,
        max=1,
        help="The share of facts or documents failed model calls may leave unchecked (0: any "
        "failure exits 1).",
    ),
]
Rpm = Annotated[
    float | None,
    typer.Option("--rpm", min=0, help="At most N requests a minute to each model."),
]
Tpm = Annotated[
    float | None,
    typer.Option("--tpm", min=0, help="At most N tokens a minute to each model (estimated)."),
]
Batch = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the model calls through the provider's batch API (openai/, anthropic/: half "
        "the price, answered within 24 h). A rerun of the same command collects a batch left "
        "running.",
    ),
]
BatchPoll = Annotated[
    float | None,
    typer.Option(
        "--batch-poll",
        min=0.01,
        help="Seconds between the first polls of a batch (10, or ODKE_BATCH_POLL); the wait "
        "grows to 12 times it.",
    ),
]
MAX_RESAMPLES = 1_000_000
"""The most bootstrap draws ``--resamples`` takes: a range settles long before (decision 294),
and memory grows with draws x items."""

BATCH_PRICE_NOTE = "priced at the provider's batch rate (--batch)"
"""The line a dry run adds under --batch."""


@dataclass(frozen=True)
class CallOptions:
    """The options of every command that calls a model, as one value: each field is one option,
    declared here once; :func:`calls_options` puts them on a command (in this order) and hands
    the command one ``CallOptions``. A new shared option is one field here."""

    cache: Cache = None
    no_cache: NoCache = False
    max_workers: MaxWorkers = None
    budget_usd: BudgetUsd = None
    budget_calls: BudgetCalls = None
    price: Prices = None
    allow_failures: AllowFailures = None
    rpm: Rpm = None
    tpm: Tpm = None
    batch: Batch = False
    batch_poll: BatchPoll = None

    def batched(self, job: Callable[[], T], config_batch: bool = False) -> T:
        """``job()``, through the providers' batch APIs under ``--batch`` or a config's
        ``batch: true`` (``config_batch``)."""
        if not (self.batch or config_batch):
            return job()
        from openodke.llm.batch import BatchEngine, run_batched

        return run_batched(job, BatchEngine(poll=self.batch_poll))

    def client_flags(self) -> dict[str, Any]:
        """What the model clients take: cache, budget and rate limits (not the workers)."""
        return {
            "cache": self.cache,
            "no_cache": self.no_cache,
            "budget_usd": self.budget_usd,
            "budget_calls": self.budget_calls,
            "rpm": self.rpm,
            "tpm": self.tpm,
        }

    def run_options(self, *, as_json: bool = False, **more: Any) -> RunOptions:
        """These options as the library's ``RunOptions`` (no progress bar under ``--json``)."""
        from openodke.run import RunOptions

        return RunOptions(
            **self.client_flags(),
            max_workers=self.max_workers,
            allow_failures=self.allow_failures,
            progress=False if as_json else None,
            **more,
        )


CALL_OPTIONS = CallOptions()
"""The default of a command's ``calls`` parameter: where :func:`calls_options` puts the options."""

F = TypeVar("F", bound=Callable[..., Any])


def calls_options(*, leave_out: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Put :class:`CallOptions`' options on a command in place of its ``calls`` parameter
    (``leave_out``: fields the command does not take), install ``--price`` and call it with
    ``calls=CallOptions(...)``. Typer reads the options from the signature made here."""

    def wrap(command: F) -> F:
        hints = typing.get_type_hints(CallOptions, include_extras=True)
        own = [field for field in fields(CallOptions) if field.name not in leave_out]
        signature = inspect.signature(command, eval_str=True)
        params: list[inspect.Parameter] = []
        for param in signature.parameters.values():
            if param.name != "calls":
                params.append(param)
                continue
            params += [
                param.replace(name=field.name, default=field.default, annotation=hints[field.name])
                for field in own
            ]
        names = [field.name for field in own]

        @functools.wraps(command)
        def run(**values: Any) -> Any:
            calls = CallOptions(**{name: values.pop(name) for name in names})
            give_prices(calls.price)
            return command(**values, calls=calls)

        run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {param.name: param.annotation for param in params}
        return run  # type: ignore[return-value]

    return wrap


@contextmanager
def naming(**paths: Path | None) -> Iterator[None]:
    """Make a refusal raised inside name the inputs it is about: one without a path gets the
    first of ``paths`` given; one naming an option (``--documents``) but not its file gets the
    file. For library checks that see rows, not files (two inputs that disagree)."""
    given = [(f"--{flag}", str(path)) for flag, path in paths.items() if path is not None]
    try:
        yield
    except InputError as error:
        message = error.message  # with its "path:line: " when it has one
        where = given[0][1] if error.path is None and given else None
        extra = [
            f"{flag} {path}"
            for flag, path in given
            if flag in message and path not in message and path != where
        ]
        if where is None and not extra:
            raise
        if extra:
            message += f" ({', '.join(extra)})"
        raise InputError(message, path=where) from None


def one_source(predictions: Path | None, run: str | None, *, required: str | None = None) -> None:
    """Refuse --predictions with --run, and (``required``) neither of them."""
    if predictions is not None and run is not None:
        raise InputError("give --predictions or --run, not both")
    if required is not None and predictions is None and run is None:
        raise InputError(f"give --predictions ({required})")


def identity_options(type_map: Path | None, match: str) -> tuple[dict[str, str], str]:
    """``--type-map`` read and ``--match`` checked: what ``Identity`` is made of."""
    from openodke.eval.engine.identity import Identity, read_type_map

    Identity(match=match)  # type: ignore[arg-type]  # refused here, before any file is read
    return (read_type_map(type_map) if type_map is not None else {}), match


def write_page(path: Path | None, report: object, documents: object = None) -> None:
    """``--html PATH``: the report as one page (the HTML package is imported only here)."""
    if path is None:
        return
    from openodke.eval.report.html import write_html

    write_html(path, report, documents=documents)  # type: ignore[arg-type]
