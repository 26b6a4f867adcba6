"""``odke eval ablation``: one run config three ways against one labelled extraction set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from openodke.cli.options import CALL_OPTIONS, AsJson, CallOptions, Html, calls_options, write_page

__all__ = ["register"]

_HELP = """Score a run config three ways against gold: extraction alone; + grounding (its grounder and gate); + corroboration (normalise, resolve, corroborate, score, then the same gate). Each stage runs once, later rows replay earlier facts, and nothing is written.

The notes say what grounding and the later stages moved, what the gate kept of the true and false candidates, and what refusing contradicted, then not_found as well, would keep. A run in which a document failed is not scored: exit 1, naming each document.

Examples:

  odke eval ablation --config examples/e2e/odke.yaml --labels examples/e2e/gold.jsonl

  odke eval ablation --describe
"""

_DESCRIBE = """ablation: a run config scored three ways against GoldFact labels

labels      GoldFact rows, one JSON object per line: {"doc_id", "fact"}; doc_id is the id odke run
            gives a document (its path relative to the config, plus #L<line> for a CSV or JSONL
            record)
predictions none: the config is run (--config), recorded answers and the cache answering its calls
rows        extraction alone; + grounding; + corroboration (precision, recall, f1, tp, fp, fn,
            facts, model_calls: cumulative, later rows replay earlier calls)
notes       what grounding and corroboration moved; what the gate kept of the true and false
            candidates; what refusing contradicted, then not_found as well, would keep
exit        0 scored; 1 a document failed (named); 2 unreadable input; 3 budget stop
"""


def register(eval_app: typer.Typer) -> None:
    """Add ``ablation`` to the ``odke eval`` command group."""

    @eval_app.command("ablation", help=_HELP)
    @calls_options()
    def ablation(
        config: Annotated[
            Path | None, typer.Option("--config", help="The run config (odke.yaml).")
        ] = None,
        labels: Annotated[
            Path | None,
            typer.Option("--labels", help="GoldFact rows (or triples rows), one per line."),
        ] = None,
        describe: Annotated[
            bool, typer.Option("--describe", help="Print what to label and what it does; exit.")
        ] = False,
        as_json: AsJson = False,
        html: Html = None,
        calls: CallOptions = CALL_OPTIONS,
    ) -> None:
        if describe:
            typer.echo(_DESCRIBE.rstrip())
            return
        from openodke.cli.run import report_config_error
        from openodke.errors import InputError
        from openodke.eval import run_ablation
        from openodke.eval.stages.gold_rows import is_triples_file, read_gold
        from openodke.ontology import Ontology
        from openodke.run import ConfigError, load_config

        if config is None or labels is None:
            raise InputError("give --config (a run config) and --labels (GoldFact rows)")
        try:
            parsed = load_config(config)
        except ConfigError as error:
            report_config_error(error)
            raise typer.Exit(2) from None
        # GoldFact rows; triples rows read with the config's ontology, as predictions are
        onto = Ontology.load(parsed.ontology) if is_triples_file(labels) else None
        gold = read_gold(labels, (), onto)
        options = calls.run_options(as_json=as_json)
        report = calls.batched(lambda: run_ablation(parsed, gold, options=options), parsed.batch)
        typer.echo(report.model_dump_json(indent=2) if as_json else report.render())
        write_page(html, report)
