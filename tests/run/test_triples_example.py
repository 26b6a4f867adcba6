"""examples/triples: the Validator on its recorded verdicts, as its README states."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from openodke.run import execute, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "triples"


def test_odke_validate_on_the_recorded_verdicts(odke, tmp_path: Path) -> None:
    folder = tmp_path / "triples"
    shutil.copytree(EXAMPLE, folder)
    result = odke("validate", "--config", str(folder / "odke.yaml"), "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)["report"]
    assert (report["facts_in"], report["facts_out"], report["calls"]) == (13, 12, 12)
    assert report["verdicts"] == {
        "unchecked": 0,
        "supported": 4,
        "contradicted": 1,
        "not_found": 8,
    }
    assert report["refused_by"] == {"contradicted": 1}
    text = odke("validate", "--config", str(folder / "odke.yaml")).stdout
    readme = (EXAMPLE / "README.md").read_text()
    for line in text.splitlines():
        assert line in readme


def test_odke_run_refuses_the_contradicted_value(tmp_path: Path) -> None:
    folder = tmp_path / "triples"
    shutil.copytree(EXAMPLE, folder)
    result = execute(load_config(folder / "odke.yaml"))
    assert result.stats["validation"]["refused"] == 1
    ((fact, reason),) = result.refused
    assert (fact.predicate, fact.object_value) == ("employees", 250)
    assert reason == "grounding verdict contradicted: the passage says otherwise"


def test_validate_facts_runs_the_validators_stages_from_a_config() -> None:
    from openodke.documents import load_documents
    from openodke.interop.triples import read_triples
    from openodke.run import validate_facts

    graph, report, refused = validate_facts(
        load_config(EXAMPLE / "odke.yaml"),
        read_triples(EXAMPLE / "triples.jsonl"),
        load_documents(EXAMPLE / "texts"),
    )
    # Stages the config leaves out get the Validator's defaults (normalizer, resolver, ...).
    assert (report.facts_in, report.refused, report.calls) == (13, 1, 12)
    assert [fact.object_value for fact, _ in refused] == [250]
    assert len(graph.facts) == 12
    assert "normalizer" in graph.stats["stages"]
