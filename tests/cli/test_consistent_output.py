"""What a user read wrong or inconsistent (issue 17, item 7), each end to end through the CLI:

- ``--trace odke.yaml`` with a ``hybrid`` extractor said "relation never offered 0" where the
  run's manifest lists the relations never offered (it added the pattern's mappings);
- ``run.models``/``run.prompts`` stayed empty with ``--trace``;
- ``odke run --from-manifest out/manifest.json``, as examples/e2e/README writes it, exited 2;
- ``odke validate --config`` ignored the config's ``calibration:`` cards;
- ``--reference`` used a report that fails ``check_report``;
- ``odke eval compare`` beside a track record recorded nothing and said nothing;
- the spans note said the widths "overlap" for not_found 50–60 vs supported 10–12;
- the false-positive header (``+ validator: 2``) disagreed with its rows (1 + 0 + 2).

(``eval pipeline`` exiting 0 at F1 0.000 is ``tests/cli/test_fail_under.py``.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict, Span
from tests.conftest import ROOT, run_odke

E2E, TRIPLES = ROOT / "examples" / "e2e", ROOT / "examples" / "triples"


@pytest.fixture(scope="module")
def narrow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/e2e run with the model part offered 2 relations per type (snippet_limit 2):
    Company is offered legal_name and founded, so ceo, founded_by, headquartered_in and
    employees are never offered to it (the pattern half still reads the records). Its facts
    less the 4 ceo facts, and its documents as JSONL, beside it."""
    from openodke.run import build, load_config
    from openodke.run.steps import load

    folder = tmp_path_factory.mktemp("narrow") / "e2e"
    shutil.copytree(E2E, folder, ignore=shutil.ignore_patterns("out", ".odke-cache"))
    config = folder / "odke.yaml"
    text = config.read_text(encoding="utf-8")
    assert "llm: {snippet_limit: 25}" in text
    config.write_text(text.replace("snippet_limit: 25", "snippet_limit: 2"), encoding="utf-8")
    result = run_odke("run", str(config), "--no-cache")
    assert result.exit_code == 0, result.stderr
    facts = (folder / "out" / "facts.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [line for line in facts if json.loads(line)["predicate"] != "ceo"]
    assert len(facts) - len(kept) == 4
    (folder / "no-ceo.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    with build(load_config(config)) as built:
        documents, _ = load(built)
    lines = "".join(d.model_dump_json() + "\n" for d in documents)
    (folder / "documents.jsonl").write_text(lines, encoding="utf-8")
    return folder


def _pipeline(folder: Path, *extra: str) -> dict[str, Any]:
    result = run_odke(
        "eval", "pipeline", "--labels", str(folder / "gold.jsonl"),
        "--documents", str(folder / "documents.jsonl"), "--ontology", str(folder / "ontology.json"),
        "--predictions", str(folder / "no-ceo.jsonl"), "--json", *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_a_hybrid_trace_reads_what_the_manifest_lists(narrow: Path) -> None:
    manifest = json.loads((narrow / "out" / "manifest.json").read_text(encoding="utf-8"))
    never = manifest["stats"]["coverage"]["never_offered"]["Company"]
    assert never == ["headquartered_in", "ceo", "founded_by", "employees"]
    # The 4 ceo gold facts are missed and ceo was never offered to Company: 4, by the manifest
    # and by the config alike (the config gave 0).
    for trace in (narrow / "out" / "manifest.json", narrow / "odke.yaml"):
        report = _pipeline(narrow, "--trace", str(trace))
        found = {row["bucket"]: row["count"] for row in report["diagnosis"]}
        assert found["never_offered"] == 4, trace


def test_trace_fills_run_models_and_prompts(narrow: Path) -> None:
    by_manifest = _pipeline(narrow, "--trace", str(narrow / "out" / "manifest.json"))["run"]
    assert by_manifest["models"] == {"extract": "ollama/qwen2.5:7b", "ground": "ollama/qwen2.5:3b"}
    assert by_manifest["prompts"] == ["extract.facts@1", "ground.span@1"]
    by_config = _pipeline(narrow, "--trace", str(narrow / "odke.yaml"))["run"]
    assert by_config["models"] == by_manifest["models"]
    assert by_config["prompts"] == []  # a config does not say which prompts ran
    assert _pipeline(narrow)["run"]["models"] == {}


def test_from_manifest_as_the_readme_writes_it(
    narrow: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (E2E / "README.md").read_text(encoding="utf-8")
    assert "`odke run --from-manifest out/manifest.json` replays the run" in readme
    monkeypatch.chdir(narrow)
    result = run_odke("run", "--from-manifest", "out/manifest.json", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert "written    " in result.stdout
    # and a changed document is still refused
    note = narrow / "corpus" / "notes" / "corvana.txt"
    note.write_text(note.read_text(encoding="utf-8") + " More.", encoding="utf-8")
    changed = run_odke("run", "--from-manifest", "out/manifest.json", "--no-cache")
    assert changed.exit_code == 2
    assert "documents changed since this run: corpus/notes/corvana.txt" in changed.stderr


CARD = {
    "judge": {"model": "ollama/qwen2.5:3b", "prompt": "ground.span@1"},
    "label_set": "G", "split": "gate", "n": 400,
    "agreement": {"value": 0.93, "low": 0.90, "high": 0.95}, "kappa": 0.84,
    "measured_at": "2025-06-01T00:00:00Z",
}  # fmt: skip


def test_validate_reads_the_configs_calibration_cards(tmp_path: Path) -> None:
    folder = tmp_path / "triples"
    shutil.copytree(TRIPLES, folder)
    (folder / "card.json").write_text(json.dumps(CARD), encoding="utf-8")
    config = folder / "odke.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(
            "ontology: ontology.json\n", "ontology: ontology.json\ncalibration: card.json\n"
        ),
        encoding="utf-8",
    )
    result = run_odke("validate", "--config", str(config), "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert (
        "judge: ground.span@1 on ollama/qwen2.5:3b: agreement 0.93 [0.90, 0.95] (Wilson 95%), "
        "kappa 0.84, n 400, G/gate, 2025-06-01"
    ) in result.stdout.splitlines()


AGAINST = (
    "--labels", str(TRIPLES / "gold.jsonl"), "--documents", str(TRIPLES / "texts"),
    "--ontology", str(TRIPLES / "ontology.json"),
    "--predictions", str(TRIPLES / "triples.jsonl"),
)  # fmt: skip


def test_reference_must_be_a_valid_report(tmp_path: Path) -> None:
    good = tmp_path / "a" / "report.json"
    assert run_odke("eval", "pipeline", *AGAINST, "--report", str(good)).exit_code == 0
    ok = run_odke("eval", "pipeline", *AGAINST, "--reference", str(good), "--json")
    assert ok.exit_code == 0, ok.stderr
    assert any(f["recall"]["reference"] is not None for f in json.loads(ok.stdout)["fixes"])
    # The same fixes in a file that fails check_report (no title, rows, ...): refused, exit 2.
    bad = tmp_path / "bad.json"
    fixes = json.loads(good.read_text(encoding="utf-8"))["fixes"]
    bad.write_text(json.dumps({"schema_version": "1.4", "fixes": fixes}), encoding="utf-8")
    refused = run_odke("eval", "pipeline", *AGAINST, "--reference", str(bad))
    assert refused.exit_code == 2
    assert refused.stderr.startswith(
        f"error: {bad}: not a valid eval report (--reference): title: missing required field"
    )


def test_compare_beside_a_track_record_says_why_nothing_was_recorded(tmp_path: Path) -> None:
    for run in ("a", "b"):
        result = run_odke(
            "eval", "pipeline", *AGAINST, "--report", str(tmp_path / run / "report.json"),
            "--items", str(tmp_path / run / "items.jsonl"),
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
    assert (tmp_path / "a" / "track-record.jsonl").is_file()
    result = run_odke(
        "eval", "compare", str(tmp_path / "a" / "items.jsonl"), str(tmp_path / "b" / "items.jsonl")
    )
    assert result.exit_code == 0
    assert result.stderr.strip() == (
        "track record: A's or B's config is unknown, so the fix B applied cannot be told: "
        "pass --applied"
    )


def _cited(width: int, verdict: str) -> str:
    span = Span(doc_id="d1", start=0, end=width)
    fact = Fact(
        subject=Entity(key="ada", type="Person"),
        predicate="p",
        object_value=width,
        evidence=(Evidence(doc_id="d1", span=span),),
        verdict=GroundingVerdict(verdict),
    )
    return fact.model_dump_json() + "\n"


@pytest.mark.parametrize(
    ("not_found", "supported", "headline"),
    [
        # not_found 50-60 vs supported 10-12: apart, and the not_found ones are wider.
        (
            (50, 55, 60), (10, 11, 12),
            "not_found median 55 chars vs supported 11: the not_found citations are the wider "
            "ones, so narrow citations do not explain the not_found verdicts",
        ),
        ((10, 11, 12), (50, 55, 60), "not_found median 11 chars vs supported 55 — citations are too narrow"),
        (
            (10, 30, 60), (12, 40, 50),
            "not_found median 30 chars vs supported 40: the widths overlap, so width does not "
            "explain the not_found verdicts",
        ),
    ],
)  # fmt: skip
def test_the_spans_note_says_which_way_widths_differ(
    not_found: tuple[int, ...], supported: tuple[int, ...], headline: str, tmp_path: Path
) -> None:
    facts = tmp_path / "facts.jsonl"
    rows = [_cited(w, "not_found") for w in not_found] + [_cited(w, "supported") for w in supported]
    facts.write_text("".join(rows), encoding="utf-8")
    result = run_odke("eval", "spans", "--facts", str(facts), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["notes"][0] == headline


def test_the_false_positive_header_adds_up_to_its_rows() -> None:
    # examples/triples README's + validator row: 2 written false positives, and the gate
    # refused 1 fact that is not in gold; the header said "+ validator: 2" over 1 + 0 + 2.
    result = run_odke(
        "eval", "pipeline", *AGAINST, "--config", str(TRIPLES / "odke.yaml"), "--validator",
        "--no-cache",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    at = lines.index(
        "false positives  (+ validator: 2 written, and 1 refused by the gate, not in gold)"
    )
    rows = [line.split()[-2] for line in lines[at + 1 : at + 4]]
    assert rows == ["1", "0", "2"]
