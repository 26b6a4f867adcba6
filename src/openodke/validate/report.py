"""ValidationReport: what the Validator did with a set of facts (``schema_version`` "1.0").

The report is copied to ``KnowledgeGraph.stats["validation"]`` and so into ``manifest.json``. Its
JSON Schema, ``openodke/validation_report.schema.json``, is generated from the model and committed;
a test fails when it is stale (``write_validation_schema()`` rewrites it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.ground.files import write_files
from openodke.llm.batch.use import BatchUse

__all__ = [
    "SCHEMA_PATH",
    "VALIDATION_SCHEMA_VERSION",
    "ValidationReport",
    "validation_json_schema",
    "write_validation_schema",
]

VALIDATION_SCHEMA_VERSION = "1.0"
"""The ValidationReport format's version."""

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "validation_report.schema.json"
"""Where the committed JSON Schema lives: ``openodke/validation_report.schema.json``."""


class ValidationReport(BaseModel):
    """The Validator's counts. ``facts_out = facts_in + derived - refused - merged``."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="ValidationReport")

    schema_version: Literal["1.0"] = Field(
        default="1.0", description="The report format's version."
    )
    facts_in: int = Field(
        ge=0, description="Facts that entered validation: rows and facts naming a document given."
    )
    unmatched: int = Field(
        ge=0,
        description="Rows or facts naming no document given (or a stem several share): dropped.",
    )
    refused: int = Field(ge=0, description="Facts the gate refused (not written).")
    refused_by: dict[str, int] = Field(
        description="Refused facts by the short kind of their reason: contradicted, not_found, "
        "predicate, domain, range, ... (`openodke.gate.reason_kind`)."
    )
    marked: int = Field(
        ge=0,
        description="Facts written with qualifiers['odke.review']: refusals spared below the "
        "grounder's calibration bar.",
    )
    merged: int = Field(ge=0, description="Facts merged into another of the same signature.")
    linked: int = Field(ge=0, description="Entities named in at least one same_as link.")
    links: dict[str, int] = Field(
        description="Links the resolver proposed, by kind: same_as, similar, different."
    )
    derived: int = Field(ge=0, description="Inverse partners added (qualifiers['odke.derived']).")
    facts_out: int = Field(ge=0, description="Facts written: in + derived - refused - merged.")
    restated: int = Field(
        default=0,
        ge=0,
        description="Facts already in the store (0 while store merging is out of scope).",
    )
    store: None = Field(default=None, description="The store merged into (null: out of scope).")
    verdicts: dict[str, int] = Field(
        description="Grounding verdicts of the facts in: unchecked, supported, contradicted, not_found."
    )
    checked: int = Field(ge=0, description="Facts grounding gave a verdict other than unchecked.")
    calls: int = Field(ge=0, description="Model calls made (cached ones included).")
    failed: int = Field(
        default=0,
        ge=0,
        description="Calls that failed or whose answer could not be read; each left its fact unchecked.",
    )
    failures: dict[str, int] = Field(
        default_factory=dict,
        description="Failed calls by kind: cut off at max_tokens, refused, empty, off schema, "
        "unreadable answer, timed out, ...",
    )
    tokens: int = Field(ge=0, description="Tokens the live calls spent, prompt and completion.")
    cost_usd: float | None = Field(
        description="USD the calls cost; null when any answered live call was unpriced."
    )
    batch: BatchUse | None = Field(
        default=None,
        description="What went through the providers' batch APIs (--batch); null when live.",
    )
    prompts: list[str] = Field(description="The prompt ids (id@version) the calls were made with.")
    coverage: dict[str, Any] | None = Field(
        description="{snippet_limit, offered, never_offered}: what each type was checked against; "
        "null when coverage is off."
    )
    notes: list[str] = Field(
        default_factory=list, description="What a number cannot say: rows dropped, dry runs, ..."
    )

    def _kinds(self) -> str:
        from openodke.llm.failures import kinds_text

        text = kinds_text(self.failures)
        return f": {text}" if text else ""

    def render(self) -> str:
        """A few lines for a terminal."""
        refused = ", ".join(f"{k} {v}" for k, v in sorted(self.refused_by.items()))
        verdicts = ", ".join(f"{k} {v}" for k, v in self.verdicts.items())
        links = ", ".join(f"{k} {v}" for k, v in self.links.items())
        cost = "unpriced" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        lines = [
            f"validated  {self.facts_in} facts in, {self.facts_out} written"
            f" ({self.unmatched} unmatched)",
            f"verdicts   {verdicts} ({self.checked} checked)",
            f"gate       {self.refused} refused"
            + (f" ({refused})" if refused else "")
            + f", {self.marked} marked for review",
            f"merged     {self.merged}; derived {self.derived}; links {links} ({self.linked} linked)",
            f"calls      {self.calls} ({self.failed} failed{self._kinds()}), {self.tokens} tokens, "
            f"{cost}",
        ]
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)


def validation_json_schema() -> dict[str, Any]:
    """The JSON Schema of a ValidationReport, generated from the model."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://openodke.dev/schema/validation_report-{VALIDATION_SCHEMA_VERSION}.json",
        **ValidationReport.model_json_schema(),
    }


def write_validation_schema(path: str | Path = SCHEMA_PATH) -> None:
    """Write the generated schema (sorted keys, two-space indent, final newline)."""
    text = json.dumps(validation_json_schema(), indent=2, sort_keys=True) + "\n"
    write_files([(path, text)])
