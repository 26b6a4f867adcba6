"""odke eval extract: the CLI equals the Python API; bad input exits 2 with path:line."""

from __future__ import annotations

import json
import random

import pytest

from openodke import Entity, Evidence, Fact
from openodke.eval import GoldFact, dump_jsonl, evaluate_extraction, load_jsonl
from openodke.eval.engine.fastload import load_facts
from openodke.eval.stages.extract import score_facts
from openodke.types import Polarity
from tests.conftest import run_odke


def random_corpus(seed: int, n: int = 400) -> tuple[list[GoldFact], list[Fact]]:
    rng = random.Random(seed)
    people = [Entity(key=f"Person:p{i}", type="Person", label=f"P {i}") for i in range(15)]
    places = [Entity(key=f"Place:c{i}", type="Place") for i in range(6)]
    gold, said = [], []
    for _ in range(n):
        doc = f"d{rng.randrange(20)}"
        subject = rng.choice(people)
        if rng.random() < 0.5:
            fact = Fact(
                subject=subject,
                predicate="born",
                object_value=rng.choice([1815, "1815", " x ", 2.5]),
            )
        else:
            fact = Fact(
                subject=subject,
                predicate=rng.choice(["lives", "works"]),
                object_entity=rng.choice(places),
            )
        if rng.random() < 0.7:
            gold.append(GoldFact(doc_id=doc, fact=fact))
        r = rng.random()
        if r < 0.6:
            update: dict = {"evidence": (Evidence(doc_id=doc),)}
            if rng.random() < 0.1:
                update = {"evidence": ()}
            elif rng.random() < 0.1:
                update["polarity"] = Polarity.denied
            elif rng.random() < 0.1:
                update["evidence"] = (Evidence(doc_id="nowhere"), Evidence(doc_id=doc))
            said.append(fact.model_copy(update=update))
    return gold, said


@pytest.mark.parametrize("parts", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_the_cli_gives_the_python_api_metrics(tmp_path, seed, parts, monkeypatch):
    # Files this small are read by one process; make it read them in parts too.
    monkeypatch.setattr("openodke.eval.engine.fastload.PARALLEL_BYTES", 0 if parts else 1 << 40)
    gold, said = random_corpus(seed)
    dump_jsonl(tmp_path / "gold.jsonl", gold)
    dump_jsonl(tmp_path / "facts.jsonl", said)
    api = evaluate_extraction(
        load_jsonl(tmp_path / "gold.jsonl", GoldFact), load_jsonl(tmp_path / "facts.jsonl", Fact)
    )
    result = run_odke(
        "eval",
        "extract",
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--predictions",
        str(tmp_path),
        "--json",
        "--items",
        str(tmp_path / "items.jsonl"),
    )
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)
    assert cli["metrics"] == api.metrics
    assert cli["breakdown"] == json.loads(api.model_dump_json())["breakdown"]
    expected = score_facts(gold, said).per_document()
    items = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert {row["id"]: [row["tp"], row["fp"], row["fn"]] for row in items} == expected


def test_fast_loader_falls_back_to_the_models_on_what_they_coerce(tmp_path):
    # "support": "2" is a string pydantic coerces and msgspec refuses: same keys either way.
    row = {"subject": {"key": "a"}, "predicate": "p", "object_value": 1, "support": "2"}
    (tmp_path / "f.jsonl").write_text(json.dumps(row) + "\n")
    columns = load_facts(tmp_path / "f.jsonl")
    assert columns.docs.tuples() == [()] and len(columns) == 1


GOOD = '{"doc_id": "d1", "fact": {"subject": {"key": "ada", "type": "Person"}, "predicate": "born", "object_value": 1815}}'
FACT = '{"subject": {"key": "ada", "type": "Person"}, "predicate": "born", "object_value": 1815, "evidence": [{"doc_id": "d1"}]}'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (GOOD + "\n{not json\n", "gold.jsonl:2: invalid JSON"),
        (GOOD.replace('"doc_id"', '"doc"'), "gold.jsonl:1: doc: unknown key"),
        ('{"fact": ' + GOOD.split('"fact": ')[1], "gold.jsonl:1: doc_id: missing required field"),
        (GOOD.replace('"predicate": "born"', '"predicate": 5'), "gold.jsonl:1: fact.predicate"),
        (b"\xff\xfe", "gold.jsonl:1: not UTF-8"),
        ("", "gold.jsonl: empty file"),
        ("\n\n", "gold.jsonl: empty file"),
        (
            GOOD.replace("1815}", '1815, "object_entity": {"key": "x"}}'),
            "gold.jsonl:1: fact: Value error, exactly one",
        ),
    ],
    ids=[
        "invalid-json",
        "unknown-key",
        "missing",
        "mistyped",
        "non-utf8",
        "empty",
        "blank-only",
        "both-objects",
    ],
)
def test_bad_labels_exit_2_with_path_and_line(tmp_path, content, message):
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(content if isinstance(content, bytes) else content.encode())
    (tmp_path / "facts.jsonl").write_text(FACT + "\n")
    result = run_odke(
        "eval", "extract", "--labels", str(gold), "--predictions", str(tmp_path / "facts.jsonl")
    )
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "content",
    ["\ufeff" + GOOD + "\n", GOOD + "\r\n", "\n" + GOOD + "\n\n"],
    ids=["bom", "crlf", "blank-lines"],
)
def test_tolerated_encodings_score_normally(tmp_path, content):
    (tmp_path / "gold.jsonl").write_bytes(content.encode())
    (tmp_path / "facts.jsonl").write_text(FACT + "\r\n")
    result = run_odke(
        "eval",
        "extract",
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--predictions",
        str(tmp_path / "facts.jsonl"),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["metrics"]["tp"] == 1


def test_bad_prediction_line_is_named(tmp_path):
    (tmp_path / "gold.jsonl").write_text(GOOD + "\n")
    (tmp_path / "facts.jsonl").write_text(
        FACT + "\n" + FACT.replace('"predicate"', '"predicat"') + "\n"
    )
    result = run_odke(
        "eval",
        "extract",
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--predictions",
        str(tmp_path / "facts.jsonl"),
    )
    assert result.exit_code == 2
    assert "facts.jsonl:2: predicat: unknown key (did you mean 'predicate'?)" in result.stderr


def test_needs_labels_and_one_source(tmp_path):
    assert run_odke("eval", "extract", "--predictions", "x").exit_code == 2
    assert run_odke("eval", "extract", "--labels", "x").exit_code == 2


def test_describe_prints_the_contract():
    result = run_odke("eval", "extract", "--describe")
    assert result.exit_code == 0
    assert "GoldFact(doc_id, fact)" in result.stdout


def test_run_an_extractor_over_documents(tmp_path, monkeypatch):
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "d1.txt").write_text("Ada was born in 1815.")
    (tmp_path / "myext.py").write_text(
        "from openodke import Entity, Fact\n"
        "def run(document):\n"
        "    return [Fact(subject=Entity(key='ada', type='Person'), predicate='born', object_value=1815)]\n"
    )
    (tmp_path / "gold.jsonl").write_text(GOOD.replace('"d1"', '"d1.txt"') + "\n")
    result = run_odke(
        "eval",
        "extract",
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--run",
        f"{tmp_path / 'myext.py'}:run",
        "--documents",
        str(tmp_path / "texts"),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["metrics"]["tp"] == 1


def test_report_is_written_checked_and_reads_back(tmp_path):
    from openodke.eval.report.build import check_report, read_report

    gold, said = random_corpus(7, n=60)
    dump_jsonl(tmp_path / "gold.jsonl", gold)
    dump_jsonl(tmp_path / "facts.jsonl", said)
    out = tmp_path / "out" / "report.json"
    result = run_odke(
        "eval",
        "extract",
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--predictions",
        str(tmp_path / "facts.jsonl"),
        "--report",
        str(out),
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(out.read_text())
    assert check_report(data) == []
    report, notes = read_report(out)
    row = report.rows[0]
    assert row.name == "extract" and notes == []
    assert row.counts.hits == report.stages[0].metrics["tp"]
    assert (
        row.performance.precision.low
        <= row.performance.precision.value
        <= row.performance.precision.high
    )
    assert report.bootstrap.resamples == 2000 and report.bootstrap.seed == 0
    assert [p.name for p in out.parent.iterdir()] == ["report.json"]  # no temp file left


def test_no_items_file_unless_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gold.jsonl").write_text(GOOD + "\n")
    (tmp_path / "facts.jsonl").write_text(FACT + "\n")
    result = run_odke("eval", "extract", "--labels", "gold.jsonl", "--predictions", "facts.jsonl")
    assert result.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.jsonl", "gold.jsonl"]


def test_fast_keys_equal_the_models_keys_with_identity_qualifiers(tmp_path):
    from openodke.eval.engine.key_table import KeyTable
    from openodke.eval.engine.matching import fact_key

    ada = Entity(key="Person:ada", type="Person")
    facts = [
        Fact(subject=ada, predicate="uptime", object_value=" 99.9 ", qualifiers={"percentile": "p50", "x": 1},
             identity_keys=("percentile",), evidence=(Evidence(doc_id="d1"),)),
        Fact(subject=ada, predicate="uptime", object_value=1815.0, qualifiers={},
             identity_keys=("percentile",), evidence=(Evidence(doc_id="d1"), Evidence(doc_id="d2"), Evidence(doc_id="d1"))),
        Fact(subject=ada, predicate="knows", object_entity=Entity(key="Person:bob"), polarity=Polarity.denied),
        Fact(subject=ada, predicate="flag", object_value=True, evidence=(Evidence(doc_id="d2"),)),
    ]  # fmt: skip
    dump_jsonl(tmp_path / "f.jsonl", facts)
    fast = load_facts(tmp_path / "f.jsonl")
    api = KeyTable.of([fact_key(f) for f in facts])
    for column in ("key", "subject", "object", "literal", "predicate"):
        assert getattr(fast.keys, column).tolist() == getattr(api, column).tolist(), column
    assert fast.keys.predicates == api.predicates
    assert fast.docs.tuples() == [f.doc_ids for f in facts]


def test_items_lines_are_what_json_dumps_writes():
    from openodke.cli.eval_extract import document_items

    ids = ['d"1', "é/2", "tab\there", "plain"]
    gold = [GoldFact(doc_id=d, fact=Fact(subject=Entity(key="a"), predicate="p", object_value=i))
            for i, d in enumerate(ids)]  # fmt: skip
    score = score_facts(gold, [])
    expected = "".join(
        json.dumps({"id": d, "tp": 0, "fp": 0, "fn": 1}, ensure_ascii=False) + "\n" for d in ids
    )
    assert document_items(score) == expected
