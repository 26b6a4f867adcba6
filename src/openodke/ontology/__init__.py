"""The ontology: entity types and predicates, how they load and check, and the snippets extractors see.

``Ontology.from_dict``, ``from_json``, ``from_yaml`` and ``from_pydantic`` are strict: they raise an
OntologyLoadError listing every problem with its dotted path and a did-you-mean.

The imports run one way: ``model`` (the data) <- ``checks``, ``diff``, ``snippet``, ``load`` (functions
over it) <- ``ontology`` (the public :class:`Ontology`, gathering them as methods).
"""

from openodke.ontology.checks import CODES, Diagnostic, did_you_mean
from openodke.ontology.diff import Change, OntologyDiff
from openodke.ontology.model import LITERAL_TYPES, EntityType, Predicate, Qualifier, lookup_form
from openodke.ontology.ontology import (
    Ontology,
    load_ontology,
    ontology_from_dict,
    ontology_from_json,
    ontology_from_pydantic,
    ontology_from_yaml,
)
from openodke.ontology.snippet import (
    DEFAULT_SNIPPET_LIMIT,
    OntologySnippet,
    coverage,
    never_offered,
    offered,
)

__all__ = [
    "CODES",
    "DEFAULT_SNIPPET_LIMIT",
    "LITERAL_TYPES",
    "Change",
    "Diagnostic",
    "EntityType",
    "Ontology",
    "OntologyDiff",
    "OntologySnippet",
    "Predicate",
    "Qualifier",
    "coverage",
    "did_you_mean",
    "load_ontology",
    "lookup_form",
    "never_offered",
    "offered",
    "ontology_from_dict",
    "ontology_from_json",
    "ontology_from_pydantic",
    "ontology_from_yaml",
]
