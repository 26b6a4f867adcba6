"""``odke ontology snippet|types|validate|diff`` on the e2e example's ontology."""

from __future__ import annotations

import json
from pathlib import Path

ONTOLOGY = Path(__file__).resolve().parents[2] / "examples" / "e2e" / "ontology.json"


def test_types_and_snippet(odke) -> None:
    types = odke("ontology", "types", str(ONTOLOGY))
    assert types.stdout.splitlines()[0] == (
        "Company: legal_name, founded, headquartered_in, employees, ceo, founded_by"
    )
    shown = odke("ontology", "snippet", str(ONTOLOGY), "Company", "--limit", "2")
    assert shown.stdout.splitlines()[-2:] == [
        "- legal_name (string, single): The company's registered name.",
        "- founded (date, single): When the company was founded.",
    ]
    schema = json.loads(
        odke("ontology", "snippet", str(ONTOLOGY), "Person", "--json-schema").stdout
    )
    assert "born_in" in json.dumps(schema)
    unknown = odke("ontology", "snippet", str(ONTOLOGY), "Compny")
    assert unknown.exit_code == 2 and "did you mean 'Company'" in unknown.stderr


def test_validate_and_diff(odke, tmp_path: Path) -> None:
    assert odke("ontology", "validate", str(ONTOLOGY)).stdout.endswith(
        "valid (3 types, 7 predicates)\n"
    )
    broken = json.loads(ONTOLOGY.read_text())
    broken["predicates"]["ceo"]["range"] = "Persn"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken))
    result = odke("ontology", "validate", str(bad))
    assert result.exit_code == 2 and "predicates.ceo.range" in result.stdout
    changed = json.loads(ONTOLOGY.read_text())
    del changed["predicates"]["born_in"]
    new = tmp_path / "new.json"
    new.write_text(json.dumps(changed))
    diff = odke("ontology", "diff", str(ONTOLOGY), str(new), "--fail-on-breaking")
    assert diff.exit_code == 1 and diff.stdout.startswith("breaking:")
    assert odke("ontology", "diff", str(ONTOLOGY), str(ONTOLOGY)).exit_code == 0
