"""What a newcomer meets first, each through the CLI: --describe, unknown fields, a missing file,
a command's progress and timeout, where the track record went, another major's reference,
--train-facts, DocRED rows the gold cannot place, and --run's two shapes."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from openodke.bench import load_train_facts, prepare_redocred, score_redocred_official
from openodke.bench.official_redocred import gold_submission
from openodke.eval.pipeline import run_command
from openodke.types import Document
from tests.conftest import DATA, ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"
AGAINST = (
    "--labels",
    str(TRIPLES / "gold.jsonl"),
    "--documents",
    str(TRIPLES / "texts"),
    "--ontology",
    str(TRIPLES / "ontology.json"),
)
PYTHON = shlex.quote(sys.executable)


def command(code: str) -> str:
    return f"{PYTHON} -c {shlex.quote(code)} {{in}} {{out}}"


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


# -- --describe --------------------------------------------------------------------------------


def _described(stdout: str, label: str) -> dict:
    line = next(x for x in stdout.splitlines() if x.strip().startswith(label + " "))
    return json.loads(line.strip()[len(label) :].strip())


def test_describe_prints_the_contract_and_its_examples_score(tmp_path: Path) -> None:
    result = run_odke("eval", "pipeline", "--describe")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for words in (
        "{in}",
        "{out}",
        "<name>.txt",
        "--timeout",
        "triples row",
        "required",
        "optional",
    ):
        assert words in out
    assert "doc, subject, predicate, object" in out and "subject_type, object_type" in out
    assert "'Company:halden robotics ltd'" in out  # the key convention, worked
    # The printed triples row, scored against the printed gold row, is a hit.
    row, gold = _described(out, "triples row"), _described(out, "edge")
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "halden.txt").write_text(
        "Halden Robotics Ltd makes robots. The company is based in Tromsvik.\n", encoding="utf-8"
    )
    (tmp_path / "row.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text(json.dumps(gold) + "\n", encoding="utf-8")
    scored = run_odke(
        "eval",
        "pipeline",
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--documents",
        str(tmp_path / "texts"),
        "--predictions",
        str(tmp_path / "row.jsonl"),
        "--json",
    )
    assert scored.exit_code == 0, scored.stderr
    assert json.loads(scored.stdout)["rows"][0]["counts"]["hits"] == 1


# -- bad input: exit 2, one line -----------------------------------------------------------------


def test_an_unknown_triples_field_names_the_fields_wanted(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"doc": "halden", "subj": "A", "predicate": "ceo", "object": "B"}\n')
    result = run_odke("eval", "pipeline", *AGAINST, "--predictions", str(path))
    assert result.exit_code == 2
    (line,) = error_lines(result.stderr)
    assert f"{path}:1: subj: unknown field (did you mean 'subject'?)" in line
    assert "a triples row has doc, subject, predicate, object and optionally" in line


def test_extract_with_a_missing_predictions_file_exits_2() -> None:
    result = run_odke(
        "eval", "extract", "--labels", str(TRIPLES / "gold.jsonl"), "--predictions", "no/such.jsonl"
    )
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
    assert error_lines(result.stderr) == [
        "error: no/such.jsonl: no such file or folder (--predictions)"
    ]


def test_a_reference_of_another_major_is_refused(tmp_path: Path) -> None:
    report = tmp_path / "a" / "report.json"
    made = run_odke(
        "eval",
        "pipeline",
        *AGAINST,
        "--predictions",
        str(TRIPLES / "triples.jsonl"),
        "--report",
        str(report),
    )
    assert made.exit_code == 0, made.stderr
    data = json.loads(report.read_text())
    data["schema_version"] = "2.0"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    args = (*AGAINST, "--predictions", str(TRIPLES / "triples.jsonl"))
    result = run_odke("eval", "pipeline", *args, "--reference", str(other))
    assert result.exit_code == 2
    (line,) = error_lines(result.stderr)
    assert "other.json: schema_version 2.0; this version reads 1.x" in line
    assert run_odke("eval", "pipeline", *args, "--reference", str(report)).exit_code == 0


# -- --cmd: progress shows, the timeout names its flag --------------------------------------------


def test_cmd_stderr_is_shown_prefixed_as_it_runs() -> None:
    code = (
        "import sys, json, pathlib\n"
        "for n in (1, 2):\n"
        "    print(f'extracting {n}/2', file=sys.stderr, flush=True)\n"
        f"rows = pathlib.Path({str(TRIPLES / 'triples.jsonl')!r}).read_text()\n"
        "pathlib.Path(sys.argv[2]).write_text(rows)\n"
    )
    result = run_odke("eval", "pipeline", *AGAINST, "--cmd", command(code), "--json")
    assert result.exit_code == 0, result.stderr
    assert "[cmd] extracting 1/2\n[cmd] extracting 2/2\n" in result.stderr


def test_stderr_lines_reach_the_caller_while_the_command_runs(tmp_path: Path) -> None:
    """The command waits for a file only the caller's stderr callback makes: it finishes only
    if each line is handed over as it is written, not when the command ends."""
    go = tmp_path / "go"
    code = (
        "import sys, time, pathlib\n"
        "print('waiting', file=sys.stderr, flush=True)\n"
        f"go = pathlib.Path({str(go)!r})\n"
        "while not go.exists(): time.sleep(0.02)\n"
        "pathlib.Path(sys.argv[2]).write_text('{}\\n')\n"
    )
    seen: list[str] = []

    def on_line(line: str) -> None:
        seen.append(line)
        go.touch()

    with run_command(
        command(code), [Document(id="a", text="x")], timeout=20, on_stderr=on_line
    ) as ran:
        assert ran.out_path.read_text() == "{}\n"
    assert seen == ["waiting"]


def test_a_timeout_names_the_flag() -> None:
    result = run_odke(
        "eval",
        "pipeline",
        *AGAINST,
        "--cmd",
        command("import time; time.sleep(30)"),
        "--timeout",
        "1",
    )
    assert result.exit_code == 1
    (line,) = error_lines(result.stderr)
    assert "command timed out after 1 s" in line and "--timeout SECONDS" in line


def test_report_says_where_it_appended_the_track_record(tmp_path: Path) -> None:
    report = tmp_path / "run" / "report.json"
    result = run_odke(
        "eval",
        "pipeline",
        *AGAINST,
        "--predictions",
        str(TRIPLES / "triples.jsonl"),
        "--report",
        str(report),
    )
    assert result.exit_code == 0, result.stderr
    record = tmp_path / "run" / "track-record.jsonl"
    (line,) = json.loads("[" + record.read_text().strip().replace("\n", ",") + "]")
    count = len(line["fixes"])
    assert f"track record: appended {count} predicted fixes to {record}" in result.stderr


# -- Re-DocRED: --train-facts, rows the gold cannot place -----------------------------------------


@pytest.fixture(scope="module")
def redocred(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "redocred"
    prepare_redocred(DATA, out, split="test", limit=50)
    return out


def _gold_rows(bench: Path) -> list[dict]:
    lines = (bench / "gold.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _submission(bench: Path, tmp_path: Path, extra: list[dict]) -> tuple[Path, list[dict]]:
    """Every gold fact, every fifth one turned the other way round (wrong), and ``extra``."""
    rows = gold_submission(_gold_rows(bench))
    for row in rows[::5]:
        row["h_idx"], row["t_idx"] = row["t_idx"], row["h_idx"]
    rows += extra
    path = tmp_path / "result.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path, rows


def _official(report: dict) -> dict:
    return next(row for row in report["rows"] if row["name"] == "official")


def test_train_facts_give_the_official_row_its_ign_f1(redocred: Path, tmp_path: Path) -> None:
    train = DATA / "redocred" / "dev_revised.json"  # any DocRED-format split serves as "train"
    path, rows = _submission(redocred, tmp_path, [])
    result = run_odke(
        "eval",
        "pipeline",
        "--bench",
        str(redocred),
        "--predictions",
        str(path),
        "--train-facts",
        str(train),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    expected = score_redocred_official(
        rows, _gold_rows(redocred), train_facts=load_train_facts(train)
    )
    # Ign P = (correct - in train) / (predicted - in train); Ign F1 its harmonic mean with R.
    ign_p = (expected.correct - expected.correct_in_train) / (
        expected.predicted - expected.correct_in_train
    )
    ign_f1 = 2 * ign_p * expected.recall / (ign_p + expected.recall)
    assert expected.correct_in_train > 0 and ign_f1 == pytest.approx(expected.ign_f1)
    performance = _official(report)["performance"]
    assert performance["ign_f1"]["value"] == pytest.approx(ign_f1)
    assert performance["evidence_f1"]["value"] == pytest.approx(expected.evidence_f1)
    assert not [n for n in report["notes"] if "official Ign F1" in n]  # a field, not a note
    # The printed table carries both beside P/R/F1, on the official row only.
    shown = run_odke(
        "eval",
        "pipeline",
        "--bench",
        str(redocred),
        "--predictions",
        str(path),
        "--train-facts",
        str(train),
    )
    header = next(line for line in shown.stdout.splitlines() if "precision" in line)
    assert header.split()[3:5] == ["ign", "f1"] and "evidence f1" in header
    official = next(
        line for line in shown.stdout.splitlines() if line.strip().startswith("official")
    )
    assert f"{ign_f1:.3f}" in official and f"{expected.evidence_f1:.3f}" in official
    assert not [n for n in report["notes"] if "Ign F1 needs the training facts" in n]
    # Without the flag the note says how to get it; on a Text2KGBench set the flag is refused.
    plain = run_odke(
        "eval", "pipeline", "--bench", str(redocred), "--predictions", str(path), "--json"
    )
    assert any("--train-facts" in n for n in json.loads(plain.stdout)["notes"])


def test_train_facts_need_a_redocred_set() -> None:
    result = run_odke(
        "eval",
        "pipeline",
        *AGAINST,
        "--predictions",
        str(TRIPLES / "triples.jsonl"),
        "--train-facts",
        "x.json",
    )
    assert result.exit_code == 2 and "--train-facts is for a Re-DocRED --bench set" in result.stderr


def test_docred_rows_the_gold_cannot_place_count_wrong(redocred: Path, tmp_path: Path) -> None:
    first = _gold_rows(redocred)[0]["title"]
    extra = [
        {"title": "No such page", "h_idx": 0, "t_idx": 1, "r": "P17"},
        {"title": first, "h_idx": 0, "t_idx": 999, "r": "P17"},
    ]
    path, rows = _submission(redocred, tmp_path, extra)
    result = run_odke(
        "eval", "pipeline", "--bench", str(redocred), "--predictions", str(path), "--json"
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    # The same rows without the two: the official counts; the two join the denominator only.
    alone = score_redocred_official(rows[:-2], _gold_rows(redocred))
    assert alone.correct < alone.predicted  # the turned rows are wrong
    official = _official(report)["performance"]
    assert official["precision"]["value"] == pytest.approx(alone.correct / (alone.predicted + 2))
    assert official["recall"]["value"] == pytest.approx(alone.recall)
    note = next(n for n in report["notes"] if "count as wrong" in n)
    assert "1 row(s) name a title the gold does not hold and 1 an entity index out of range" in note
    # Ours counts them wrong too: two more over-extractions than the same rows without them.
    without = tmp_path / "without.json"
    without.write_text(json.dumps(rows[:-2]), encoding="utf-8")
    base = run_odke(
        "eval", "pipeline", "--bench", str(redocred), "--predictions", str(without), "--json"
    )
    before, after = json.loads(base.stdout)["rows"][0]["counts"], report["rows"][0]["counts"]
    assert after["over_extraction"] == before["over_extraction"] + 2
    assert after["hits"] == before["hits"]


# -- --run: the shapes each command wants ---------------------------------------------------------


def test_pipeline_run_takes_an_extractor_class(tmp_path: Path) -> None:
    module = tmp_path / "stage.py"
    module.write_text(
        "import json\n"
        f"with open({str(TRIPLES / 'triples.jsonl')!r}, encoding='utf-8') as handle:\n"
        "    ROWS = [json.loads(x) for x in handle]\n"
        "class Extractor:\n"
        "    def extract(self, document):\n"
        "        stem = document.id.removesuffix('.txt')\n"
        "        return [{k: v for k, v in r.items() if k != 'doc'} for r in ROWS if r['doc'] == stem]\n",
        encoding="utf-8",
    )
    result = run_odke("eval", "pipeline", *AGAINST, "--run", f"{module}:Extractor", "--json")
    assert result.exit_code == 0, result.stderr
    counts = json.loads(result.stdout)["rows"][0]["counts"]
    # The examples/triples output, each row citing the document it came from: 10 / 3 / 2.
    assert (counts["hits"], counts["over_extraction"], counts["under_extraction"]) == (10, 3, 2)


def test_extract_run_with_the_pipeline_shape_says_both_shapes(tmp_path: Path) -> None:
    module = tmp_path / "whole.py"
    module.write_text("def run(documents):\n    return [d.text for d in documents]\n", "utf-8")
    result = run_odke(
        "eval",
        "extract",
        "--labels",
        str(TRIPLES / "gold.jsonl"),
        "--documents",
        str(TRIPLES / "texts"),
        "--run",
        f"{module}:run",
    )
    assert result.exit_code == 1
    (line,) = error_lines(result.stderr)
    assert "AttributeError" in line
    assert "eval pipeline --run calls a function once with the list of Documents" in line
    assert (
        "eval extract --run calls a function, or a class's extract(document), once per Document"
        in line
    )
