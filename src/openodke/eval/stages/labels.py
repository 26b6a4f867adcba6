"""Label and prediction rows for every stage, and the contract ``--describe`` prints."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.types import Document, Fact, GroundingVerdict

__all__ = [
    "LABEL_FORMATS",
    "CalibrationLabel",
    "GateLabel",
    "GoldFact",
    "GroundingLabel",
    "LinkRow",
    "PairLabel",
    "RouteLabel",
    "RoutePrediction",
    "ValidationPrediction",
    "describe",
]


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GoldFact(_Row):
    """A fact the document ``doc_id`` states: one row of extraction gold."""

    doc_id: str = Field(description="The labelled document.")
    fact: Fact = Field(description="Only identity matters: subject, predicate, object, polarity.")


class GroundingLabel(_Row):
    """What a passage says about one fact: supported, contradicted or not_found."""

    text: str = Field(description="The passage (or whole document) the fact is checked against.")
    fact: Fact
    verdict: Literal["supported", "contradicted", "not_found"]
    doc_id: str | None = Field(default=None, description="Defaults to the fact's first citation.")

    @property
    def document_id(self) -> str:
        """``doc_id``, else the fact's first cited document, else the fact's id."""
        if self.doc_id is not None:
            return self.doc_id
        return self.fact.evidence[0].doc_id if self.fact.evidence else self.fact.id

    def as_document(self) -> Document:
        """The labelled text as a Document, so a grounder can be run on it."""
        return Document(id=self.document_id, text=self.text)

    @property
    def true_verdict(self) -> GroundingVerdict:
        """The label as a GroundingVerdict."""
        return GroundingVerdict(self.verdict)


class PairLabel(_Row):
    """Whether two entity keys name the same thing."""

    a: str
    b: str
    same: bool


class LinkRow(_Row):
    """A predicted link between two keys (``odke eval resolve`` predictions)."""

    a: str
    b: str
    kind: Literal["same_as", "similar", "different"] = "same_as"


class CalibrationLabel(_Row):
    """A scored fact and whether it is true."""

    fact: Fact = Field(description="Its confidence is the score being calibrated.")
    true: bool


class GateLabel(_Row):
    """What a gate should do with one fact."""

    fact: Fact
    action: Literal["accept", "refuse", "conflict"]


class ValidationPrediction(_Row):
    """What a gate did with the labelled fact ``id``."""

    id: str = Field(description="The labelled fact's id.")
    action: Literal["accept", "refuse", "conflict"]
    reason: str | None = None


class RouteLabel(_Row):
    """What a router should do with one chunk or document."""

    id: str
    text: str
    action: Literal["extract", "skip", "defer"]
    label: str | None = None


class RoutePrediction(_Row):
    """What a router did with ``id``."""

    id: str
    action: Literal["extract", "skip", "defer"]
    label: str | None = None


LABEL_FORMATS: dict[str, tuple[type[BaseModel], type[BaseModel] | None]] = {
    "route": (RouteLabel, RoutePrediction),
    "extract": (GoldFact, Fact),
    "ground": (GroundingLabel, Fact),
    "resolve": (PairLabel, LinkRow),
    "score": (CalibrationLabel, Fact),
    "validate": (GateLabel, ValidationPrediction),
}
"""stage → (label row, prediction row). ``gate`` is an alias of ``validate``."""

_EXAMPLES = {
    "route": '{"id": "c1", "text": "Ada Lovelace was born in London in 1815.", '
    '"action": "extract", "label": "fact"}',
    "extract": '{"doc_id": "d1", "fact": {"subject": {"key": "ada", "type": "Person"}, '
    '"predicate": "born", "object_value": 1815}}',
    "ground": '{"text": "Ada Lovelace was born in London in 1815.", "fact": {"id": "g1", '
    '"subject": {"key": "ada", "type": "Person"}, "predicate": "born", "object_value": 1815}, '
    '"verdict": "supported"}',
    "resolve": '{"a": "a", "b": "b", "same": true}',
    "score": '{"fact": {"subject": {"key": "ada", "type": "Person"}, "predicate": "born", '
    '"object_value": 1815, "confidence": 0.9}, "true": true}',
    "validate": '{"fact": {"id": "f1", "subject": {"key": "ada", "type": "Person"}, '
    '"predicate": "born", "object_value": 1816}, "action": "refuse"}',
}

_KEYS = (
    '  keys         entities match by what they mean: "ada", "Ada " and "Person:ada" typed',
    "               Person are one; an untyped entity (Thing) matches any gold type; other",
    "               type names: --type-map FILE, or --match names (types not compared)",
)

_PREDICTIONS = {
    "route": 'RoutePrediction rows {"id", "action", "label"?}, or --run pkg.mod:Router',
    "extract": "Fact rows (a sink's facts.jsonl as it is), or --run pkg.mod:Extractor "
    "with --documents",
    "ground": "Fact rows with a verdict, joined on Fact.id (a sink's facts.jsonl), "
    "or --run pkg.mod:Grounder",
    "resolve": 'LinkRow rows {"a", "b", "kind"} or a sink\'s links.jsonl (EntityLink rows)',
    "score": "Fact rows with a confidence, joined on Fact.id, or --run pkg.mod:Scorer",
    "validate": 'ValidationPrediction rows {"id", "action", "reason"?}, or --run pkg.mod:Gate',
}

_METRICS = {
    "route": "action_accuracy, extract_precision, extract_recall, extract_f1, skip_precision, "
    "skip_recall, facts_skipped, facts_skipped_rate, facts_deferred, wasted_extractions, "
    "label_accuracy, label_macro_f1; breakdown per label",
    "extract": "precision, recall, f1, macro_f1, tp, fp, fn, wrong_value, wrong_entity, missing, "
    "spurious, predicates; breakdown per predicate",
    "ground": "accuracy, macro_f1, false_support, lost_support, unchecked; breakdown per verdict; "
    "confusion label → predicted",
    "resolve": "pairwise_precision, pairwise_recall, pairwise_f1, pairwise_accuracy, tp, fp, fn, "
    "tn, bcubed_precision, bcubed_recall, bcubed_f1, gold_clusters, predicted_clusters, "
    "links_same_as, links_similar, links_different",
    "score": "brier, brier_baseline, ece, max_gap, base_rate, mean_confidence, threshold, "
    "scored_at_threshold, true_rate_at_threshold; breakdown per bin 0.0–0.1 … 0.9–1.0",
    "validate": "agreement, kappa, macro_f1, wrongly_refused, wrongly_written, conflicts_missed; "
    "breakdown per action",
}


def describe(stage: str) -> str:
    """The contract of ``odke eval <stage>``: label row, prediction row, an example, metrics."""
    stage = "validate" if stage == "gate" else stage
    if stage == "spans":
        return (
            "odke eval spans: no labels.\n"
            "  input      a run's facts.jsonl, or the folder a sink wrote (--facts)\n"
            "  metrics    with_span, no_span, no_span_rate, median_width, not_found_rate, "
            "supported_median, not_found_median, median_gap, located; breakdown per verdict: "
            "n, no_span, min, p25, median, p75, max"
        )
    if stage not in LABEL_FORMATS:
        raise KeyError(stage)
    label, _ = LABEL_FORMATS[stage]
    fields = ", ".join(
        name if info.is_required() else f"{name}?" for name, info in label.model_fields.items()
    )
    return "\n".join(
        [
            f"odke eval {stage}",
            f"  labels       {label.__name__}({fields}), one JSON object per line",
            f"  example      {_EXAMPLES[stage]}",
            f"  predictions  {_PREDICTIONS[stage]}",
            *(_KEYS if stage == "extract" else ()),
            f"  metrics      {_METRICS[stage]}",
            "  exit codes   0 scored; 1 a --run stage that failed; 2 unreadable input",
        ]
    )
