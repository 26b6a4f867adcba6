"""The ValidationReport: its committed JSON Schema, and what it accepts."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import ValidationError

from openodke.validate import ValidationReport, validation_json_schema
from openodke.validate.report import SCHEMA_PATH

REPORT = {
    "facts_in": 9,
    "unmatched": 1,
    "refused": 1,
    "refused_by": {"predicate": 1},
    "marked": 1,
    "merged": 1,
    "linked": 0,
    "links": {"same_as": 0, "similar": 0, "different": 0},
    "derived": 1,
    "facts_out": 8,
    "verdicts": {"unchecked": 0, "supported": 5, "contradicted": 1, "not_found": 3},
    "checked": 9,
    "calls": 8,
    "tokens": 0,
    "cost_usd": None,
    "prompts": ["ground.span@1"],
    "coverage": None,
}


def test_the_committed_schema_is_up_to_date():
    committed = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert SCHEMA_PATH.name == "validation_report.schema.json"
    assert SCHEMA_PATH.parent.name == "openodke"
    assert committed == validation_json_schema(), (
        "validation_report.schema.json is stale: run "
        "python -c 'from openodke.validate import write_validation_schema as w; w()'"
    )


def test_a_report_dump_fits_the_schema_and_names_every_field():
    dumped = ValidationReport(**REPORT).model_dump(mode="json")
    jsonschema.validate(dumped, validation_json_schema())
    assert list(dumped)[0] == "schema_version" and dumped["schema_version"] == "1.0"
    assert (
        dumped["restated"],
        dumped["store"],
        dumped["failed"],
        dumped["notes"],
        dumped["batch"],
    ) == (0, None, 0, [], None)
    assert set(dumped) == {
        *REPORT,
        "schema_version",
        "restated",
        "store",
        "failed",
        "failures",
        "notes",
        "batch",
    }


@pytest.mark.parametrize(
    "change", [{"surprise": 1}, {"schema_version": "2.0"}, {"facts_in": -1}, {"store": "neo4j"}]
)
def test_the_model_refuses_what_the_format_does_not_allow(change):
    with pytest.raises(ValidationError):
        ValidationReport(**{**REPORT, **change})


def test_render_says_what_happened():
    text = ValidationReport(**REPORT, notes=["1 row named no document"]).render()
    assert "9 facts in, 8 written (1 unmatched)" in text
    assert "1 refused (predicate 1), 1 marked for review" in text
    assert "calls      8 (0 failed), 0 tokens, unpriced" in text
    assert text.endswith("  1 row named no document")
