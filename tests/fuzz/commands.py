"""The fuzz harness's table of commands, and running one case: seed files, break one, run, judge.

Each :class:`Command` row is one command line over valid seed files, with the files a case may
break and their formats. A command another branch adds (``odke run``, ``odke label``, ``odke eval
ablation|precision|pool|refusals``) is one more row once it lands. ``allowed`` holds the exit
codes a hostile input may give: 0 (the input was fine after all) or 2 (refused), and 1 only where
issue 13 allows it (a ``--cmd`` pipeline that fails, a compare gate, a provider call).
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz import seeds
from tests.fuzz.harness import Outcome, problems, run_forked, snapshot
from tests.fuzz.mutations import Applied, Mutation

__all__ = ["COMMANDS", "Case", "Command", "command", "run_case"]

Files = Callable[[], dict[str, str | bytes]]


@dataclass(frozen=True)
class Command:
    """One command line over seed files, and which of them a case may break."""

    name: str
    argv: tuple[str, ...]
    files: Files
    targets: dict[str, str]
    """Path (relative to the case folder) → format: jsonl, json, yaml, text or folder."""
    allowed: frozenset[int] = frozenset({0, 2})
    timeout: float = 20.0


def _merged(*builders: Files) -> Files:
    @functools.cache
    def files() -> dict[str, str | bytes]:
        out: dict[str, str | bytes] = {}
        for build in builders:
            out.update(build())
        return out

    return files


@functools.cache
def _movie_set() -> dict[str, str | bytes]:
    """A bench set prepared from the five-sentence movie data, as files under ``set/``."""
    from openodke.bench import prepare_text2kgbench

    with tempfile.TemporaryDirectory() as tmp:
        seeds.write(Path(tmp), seeds.tekgen_files())
        prepare_text2kgbench(Path(tmp) / "data", Path(tmp) / "set", ontology="ont_1_movie")
        root = Path(tmp)
        return {
            str(p.relative_to(root)): p.read_bytes()
            for p in (root / "set").rglob("*")
            if p.is_file()
        }


# -- batch (issue 18 and issue 22 item 7, helper "batch"): the state a --batch run reads -----


@functools.cache
def _batch_files() -> dict[str, str | bytes]:
    """A run config whose ground model is an OpenAI-compatible endpoint nothing listens on (a
    dry run calls nothing) and a cache folder holding one pending batch."""
    import json

    key = "a" * 64
    state = {
        "schema_version": 1,
        "batches": [
            {
                "id": "batch_seed",
                "provider": "openai",
                "model": "openai/gpt-4o-mini",
                "endpoint": "http://127.0.0.1:9/v1/chat/completions",
                "submitted_at": 1764633600.0,
                "requests": {key: key},
            }
        ],
    }
    config = {
        "models": {"ground": {"model": "openai/gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1"}},
        "cache": "cache",
    }
    return {
        **seeds.pipeline_files(),
        "batch.yaml": json.dumps(config, indent=1),
        "cache/batches.json": json.dumps(state, indent=1),
    }


# -- end of the batch block -------------------------------------------------------------------


@functools.cache
def _bench_run_files() -> dict[str, str | bytes]:
    """The movie set (five sentences) with a run config answered from recordings
    (``set/odke-replay.json``: the set's own config, its models replayed from
    ``set/replay/*.json`` written from the gold as tests/bench/movie_replay.py does), so
    ``odke bench run`` calls no model (issue 22, helper "reliab")."""
    import json

    from openodke.bench import load_bench
    from tests.bench.movie_replay import record

    files = dict(_movie_set())
    with tempfile.TemporaryDirectory() as tmp:
        seeds.write(Path(tmp), files)
        recorded = record(load_bench(Path(tmp) / "set"))
    extract = [
        {"match": f"Text:\n{s}", "response": json.loads(t)} for s, t in recorded.extract.items()
    ]
    ground = [
        {"match": f"Claim: {c}", "response": {"verdict": v}} for c, v in recorded.ground.items()
    ]
    ground.append({"match": "Claim: ", "response": {"verdict": "not_found"}})
    config = json.loads(files["set/odke.json"])
    config["models"] = {
        "extract": {"model": "ollama/qwen2.5:7b", "max_tokens": 16000},
        "ground": "ollama/qwen2.5:3b",
        "replay": {"extract": "replay/extract.json", "ground": "replay/ground.json"},
    }
    files["set/replay/extract.json"] = json.dumps(extract, indent=1, ensure_ascii=False)
    files["set/replay/ground.json"] = json.dumps(ground, indent=1, ensure_ascii=False)
    files["set/odke-replay.json"] = json.dumps(config, indent=1)
    return files


_STAGES = _merged(seeds.stage_files)
_PIPE = _merged(seeds.pipeline_files)
_JUDGE = _merged(seeds.judge_files)
_ADAPTERS = _merged(seeds.adapter_files)
_REPORT = _merged(seeds.report_files)
_TRIPLES = _merged(seeds.triples_example_files)
_TOOLS = _merged(seeds.tools_example_files)
_PRICED = _merged(seeds.priced_run_files)
_OUT = ("--items", "out/items.jsonl", "--report", "out/report.json")
_PY = sys.executable

COMMANDS: tuple[Command, ...] = (
    Command("eval route", ("eval", "route", "--labels", "route.jsonl", "--predictions",
            "route_pred.jsonl", *_OUT), _STAGES,
            {"route.jsonl": "jsonl", "route_pred.jsonl": "jsonl"}),
    Command("eval ground", ("eval", "ground", "--labels", "ground.jsonl", "--predictions",
            "facts.jsonl", *_OUT), _STAGES, {"ground.jsonl": "jsonl", "facts.jsonl": "jsonl"}),
    Command("eval resolve", ("eval", "resolve", "--labels", "pairs.jsonl", "--predictions",
            "links.jsonl", "--report", "out/report.json"), _STAGES,
            {"pairs.jsonl": "jsonl", "links.jsonl": "jsonl"}),
    Command("eval score", ("eval", "score", "--labels", "calibration.jsonl", "--predictions",
            "facts.jsonl", "--report", "out/report.json"), _STAGES,
            {"calibration.jsonl": "jsonl", "facts.jsonl": "jsonl"}),
    Command("eval gate", ("eval", "gate", "--labels", "verdicts.jsonl", "--predictions",
            "validation.jsonl", *_OUT), _STAGES,
            {"verdicts.jsonl": "jsonl", "validation.jsonl": "jsonl"}),
    Command("eval spans", ("eval", "spans", "--facts", "facts.jsonl", "--report",
            "out/report.json"), _STAGES, {"facts.jsonl": "jsonl"}),
    Command("eval extract", ("eval", "extract", "--labels", "gold.jsonl", "--predictions",
            "facts.jsonl", *_OUT), _STAGES, {"gold.jsonl": "jsonl", "facts.jsonl": "jsonl"}),
    Command("eval pipeline", ("eval", "pipeline", "--labels", "gold.jsonl", "--documents",
            "docs.jsonl", "--predictions", "triples.jsonl", "--ontology", "ontology.json",
            "--trace", "odke.yaml", "--reference", "reference.json", *_OUT), _PIPE,
            {"gold.jsonl": "jsonl", "docs.jsonl": "jsonl", "triples.jsonl": "jsonl",
             "ontology.json": "json", "odke.yaml": "yaml", "reference.json": "json"}),
    Command("eval pipeline folder", ("eval", "pipeline", "--labels", "gold.jsonl",
            "--documents", "texts", "--predictions", "triples.jsonl", "--ontology",
            "ontology.yaml", *_OUT), _PIPE,
            {"texts": "folder", "texts/d1.txt": "text", "ontology.yaml": "yaml"}),
    Command("eval pipeline --cmd", ("eval", "pipeline", "--labels", "gold.jsonl",
            "--documents", "docs.jsonl", "--cmd", f"{_PY} extract.py {{in}} {{out}}",
            "--timeout", "30", *_OUT), _PIPE,
            {"docs.jsonl": "jsonl", "gold.jsonl": "jsonl"}, frozenset({0, 1, 2})),
    Command("eval pipeline --bench", ("eval", "pipeline", "--bench", "set", "--predictions",
            "set/competitors/Vicuna-13B/facts.jsonl", *_OUT), _movie_set,
            {"set/gold.jsonl": "jsonl", "set/dataset.json": "json", "set/ontology.json": "json",
             "set/docs": "folder", "set/competitors/Vicuna-13B/facts.jsonl": "jsonl"}),
    Command("eval compare", ("eval", "compare", "a.jsonl", "b.jsonl", "--report",
            "out/cmp.json"), _merged(seeds.items_files),
            {"a.jsonl": "jsonl", "b.jsonl": "jsonl"}, frozenset({0, 1, 2})),
    Command("bench prepare redocred", ("bench", "prepare", "redocred", "data", "--split", "test",
            "--out", "out/set"), _merged(seeds.redocred_files),
            {"data/redocred/rel_info.json": "json", "data/redocred/test_revised.json": "json",
             "data/redocred/dev_revised.json": "json",
             "data/revisit-docred/reverse_rules.json": "json", "data": "folder"}),
    Command("bench prepare text2kgbench", ("bench", "prepare", "text2kgbench", "data",
            "--ontology", "ont_1_movie", "--out", "out/set"), _merged(seeds.tekgen_files),
            {f"data/text2kgbench/wikidata_tekgen/{name}": fmt for name, fmt in (
                ("ontologies/1_movie_ontology.json", "json"),
                ("ground_truth/ont_1_movie_ground_truth.jsonl", "jsonl"),
                ("test/ont_1_movie_test.jsonl", "jsonl"),
                ("manually_verified_sentences/selected_ont_1_movie.txt", "text"),
                ("baselines/Vicuna-13B/llm_responses", "folder"))}),
    Command("ground", ("ground", "--facts", "triples.jsonl", "--texts", "docs.jsonl",
            "--ontology", "ontology.json", "--config", "odke.yaml", "-o", "out/g"), _PIPE,
            {"triples.jsonl": "jsonl", "docs.jsonl": "jsonl", "ontology.json": "json",
             "odke.yaml": "yaml", "ground.json": "json"}, frozenset({0, 1, 2})),
    Command("run", ("run", "odke.yaml"), _merged(seeds.e2e_files),
            {"odke.yaml": "yaml", "ontology.json": "json", "recorded/extract.json": "json",
             "recorded/ground.json": "json", "corpus/register.csv": "text",
             "corpus/factsheet.md": "text", "corpus/notes": "folder"}, frozenset({0, 1, 2})),
    Command("eval ablation", ("eval", "ablation", "--config", "odke.yaml", "--labels",
            "gold.jsonl", "--json"), _merged(seeds.e2e_files),
            {"gold.jsonl": "jsonl", "odke.yaml": "yaml", "ontology.json": "json"},
            frozenset({0, 1, 2})),
    Command("ontology types", ("ontology", "types", "ontology.yaml"), _PIPE,
            {"ontology.yaml": "yaml"}),
    Command("eval precision", ("eval", "precision", "--facts", "facts.jsonl", "--labels",
            "ground.jsonl", "--documents", "docs.jsonl", "--report", "out/report.json"), _JUDGE,
            {"facts.jsonl": "jsonl", "ground.jsonl": "jsonl", "docs.jsonl": "jsonl"}),
    Command("eval pool", ("eval", "pool", "run_a", "run_b", "--documents", "docs.jsonl",
            "--report", "out/report.json"), _JUDGE,
            {"run_a": "folder", "run_b/facts.jsonl": "jsonl", "docs.jsonl": "jsonl"}),
    Command("eval refusals", ("eval", "refusals", "run_a", "--documents", "docs.jsonl",
            "--make-sheet", "out/sheets"), _JUDGE,
            {"run_a/refused.jsonl": "jsonl", "run_a/facts.jsonl": "jsonl", "docs.jsonl": "jsonl"}),
    Command("label make", ("label", "make", "grounding", "tocheck.jsonl", "-o", "out/sheets"),
            _JUDGE, {"tocheck.jsonl": "jsonl"}),
    Command("label read", ("label", "read", "sheets", "-o", "out/labels.jsonl"), _JUDGE,
            {"sheets": "folder", "sheets/sheet-001.md": "text"}),
    Command("validate", ("validate", "--facts", "triples.jsonl", "--texts", "texts",
            "--ontology", "ontology.yaml", "--config", "odke.yaml", "-o", "out/v"), _PIPE,
            {"triples.jsonl": "jsonl", "texts": "folder", "ontology.yaml": "yaml",
             "odke.yaml": "yaml", "ground.json": "json"}, frozenset({0, 1, 2})),
    # Added since issue 13 (issue 22): adapters, label convert, ontology tools, report pages.
    Command("eval pipeline langextract", ("eval", "pipeline", "--labels", "gold.jsonl",
            "--documents", "texts", "--predictions", "annotated.jsonl", "--adapter",
            "langextract", *_OUT), _ADAPTERS,
            {"annotated.jsonl": "jsonl", "gold.jsonl": "jsonl", "texts": "folder"}),
    Command("eval pipeline langchain", ("eval", "pipeline", "--labels", "gold.jsonl",
            "--documents", "texts", "--predictions", "graph.json", "--adapter", "langchain",
            *_OUT), _ADAPTERS, {"graph.json": "json", "texts/halden.txt": "text"}),
    Command("label convert", ("label", "convert", "triples.jsonl", "--ontology",
            "ontology.json", "--documents", "docs.jsonl", "-o", "out/gold.jsonl"), _PIPE,
            {"triples.jsonl": "jsonl", "ontology.json": "json", "docs.jsonl": "jsonl"}),
    Command("ontology validate", ("ontology", "validate", "ontology.yaml"), _PIPE,
            {"ontology.yaml": "yaml"}, frozenset({0, 1, 2})),
    Command("ontology diff", ("ontology", "diff", "ontology.json", "ontology.yaml"), _PIPE,
            {"ontology.json": "json", "ontology.yaml": "yaml"}, frozenset({0, 1, 2})),
    Command("ontology snippet", ("ontology", "snippet", "ontology.yaml", "Person"), _PIPE,
            {"ontology.yaml": "yaml"}),
    Command("report html", ("report", "html", "report.json", "--documents", "docs.jsonl",
            "-o", "out/report.html"), _REPORT, {"report.json": "json", "docs.jsonl": "jsonl"}),
    # Added for issue 22 (helper "fuzz"): the docs' examples as seeds, the track record, a run
    # config with prices, the report's tables, label sheets of facts and pairs.
    Command("report csv", ("report", "csv", "report.json", "-o", "out"), _REPORT,
            {"report.json": "json"}),
    Command("docs: eval pipeline", ("eval", "pipeline", "--labels", "gold.jsonl", "--documents",
            "texts", "--ontology", "ontology.json", "--predictions", "triples.jsonl", "--items",
            "out/items.jsonl", "--report", "out/report.json", "--html", "out/page.html",
            "--track-record", "track-record.jsonl"), _TRIPLES,
            {"gold.jsonl": "jsonl", "triples.jsonl": "jsonl", "ontology.json": "json",
             "texts": "folder", "track-record.jsonl": "jsonl"}),
    Command("docs: validate", ("validate", "--config", "odke.yaml", "-o", "out/v"), _TRIPLES,
            {"odke.yaml": "yaml", "recorded/ground.json": "json", "triples.jsonl": "jsonl",
             "texts/halden.txt": "text"}, frozenset({0, 1, 2})),
    Command("docs: eval compare --track-record", ("eval", "compare", "items.jsonl",
            "items_b.jsonl", "--track-record", "track-record.jsonl", "--applied", "reextract",
            "--report", "out/cmp.json"), _TRIPLES,
            {"track-record.jsonl": "jsonl", "items_b.jsonl": "jsonl", "report.json": "json"},
            frozenset({0, 1, 2})),
    Command("docs: eval pipeline graphrag", ("eval", "pipeline", "--labels", "gold.jsonl",
            "--documents", "texts", "--ontology", "ontology.json", "--adapter", "graphrag",
            "--predictions", "graphrag", "--type-map", "graphrag_types.json", *_OUT), _TOOLS,
            {"graphrag/entities.csv": "text", "graphrag/relationships.csv": "text",
             "graphrag/text_units.csv": "text", "graphrag": "folder",
             "graphrag_types.json": "json", "ontology.json": "json"}),
    Command("run --dry-run prices", ("run", "odke.yaml", "--dry-run"), _PRICED,
            {"odke.yaml": "yaml", "ontology.json": "json"}),
    Command("label make fact", ("label", "make", "fact", "lenient.jsonl", "-o", "out/sheets"),
            _merged(seeds.lenient_files), {"lenient.jsonl": "jsonl"}),
    Command("label make pair", ("label", "make", "pair", "pairs.jsonl", "-o", "out/sheets"),
            _JUDGE, {"pairs.jsonl": "jsonl"}),
    # -- batch (issue 18, helper "batch"): a torn, truncated or mistyped batches.json --------
    Command("ground --batch", ("ground", "--facts", "triples.jsonl", "--texts", "docs.jsonl",
            "--ontology", "ontology.json", "--config", "batch.yaml", "--dry-run", "--batch"),
            _batch_files, {"cache/batches.json": "json", "batch.yaml": "yaml",
                           "triples.jsonl": "jsonl"}),
    Command("validate --batch", ("validate", "--facts", "triples.jsonl", "--texts", "texts",
            "--ontology", "ontology.yaml", "--config", "batch.yaml", "--dry-run", "--batch"),
            _batch_files, {"cache/batches.json": "json", "batch.yaml": "yaml",
                           "triples.jsonl": "jsonl"}),
    # -- end of the batch rows ----------------------------------------------------------------
    # -- the last gaps (issue 22, helper "reliab"): every leaf of `odke --help` has a row but
    # `models` (no input): bench run over recordings, report parquet, eval validate (gate's alias)
    Command("bench run", ("bench", "run", "set", "--config", "set/odke-replay.json"),
            _bench_run_files, {"set/odke-replay.json": "json", "set/replay/extract.json": "json",
                               "set/replay/ground.json": "json", "set/gold.jsonl": "jsonl",
                               "set/dataset.json": "json", "set/docs": "folder",
                               "set/competitors/Vicuna-13B/facts.jsonl": "jsonl"},
            frozenset({0, 1, 2})),
    Command("report parquet", ("report", "parquet", "report.json", "-o", "out"), _REPORT,
            {"report.json": "json"}),
    Command("eval validate", ("eval", "validate", "--labels", "verdicts.jsonl", "--predictions",
            "validation.jsonl", *_OUT), _STAGES,
            {"verdicts.jsonl": "jsonl", "validation.jsonl": "jsonl"}),
)  # fmt: skip
"""Every command, over valid seed files."""


def command(name: str) -> Command:
    """The row named ``name``."""
    return next(row for row in COMMANDS if row.name == name)


@dataclass
class Case:
    """One run of one command with one file broken."""

    command: Command
    target: str | None
    mutation: str
    applied: Applied
    outcome: Outcome
    problems: list[str] = field(default_factory=list)


def run_case(
    row: Command,
    target: str | None,
    mutation: Mutation | Callable[[Path, str, random.Random], Applied] | None,
    base: Path,
    *,
    seed: int = 0,
) -> Case:
    """Write ``row``'s seed files in a fresh folder under ``base``, apply ``mutation`` to
    ``target``, run the command there and judge it (:func:`tests.fuzz.harness.problems`)."""
    folder = Path(tempfile.mkdtemp(prefix="case-", dir=base))
    seeds.write(folder, row.files())
    (folder / "out").mkdir(exist_ok=True)
    applied, name = Applied(), "seed"
    if mutation is not None and target is not None:
        apply = mutation.apply if isinstance(mutation, Mutation) else mutation
        name = mutation.name if isinstance(mutation, Mutation) else "random"
        applied = apply(folder / target, row.targets[target], random.Random(seed))
    unprivileged = applied.unprivileged and os.geteuid() == 0
    tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=base))
    before = snapshot(folder)
    outcome = run_forked(
        row.argv, cwd=folder, timeout=row.timeout, tmp=tmp, unprivileged=unprivileged
    )
    after = snapshot(folder)
    names = [] if target is None else [target, os.path.basename(target)]
    # The folder argument holding the target (``run_a`` for run_a/refused.jsonl) names it too.
    names += [arg for arg in row.argv if target is not None and target.startswith(f"{arg}/")]
    if name == "missing" and target is not None:  # found by listing its folder: that is named
        names.append(os.path.dirname(target) or ".")
    found = problems(
        outcome,
        allowed=row.allowed,
        names=names,
        # A line is due from the corpus, which breaks one line's syntax or bounds; a random
        # change may make rows disagree across files, which no one line is the place of.
        line=applied.line is not None
        and name != "random"
        and target is not None
        and row.targets[target] == "jsonl",
        before=before,
        after=after,
    )
    shutil.rmtree(tmp, ignore_errors=True)
    _remove(folder)
    return Case(row, target, name, applied, outcome, found)


def _remove(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            with contextlib.suppress(OSError):
                os.chmod(path, 0o700)
    shutil.rmtree(folder, ignore_errors=True)


def pairs() -> list[tuple[Command, str]]:
    """Every (command, target) the table holds."""
    return [(row, target) for row in COMMANDS for target in row.targets]
