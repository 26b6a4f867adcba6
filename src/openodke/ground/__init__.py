"""Grounding: does the text a fact cites say it? Free checks first, then a model.

Three steps, cheapest first: the free checks (``span_check``; with an ontology ``schema_check``),
the span locator (``locate``), then the model (``LLMGrounder``, in the span or the paper claim
format). ``CheckedGrounder`` puts the free checks in front of any grounder; ``ground_graph``
grounds a whole set of facts against their documents.
"""

from openodke.ground.answers import read_answer, read_paper_answer, read_span_answer
from openodke.ground.checked import CheckedGrounder
from openodke.ground.checks import (
    CHECK,
    QUOTE_NOT_FOUND,
    SCHEMA,
    SCHEMA_KINDS,
    findings,
    is_free_not_found,
    schema_check,
    schema_kind,
    schema_misfits,
    span_check,
)
from openodke.ground.graph import ground_facts, ground_graph
from openodke.ground.llm import DEFAULT_MAX_WORKERS, WIDEN, LLMGrounder, PlannedCall
from openodke.ground.locate import locate
from openodke.ground.prompts import (
    CLAIM_FORMATS,
    PAPER,
    PROMPTS,
    SPAN,
    Prompt,
    predicate_words,
    render_paper_claim,
    render_span_claim,
)
from openodke.ground.stats import GroundingStats
from openodke.ground.summary import failure_shapes, ground_summary

__all__ = [
    "CHECK",
    "CLAIM_FORMATS",
    "DEFAULT_MAX_WORKERS",
    "PAPER",
    "PROMPTS",
    "QUOTE_NOT_FOUND",
    "SCHEMA",
    "SCHEMA_KINDS",
    "SPAN",
    "WIDEN",
    "CheckedGrounder",
    "GroundingStats",
    "LLMGrounder",
    "PlannedCall",
    "Prompt",
    "failure_shapes",
    "findings",
    "ground_facts",
    "ground_graph",
    "ground_summary",
    "is_free_not_found",
    "locate",
    "predicate_words",
    "read_answer",
    "read_paper_answer",
    "read_span_answer",
    "render_paper_claim",
    "render_span_claim",
    "schema_check",
    "schema_kind",
    "schema_misfits",
    "span_check",
]
