"""The EvalReport's models, schema_version "1.4": one JSON document per scored run.

Every model forbids unknown keys, so the generated JSON Schema has ``additionalProperties: false``
at every level. An undefined value is null (printed —), with the reason in ``notes``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.eval.compare import Comparison
from openodke.eval.diagnosis.fix_model import Fix
from openodke.eval.diagnosis.models import DiagnosisRow
from openodke.eval.stages.stage_report import StageReport

__all__ = [
    "SCHEMA_VERSION",
    "Adjudication",
    "Bootstrap",
    "CalibrationLine",
    "Conformance",
    "Cost",
    "Counts",
    "Dataset",
    "EvalReport",
    "Floor",
    "Hallucination",
    "JudgedPrecision",
    "Latency",
    "Lenient",
    "Performance",
    "PooledRecall",
    "Row",
    "RunInfo",
    "Value",
]

SCHEMA_VERSION = "1.4"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Value(_Model):
    """A metric with its 95% bootstrap range; low and high are null for a point (official rows)."""

    value: float | None = Field(description="The metric over all documents; null if undefined.")
    low: float | None = Field(default=None, description="Low end of the range.")
    high: float | None = Field(default=None, description="High end of the range.")


class Performance(_Model):
    """Precision, recall and F1, micro over facts or macro over sentences (official rows)."""

    precision: Value
    recall: Value
    f1: Value
    average: Literal["micro", "macro"] = "micro"
    ign_f1: Value | None = Field(
        default=None,
        description="Re-DocRED's official Ign F1 (correct predictions whose entity names and "
        "relation are a training fact left out of precision); null unless training facts "
        "were given (--train-facts) and on every other row.",
    )
    evidence_f1: Value | None = Field(
        default=None,
        description="Re-DocRED's official Evidence F1 (the evidence sentences of correct "
        "predictions against the gold's); null on every other row.",
    )


class Counts(_Model):
    """What was matched: hits, over- and under-extraction, and what could not be scored."""

    hits: int = Field(description="True positives.")
    over_extraction: int = Field(
        description="False positives: wrong value, wrong entity, spurious."
    )
    under_extraction: int = Field(
        description="False negatives: wrong value, wrong entity, missing."
    )
    predicted: int = Field(description="Predictions read.")
    gold: int = Field(description="Gold facts scored (duplicates counted once).")
    uncited: int = Field(description="Predictions citing no document (in every bootstrap draw).")
    unscored: int = Field(description="Predictions citing only unlabelled documents.")
    documents: int = Field(description="Labelled documents.")


class Conformance(_Model):
    """How many predicted facts fit the ontology."""

    rate: float | None
    conformant: int
    facts: int
    checks: list[Literal["predicate", "domain", "range"]]
    average: Literal["micro", "macro"] = "micro"


class Hallucination(_Model):
    """Facts naming what the text and ontology do not (Text2KGBench's SH, RH, OH)."""

    definition: str
    hallucinated: int | None = None
    facts: int
    rate: float | None
    subject: float | None = None
    relation: float | None = None
    object: float | None = None


class Cost(_Model):
    """Model calls and their price; usd is null when any call is unpriced."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float | None = None
    priced_usd: float = 0.0
    unpriced_calls: int = 0


class Latency(_Model):
    """Wall time spent in calls (or in the command that produced the predictions)."""

    calls: int = 0
    seconds: float | None = None
    per_call: float | None = None


class Row(_Model):
    """One configuration scored against gold."""

    name: str
    performance: Performance
    counts: Counts | None = Field(description="Null for an official row scored by other rules.")
    conformance: Conformance | None = None
    hallucination: Hallucination | None = None
    cost: Cost = Field(default_factory=Cost)
    latency: Latency = Field(default_factory=Latency)


class Dataset(_Model):
    """What was scored."""

    name: str | None = None
    path: str | None = None
    documents: int | None = None
    labels: int | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class RunInfo(_Model):
    """How the report was made, so a number can be reproduced."""

    openodke: str = Field(description="Package version.")
    models: dict[str, str] = Field(default_factory=dict, description="role → model.")
    prompts: list[str] = Field(default_factory=list, description="Prompt ids (id@version).")
    claim_formats: dict[str, Literal["span", "paper"]] | None = Field(
        default_factory=dict, description="Grounder prompt → claim format (1.3)."
    )
    dataset: Dataset = Field(default_factory=Dataset)
    inputs: dict[str, str] = Field(
        default_factory=dict, description="Input file → SHA-256, and the command run, if any."
    )


class Bootstrap(_Model):
    """How the ranges were drawn."""

    unit: Literal["document", "item"] = "document"
    units: int = 0
    resamples: int = 2000
    seed: int | None = 0
    level: float = 0.95
    method: Literal["expanded-bca", "percentile"] = Field(
        default="expanded-bca",
        description="How a range is read off the draws. expanded-bca: BCa (Efron 1987) at "
        "Hesterberg's expanded level, falling back to the expanded percentile interval where BCa "
        "is undefined (DECISIONS #40); the rows' document ranges and compare's documents. "
        "percentile: the 2.5% and 97.5% points of the draws; compare's items (DECISIONS #42) "
        "and pooled recall.",
    )


class CalibrationLine(_Model):
    """One model judge the run called, with its calibration card's line (1.3)."""

    role: str
    model: str
    prompt: str
    line: str = Field(description='The card line, or "UNCALIBRATED".')
    meets_bar: bool


class JudgedPrecision(_Model):
    """Precision without gold: a judge and a labelled sample (PPI++, power-tuned)."""

    facts: int
    supported: int
    labels: int
    labelled_supported: int
    false_support: int
    lost_support: int
    judge_only: Value
    corrected: Value
    labels_only: Value
    level: float
    method: Literal["ppi-closed-form", "ppi++"] = Field(
        default="ppi++",
        description="ppi++: the judge weighed by `weight` (Angelopoulos, Duchi & Zrnic 2023), "
        "never wider than labels_only; ppi-closed-form: plain PPI (reports before it).",
    )
    weight: float | None = Field(
        default=None,
        description="PPI++'s λ in [0, 1], the weight on the judge: 0 when the labels alone "
        "decide (corrected is then labels_only), 1 is plain PPI; null without labels.",
    )
    minimum: int
    calibrated: bool
    coverage: float | None


class PooledRun(_Model):
    """One run's share of the pooled facts."""

    name: str
    facts: int
    supported: int
    unique: int
    relative_recall: Value
    coverage: float | None


class PooledRecall(_Model):
    """Recall relative to a pool of runs."""

    pool: int
    documents: int
    runs: list[PooledRun] = Field(min_length=2)
    bootstrap: Bootstrap
    caveat: str


class AdjudicationRow(_Model):
    """The strict and adjudicated precision of one row."""

    name: str
    not_in_gold: int
    asked: int
    possibly_missing: int
    strict: Value
    adjudicated: Value


class Adjudication(_Model):
    """Predictions the gold lacks, grounded three times each."""

    runs: int = 3
    needed: int = 2
    questions: int
    rows: list[AdjudicationRow]
    audit: str | None = None


class LenientRow(_Model):
    """The strict and lenient score of one row."""

    name: str
    candidates: int
    same: int
    counted: int
    strict: Performance
    lenient: Performance


class Lenient(_Model):
    """Near misses judged the same fact in other words (provisional)."""

    judge: dict[str, str]
    calibrated: bool
    rows: list[LenientRow]
    pairs: str | None = None


class Floor(_Model):
    """One ``--fail-under`` gate on one run: the low end of a row's range against a floor."""

    row: str = Field(description="The row gated (the pipeline's own).")
    metric: Literal["precision", "recall", "f1"]
    floor: float = Field(ge=0, le=1)
    low: float | None = Field(description="The low end of the row's 95% range; null: undefined.")
    passed: bool = Field(description="False when low is under floor, or undefined.")


class EvalReport(_Model):
    """One scored run: rows against gold, stage reports, diagnosis, fixes, comparison."""

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=r"^1\.[0-9]+$")
    title: str
    n: int = Field(description="Rows scored (gold facts, or labelled items).")
    run: RunInfo
    bootstrap: Bootstrap
    rows: list[Row]
    stages: list[StageReport]
    notes: list[str]
    diagnosis: list[DiagnosisRow]
    fixes: list[Fix]
    comparison: Comparison | None
    calibration: list[CalibrationLine] | None
    judged_precision: JudgedPrecision | None = None
    pooled_recall: PooledRecall | None = None
    adjudication: Adjudication | None = None
    lenient: Lenient | None = None
    gates: list[Floor] | None = Field(
        default=None, description="The --fail-under gates checked on this run, passed or not."
    )

    def _repr_html_(self) -> str:
        """The notebook view: the headline table with ranges and the top findings."""
        from openodke.eval.report.html.notebook import notebook_html

        return notebook_html(self)

    def to_pandas(self) -> dict[str, Any]:
        """Each table as a pandas DataFrame, by name: ``rows`` (P/R/F1 with ranges, counts,
        cost), ``predicates`` (per predicate, ranges over facts, the worst first),
        ``diagnosis`` (buckets), ``fixes``, ``comparison``; empty tables are left out. Needs
        pandas (``pip install 'openodke[pandas]'``)."""
        from openodke.eval.report.export import to_pandas

        return to_pandas(self)
