"""Valid inputs for every command the fuzz harness runs: small, so thousands of runs stay fast.

Each builder writes files into a folder and returns nothing; the command table
(:mod:`tests.fuzz.commands`) names which of them each command reads. Benchmark data are the
first rows of the real files under ``data/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import DATA

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

TEKGEN = DATA / "text2kgbench" / "wikidata_tekgen"


def _fact(fid: str, doc: str, subject: str, predicate: str, **extra: Any) -> dict[str, Any]:
    fact: dict[str, Any] = {
        "id": fid,
        "subject": {"key": f"Person:{subject.lower()}", "type": "Person", "label": subject},
        "predicate": predicate,
        "evidence": [{"doc_id": doc}],
    }
    fact.update(extra)
    return fact


def _jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


ADA = "Ada Lovelace was born in London in 1815."
BABBAGE = "Charles Babbage was born in London in 1791."

FACTS = [
    _fact(
        "f1",
        "d1",
        "Ada Lovelace",
        "born_in",
        object_entity={"key": "City:london", "type": "City", "label": "London"},
        confidence=0.9,
        verdict="supported",
    ),
    _fact("f2", "d1", "Ada Lovelace", "born_on", object_value=1815, confidence=0.4),
    _fact(
        "f3",
        "d2",
        "Charles Babbage",
        "born_in",
        object_entity={"key": "City:london", "type": "City", "label": "London"},
        confidence=0.7,
        verdict="not_found",
    ),
]

ONTOLOGY = {
    "name": "people",
    "types": {"Person": {"description": "A person."}, "City": {"description": "A city."}},
    "predicates": {
        "born_in": {"description": "Where.", "domain": ["Person"], "range": "City"},
        "born_on": {"description": "The year.", "domain": ["Person"], "range": "integer"},
    },
}

ONTOLOGY_YAML = """\
name: people
types:
  Person: {description: A person.}
  City: {description: A city.}
predicates:
  born_in: {description: Where., domain: [Person], range: City}
  born_on: {description: The year., domain: [Person], range: integer}
"""

TRIPLES = [
    {"doc": "d1", "subject": "Ada Lovelace", "predicate": "born_in", "object": "London"},
    {"doc": "d1", "subject": "Ada Lovelace", "predicate": "born_on", "object": 1815},
    {"doc": "d2", "subject": "Charles Babbage", "predicate": "born_in", "object": "London",
     "quote": "born in London"},
]  # fmt: skip

GOLD = [
    {"doc_id": "d1", "fact": {k: v for k, v in FACTS[0].items() if k != "verdict"}},
    {"doc_id": "d1", "fact": FACTS[1]},
    {"doc_id": "d2", "fact": {k: v for k, v in FACTS[2].items() if k != "verdict"}},
]

CONFIG_YAML = """\
ontology: ontology.json
models:
  ground: openai/qwen2.5-7b
  replay: {ground: ground.json}
stages:
  extractor: {use: llm, snippet_limit: 5}
"""


def write(folder: Path, files: dict[str, str | bytes]) -> None:
    """Write ``files`` (relative path → text or bytes) under ``folder``."""
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def stage_files() -> dict[str, str]:
    """Labels and predictions of every labelled stage, and a sink's facts."""
    facts = FACTS
    return {
        "route.jsonl": _jsonl(
            [
                {"id": "c1", "text": ADA, "action": "extract", "label": "fact"},
                {"id": "c2", "text": "Hello.", "action": "skip"},
            ]
        ),
        "route_pred.jsonl": _jsonl(
            [{"id": "c1", "action": "extract", "label": "fact"}, {"id": "c2", "action": "extract"}]
        ),
        "ground.jsonl": _jsonl(
            [
                {"text": ADA, "fact": facts[0], "verdict": "supported"},
                {"text": BABBAGE, "fact": facts[2], "verdict": "supported"},
            ]
        ),
        "facts.jsonl": _jsonl(facts),
        "pairs.jsonl": _jsonl(
            [{"a": "x", "b": "y", "same": True}, {"a": "x", "b": "z", "same": False}]
        ),
        "links.jsonl": _jsonl([{"a": "x", "b": "y", "kind": "same_as"}]),
        "calibration.jsonl": _jsonl(
            [{"fact": facts[0], "true": True}, {"fact": facts[1], "true": False}]
        ),
        "verdicts.jsonl": _jsonl(
            [{"fact": facts[0], "action": "accept"}, {"fact": facts[1], "action": "refuse"}]
        ),
        "validation.jsonl": _jsonl(
            [{"id": "f1", "action": "accept"}, {"id": "f2", "action": "accept"}]
        ),
        "gold.jsonl": _jsonl(GOLD),
    }


def pipeline_files() -> dict[str, str]:
    """Gold, documents (JSONL and a folder), triples, an ontology, a trace and a reference."""
    # --reference must be a whole eval report (issue 17): a saved one
    report = json.loads((_FIXTURES / "reports" / "report-1.4.json").read_text(encoding="utf-8"))
    return {
        "gold.jsonl": _jsonl(GOLD),
        "docs.jsonl": _jsonl([{"id": "d1", "text": ADA}, {"id": "d2", "text": BABBAGE}]),
        "texts/d1.txt": ADA,
        "texts/d2.txt": BABBAGE,
        "triples.jsonl": _jsonl(TRIPLES),
        "ontology.json": json.dumps(ONTOLOGY, indent=2),
        "ontology.yaml": ONTOLOGY_YAML,
        "odke.yaml": CONFIG_YAML,
        "ground.json": json.dumps([{"match": "Claim", "response": {"verdict": "supported"}}]),
        "reference.json": json.dumps(report),
        "extract.py": (
            "import json, pathlib, sys\n"
            "rows = [{'doc': p.stem, 'subject': 'Ada Lovelace', 'predicate': 'born_in',"
            " 'object': 'London'} for p in sorted(pathlib.Path(sys.argv[1]).iterdir())]\n"
            "pathlib.Path(sys.argv[2]).write_text(''.join(json.dumps(r) + '\\n' for r in rows))\n"
        ),
    }


def items_files() -> dict[str, str]:
    """Two items files of the same documents, for compare."""
    a = [{"id": f"d{i}", "tp": i % 3, "fp": 1, "fn": i % 2} for i in range(12)]
    b = [{"id": f"d{i}", "tp": i % 3 + 1, "fp": 0, "fn": i % 2} for i in range(12)]
    return {"a.jsonl": _jsonl(a), "b.jsonl": _jsonl(b)}


def _head_json(path: Path, count: int) -> Any:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data[:count] if isinstance(data, list) else data


def _head_lines(path: Path, count: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[:count])


def redocred_files() -> dict[str, str]:
    """A Re-DocRED folder: rel_info.json, three test and three dev documents, reverse rules."""
    red = DATA / "redocred"
    return {
        "data/redocred/rel_info.json": (red / "rel_info.json").read_text(encoding="utf-8"),
        "data/redocred/test_revised.json": json.dumps(_head_json(red / "test_revised.json", 3)),
        "data/redocred/dev_revised.json": json.dumps(_head_json(red / "dev_revised.json", 3)),
        "data/revisit-docred/reverse_rules.json": (
            DATA / "revisit-docred" / "reverse_rules.json"
        ).read_text(encoding="utf-8"),
    }


def tekgen_files() -> dict[str, str]:
    """A Text2KGBench folder for ont_1_movie: ontology, five sentences, gold, one baseline."""
    base = "data/text2kgbench/wikidata_tekgen"
    baseline = next((TEKGEN / "baselines" / "Vicuna-13B" / "llm_responses").glob("ont_1_movie*"))
    return {
        f"{base}/ontologies/1_movie_ontology.json": (
            TEKGEN / "ontologies" / "1_movie_ontology.json"
        ).read_text(encoding="utf-8"),
        f"{base}/ground_truth/ont_1_movie_ground_truth.jsonl": _head_lines(
            TEKGEN / "ground_truth" / "ont_1_movie_ground_truth.jsonl", 5
        ),
        f"{base}/test/ont_1_movie_test.jsonl": _head_lines(
            TEKGEN / "test" / "ont_1_movie_test.jsonl", 5
        ),
        f"{base}/manually_verified_sentences/selected_ont_1_movie.txt": "ont_1_movie_test_1\n",
        f"{base}/baselines/Vicuna-13B/llm_responses/{baseline.name}": _head_lines(baseline, 5),
    }


E2E = Path(__file__).resolve().parents[2] / "examples" / "e2e"


def e2e_files() -> dict[str, str | bytes]:
    """examples/e2e as it is: a run config over a mixed corpus, answered from recordings."""
    return {
        str(path.relative_to(E2E)): path.read_bytes()
        for path in sorted(E2E.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.name != "README.md"
    }


def judge_files() -> dict[str, str | bytes]:
    """Two runs (folders of facts.jsonl, one with refused.jsonl), rows to label, a filled sheet."""
    import tempfile

    from openodke.cli.label import sheet_items
    from openodke.eval.judges.sheets import write_sheets

    files: dict[str, str | bytes] = dict(stage_files())
    files.update(pipeline_files())
    contradicted = dict(FACTS[1], verdict="contradicted")
    files["run_a/facts.jsonl"] = _jsonl(FACTS)
    files["run_a/refused.jsonl"] = _jsonl([{"fact": contradicted, "reason": "contradicted: no"}])
    files["run_b/facts.jsonl"] = _jsonl(FACTS[:2])
    rows = [json.loads(line) for line in str(files["ground.jsonl"]).splitlines()]
    files["tocheck.jsonl"] = _jsonl([{k: v for k, v in r.items() if k != "verdict"} for r in rows])
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "tocheck.jsonl"
        source.write_text(str(files["tocheck.jsonl"]), encoding="utf-8")
        items = sheet_items("grounding", source)
        (sheet,) = write_sheets(items, Path(tmp) / "sheets", kind="grounding", title="Supported?")
        text = sheet.read_text(encoding="utf-8").replace("- [ ] supported", "- [x] supported")
    files["sheets/sheet-001.md"] = text
    return files


def adapter_files() -> dict[str, str | bytes]:
    """LangExtract and LangChain output over two texts, with their gold (tests/fixtures/adapters)."""
    from tests.interop.test_adapters_real_output import GOLD

    adapters = _FIXTURES / "adapters"
    rows = []
    for doc, subject, predicate, obj in GOLD:
        fact: dict = {
            "subject": {"key": subject, "type": subject.split(":")[0]},
            "predicate": predicate,
        }
        if isinstance(obj, int):
            fact["object_value"] = obj
        else:
            fact["object_entity"] = {"key": obj, "type": obj.split(":")[0]}
        rows.append({"doc_id": doc, "fact": fact})
    return {
        "gold.jsonl": _jsonl(rows),
        "texts/halden.txt": (adapters / "texts" / "halden.txt").read_bytes(),
        "texts/veska.txt": (adapters / "texts" / "veska.txt").read_bytes(),
        "annotated.jsonl": (adapters / "langextract" / "annotated.jsonl").read_bytes(),
        "graph.json": (adapters / "langchain" / "graph_documents.json").read_bytes(),
    }


def report_files() -> dict[str, str | bytes]:
    """A saved report (schema 1.4) and documents, for odke report."""
    return {
        "report.json": (_FIXTURES / "reports" / "report-1.4.json").read_bytes(),
        "docs.jsonl": _jsonl([{"id": "d1", "text": ADA}, {"id": "d2", "text": BABBAGE}]),
    }


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name: str) -> dict[str, str | bytes]:
    root = EXAMPLES / name
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.name not in ("README.md", ".gitignore")
    }


def _made_by_odke(files: dict[str, str | bytes], argv: list[str], made: list[str]) -> dict:
    """``files`` plus the files ``made`` that ``odke ARGV`` writes over them (run once)."""
    import tempfile

    from tests.fuzz.harness import run_forked

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "case"
        write(folder, files)
        outcome = run_forked(argv, cwd=folder)
        assert outcome.code == 0, outcome.stderr
        return {**files, **{name: (folder / name).read_bytes() for name in made}}


def triples_example_files() -> dict[str, str | bytes]:
    """examples/triples as the docs use it, with the track record and items a scored run of
    its triples writes (``--track-record``, ``--items``): the seeds of the docs' commands."""
    argv = ["eval", "pipeline", "--labels", "gold.jsonl", "--documents", "texts",
            "--ontology", "ontology.json", "--predictions", "triples.jsonl",
            "--items", "items.jsonl", "--report", "report.json",
            "--track-record", "track-record.jsonl"]  # fmt: skip
    files = _made_by_odke(
        _example("triples"), argv, ["track-record.jsonl", "items.jsonl", "report.json"]
    )
    b = [
        json.dumps({**json.loads(line), "fp": 0})
        for line in bytes(files["items.jsonl"]).decode().splitlines()
    ]
    return {**files, "items_b.jsonl": "\n".join(b) + "\n"}


def tools_example_files() -> dict[str, str | bytes]:
    """examples/tools (gold, texts, ontology, type maps, spaCy's docs) with GraphRAG's CSV
    output over the same texts (tests/fixtures/adapters/graphrag/csv), as docs/how-to use them."""
    files = _example("tools")
    for path in sorted((_FIXTURES / "adapters" / "graphrag" / "csv").iterdir()):
        files[f"graphrag/{path.name}"] = path.read_bytes()
    return files


def priced_run_files() -> dict[str, str | bytes]:
    """examples/e2e with a ``prices:`` section and a budget in its run config (a dry run)."""
    files = e2e_files()
    config = bytes(files["odke.yaml"]).decode()
    files["odke.yaml"] = config + (
        "prices:\n  ollama/qwen2.5:7b: {input: 0.15, output: 0.6}\n"
        "  ollama/qwen2.5:3b: {input: 0.05, output: 0.2}\nbudget: {usd: 2.0, calls: 500}\n"
    )
    return files


def lenient_files() -> dict[str, str]:
    """A ``--lenient`` pairs file (gold and predicted fact side by side), for fact sheets."""
    near = dict(FACTS[0], object_entity={"key": "City:london uk", "type": "City"})
    return {"lenient.jsonl": _jsonl([{"doc_id": "d1", "gold": FACTS[0], "prediction": near}])}
