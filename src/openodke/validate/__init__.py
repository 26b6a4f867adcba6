"""The Validator: other systems' facts grounded, normalised, resolved, corroborated, scored and gated.

``Validator(ontology, ...).validate(rows_or_facts, documents)`` gives the written graph and a
``ValidationReport`` (``schema_version`` "1.0"); ``odke validate`` is its command.
"""

from openodke.validate.inputs import MatchedFacts, match_facts
from openodke.validate.plan import GroundingPlan, plan_grounding
from openodke.validate.report import (
    VALIDATION_SCHEMA_VERSION,
    ValidationReport,
    validation_json_schema,
    write_validation_schema,
)
from openodke.validate.validator import Validator

__all__ = [
    "VALIDATION_SCHEMA_VERSION",
    "GroundingPlan",
    "MatchedFacts",
    "ValidationReport",
    "Validator",
    "match_facts",
    "plan_grounding",
    "validation_json_schema",
    "write_validation_schema",
]
