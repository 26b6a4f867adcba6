"""One call for ``odke eval pipeline``'s job: run a pipeline (or read what it wrote), score it
with ranges, diagnose it and rank the fixes.

:func:`evaluate_pipeline` returns the EvalReport ``odke eval pipeline --json`` prints;
:func:`pipeline_run` is what the command calls, keeping the scores, findings and extra outputs
it prints and writes beside the report.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openodke.errors import InputError
from openodke.safeio import first_line

if TYPE_CHECKING:
    from openodke.eval.pipeline.evaluate import PipelineInputs, PipelineResult
    from openodke.eval.pipeline.extras import Extended, Extras
    from openodke.eval.report.models import EvalReport

__all__ = ["PipelineRun", "evaluate_pipeline", "is_submission", "pipeline_run"]

_FIRST_LINE = 1 << 20  # bytes of the first line read to tell a submission


def is_submission(path: Path) -> bool:
    """True for a benchmark's own format: a DocRED list, or Text2KGBench response rows."""
    try:
        first = first_line(path, _FIRST_LINE) or b""
    except (InputError, OSError):
        return False
    if first.lstrip().startswith(b"["):
        return True
    try:
        row = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(row, dict) and "triples" in row and "id" in row and "subject" not in row


@dataclass
class PipelineRun:
    """A scored pipeline: the result (report, matching, findings), what the extras added,
    and the inputs it was scored against (their documents give the HTML page its texts)."""

    result: PipelineResult
    inputs: PipelineInputs
    extended: Extended | None = None


def evaluate_pipeline(
    *,
    labels: str | Path | None = None,
    documents: str | Path | None = None,
    predictions: str | Path | None = None,
    run: str | Callable[..., Any] | None = None,
    cmd: str | None = None,
    ontology: str | Path | None = None,
    bench: str | Path | None = None,
    adapter: str | None = None,
    type_map: str | Path | Mapping[str, str] | None = None,
    match: str = "identity",
    timeout: float = 600.0,
    trace: str | Path | None = None,
    config: str | Path | None = None,
    reference: str | Path | None = None,
    examples: int = 3,
    train_facts: str | Path | None = None,
) -> EvalReport:
    """Score a pipeline as ``odke eval pipeline`` does and return its EvalReport: the rows with
    95% ranges over documents, the diagnosis of the last row, the fixes and the notes; equal to
    what ``odke eval pipeline --json`` prints for the same inputs.

    Give one of ``predictions`` (a file already written), ``run`` (``pkg.mod:fn``, a path
    ``file.py:fn``, or the function itself, called with the Documents) or ``cmd`` (run with no
    shell on ``{in}``, a folder of texts, writing ``{out}``); and ``labels`` with ``documents``,
    or a ``bench`` set from ``odke bench prepare``. ``adapter`` (triples, langchain,
    langextract, graphrag) says how the output is read; left None, a bench set's own submission
    format is recognised as the command does. ``type_map`` (their type → ours, a dict or a
    JSON file) and ``match`` ("identity" or "names") say how entities compare; ``trace`` (or
    ``config``), ``reference`` and ``examples`` feed the diagnosis as the flags do.

    Raises InputError (unreadable input, exit 2 on the command line) and PipelineError (the
    command or function failed).
    """
    from openodke.eval.engine.identity import TypeMap, read_type_map

    if isinstance(type_map, Mapping):
        mapped = TypeMap.copy_of(type_map)
    else:
        mapped = read_type_map(Path(type_map)) if type_map is not None else TypeMap()
    done = pipeline_run(
        labels=_path(labels),
        documents=_path(documents),
        predictions=_path(predictions),
        ontology=_path(ontology),
        bench=_path(bench),
        trace=_path(trace),
        config=_path(config),
        reference=_path(reference),
        train_facts=_path(train_facts),
        run=run,
        cmd=cmd,
        adapter=adapter,
        type_map=mapped,
        match=match,
        timeout=timeout,
        examples=examples,
    )
    from openodke.eval.pipeline.extras import with_small_set_note

    return with_small_set_note(done.result).report


def _path(given: str | Path | None) -> Path | None:
    return None if given is None else Path(given)


def pipeline_run(
    *,
    labels: Path | None = None,
    documents: Path | None = None,
    predictions: Path | None = None,
    run: str | Callable[..., Any] | None = None,
    cmd: str | None = None,
    ontology: Path | None = None,
    bench: Path | None = None,
    adapter: str | None = None,
    type_map: dict[str, str] | None = None,
    match: str = "identity",
    timeout: float = 600.0,
    trace: Path | None = None,
    config: Path | None = None,
    reference: Path | None = None,
    examples: int = 3,
    track_record: Path | None = None,
    train_facts: Path | None = None,
    extras: Extras | None = None,
    on_stderr: Callable[[str], None] | None = None,
) -> PipelineRun:
    """What ``odke eval pipeline`` computes, before it prints or writes anything.

    ``extras`` (``--validator``, ``--adjudicate``, ``--lenient``, with their model) add rows and
    sections; ``on_stderr`` gets each line a ``--cmd`` command writes to stderr.
    """
    from openodke.eval.engine.identity import Identity, TypeMap
    from openodke.eval.pipeline import collect, run_callable, run_command
    from openodke.eval.pipeline.evaluate import (
        DiagnosisOptions,
        bench_inputs,
        label_inputs,
        score_pipeline,
    )
    from openodke.eval.pipeline.extras import Extras, extend_in_batches, extend_result
    from openodke.eval.pipeline.stream import score_predictions, score_run
    from openodke.eval.report.models import Cost, Latency
    from openodke.eval.stages.gold_rows import is_triples_file
    from openodke.ontology import Ontology

    if sum(x is not None for x in (cmd, run, predictions)) != 1:
        raise InputError("give exactly one of --cmd, --run or --predictions")
    sniff = adapter is None  # only then may --predictions be a benchmark's own submission
    adapter = adapter or "triples"
    mapped = TypeMap.copy_of(type_map)  # keeps the file it was read from, for refusals
    Identity(match=match)  # type: ignore[arg-type]  # refused here, before any file is read
    if not math.isfinite(timeout) or timeout <= 0:
        raise InputError(f"--timeout must be a number of seconds above 0, got {timeout:g}")
    extras = extras if extras is not None else Extras()
    diagnosis = DiagnosisOptions(
        trace=trace or config, reference=reference, examples=examples, track_record=track_record
    )
    if bench is not None:
        if labels is not None or documents is not None:
            raise InputError("--bench brings its own gold and documents: drop --labels/--documents")
        inputs = bench_inputs(bench)
    elif labels is None or documents is None:
        raise InputError("score against --labels with --documents, or a --bench set")
    else:
        # --validator, --adjudicate and --lenient read the facts themselves: no column path
        # Fact rows, triples rows, adapters' output and a --run function's items go straight
        # to the engine's columns
        columns = (
            not extras.active
            and train_facts is None  # refused below: it is for a Re-DocRED --bench set
            and not is_triples_file(labels)  # gold as triples rows: read as predictions are
        )
        inputs = label_inputs(labels, documents, ontology, load_gold=not columns)
        inputs.type_map, inputs.match = mapped, match
        if columns and predictions is not None:
            result = score_predictions(
                predictions,
                labels,
                inputs,
                adapter=adapter,
                run_inputs={"predictions": str(predictions)},
                diagnosis=diagnosis,
            )
            return PipelineRun(result, inputs)
        if columns and cmd is not None:
            with run_command(cmd, inputs.documents, timeout=timeout, on_stderr=on_stderr) as ran:
                result = score_predictions(
                    ran.out_path,
                    labels,
                    inputs,
                    adapter=adapter,
                    names=ran.names,
                    from_command=True,
                    run_inputs={"command": cmd},
                    diagnosis=diagnosis,
                    usage=(Cost(), Latency(seconds=round(ran.seconds, 3))),
                )
            return PipelineRun(result, inputs)
        if columns and run is not None:
            result = score_run(
                run,
                labels,
                inputs,
                adapter=adapter,
                timeout=timeout,
                run_inputs={"run": _run_label(run)},
                diagnosis=diagnosis,
            )
            return PipelineRun(result, inputs)
    if ontology is not None and bench is not None:
        inputs.ontology = Ontology.load(ontology)
    inputs.type_map, inputs.match = mapped, match
    train = None
    if train_facts is not None:
        if inputs.bench is None or inputs.bench.dataset != "redocred":  # type: ignore[attr-defined]
            raise InputError("--train-facts is for a Re-DocRED --bench set (its Ign F1)")
        from openodke.bench.official_redocred import load_train_facts

        train = load_train_facts(train_facts)
    docs = inputs.documents
    usage = None
    notes: list[str] = []
    submission = None
    run_inputs: dict[str, str] = {}
    if predictions is not None:
        run_inputs["predictions"] = str(predictions)
        if inputs.bench is not None and sniff and is_submission(predictions):
            from openodke.bench.submissions import read_submission

            facts = read_submission(predictions, inputs.bench, notes=notes)  # type: ignore[arg-type]
            submission = predictions
        else:
            got = collect(predictions, docs, ontology=inputs.ontology, adapter=adapter)
            facts, notes = got.facts, got.notes
    elif cmd is not None:
        run_inputs["command"] = cmd
        with run_command(cmd, docs, timeout=timeout, on_stderr=on_stderr) as ran:
            got = collect(
                ran.out_path,
                docs,
                ontology=inputs.ontology,
                adapter=adapter,
                names=ran.names,
                from_command=True,
            )
        facts, notes = got.facts, got.notes
        usage = (Cost(), Latency(seconds=round(ran.seconds, 3)))
    else:
        assert run is not None
        run_inputs["run"] = _run_label(run)
        got = collect(
            run_callable(run, docs, adapter=adapter, timeout=timeout),
            docs,
            ontology=inputs.ontology,
            adapter=adapter,
        )
        facts, notes = got.facts, got.notes
    result = score_pipeline(
        facts,
        inputs,
        usage=usage,
        notes=notes,
        run_inputs=run_inputs,
        submission=submission,
        train_facts=train,
        diagnosis=None if extras.active else diagnosis,
    )
    with extras:
        extend = extend_in_batches if extras.batch and extras.active else extend_result
        extended = extend(
            result,
            inputs,
            extras,
            written=facts,
            diagnosis=diagnosis if extras.active else None,
        )
    return PipelineRun(extended.result, inputs, extended)


def _run_label(run: str | object) -> str:
    """How the report names a ``--run`` function."""
    return run if isinstance(run, str) else getattr(run, "__qualname__", type(run).__name__)
