"""The options of every built-in stage a run config can name, as strict models.

``STAGE_OPTIONS[kind][name]`` is the model a stage's options are checked against when the config
is parsed, so every unknown option (with a did-you-mean) and every wrong value is found with its
line before anything is built. ``NOT_BUILT`` lists the names surface.md puts out of scope: naming
one is ``path:line: <name> is not built`` (exit 2). Custom classes (``package.module:Name``) are
checked against their constructor when built.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "KINDS",
    "NOT_BUILT",
    "NOT_BUILT_KEYS",
    "STAGE_OPTIONS",
    "Options",
]


class Options(BaseModel):
    """Base of every stage's options: strict about unknown keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _Loader(Options):
    tier: Literal["unverified", "community", "authoritative", "curated"] = Field(
        default="unverified", description="The source tier of every document read."
    )
    encoding: str = Field(default="utf-8", description="The files' text encoding.")
    modality: Literal["unstructured", "semi_structured", "structured"] | None = Field(
        default=None, description="Override the loader's modality."
    )


class _Records(_Loader):
    records: bool = Field(default=True, description="One Document per record (else per file).")
    columns: list[str] | str | None = Field(
        default=None, description="Fields rendered `column: value` per line."
    )


class _Csv(_Records):
    delimiter: str = Field(default=",", min_length=1, max_length=1, description="One character.")


class _Directory(_Records):
    pattern: str = Field(default="**/*", description="Glob of the files to read.")
    delimiter: str | None = Field(default=None, min_length=1, max_length=1)


class _Sentence(Options):
    max_words: int = Field(default=200, ge=1, description="Most words per chunk.")
    overlap: int = Field(default=0, ge=0, description="Sentences repeated between chunks.")


class _Pattern(Options):
    mappings: dict[str, str] | None = Field(default=None, description="Field label → predicate.")
    subject_type: str | None = None
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)


class _Llm(Options):
    types: list[str] | str | None = Field(default=None, description="Entity types to ask about.")
    snippet_limit: int | None = Field(default=25, ge=1, description="Predicates per type shown.")
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    repairs: bool = True
    retry: int = Field(default=1, ge=0, description="Re-asks of a reply that is not the shape.")
    max_workers: int = Field(default=8, ge=1)
    structured: bool = Field(default=True, description="Send the reply schema to the provider.")


class _Hybrid(Options):
    llm: _Llm | Literal[False] | None = None
    pattern: _Pattern | None = None


class _Triples(Options):
    path: str = Field(description="The triples JSONL file (relative to the config).")
    extractor: str | None = None
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)


class _Retry(Options):
    attempts: int = Field(default=4, ge=1)
    base_delay: float = Field(default=0.5, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    max_delay: float = Field(default=30.0, ge=0)
    jitter: float = Field(default=0.1, ge=0)


class _LlmGrounder(Options):
    max_workers: int = Field(default=8, ge=1)
    retry: _Retry | None = None
    context: Literal["document"] | None = None
    verdicts: Literal["binary"] | None = None
    claim_format: Literal["span", "paper"] = "span"
    locate: bool = False
    widen: bool = False


class _Value(Options):
    day_first: bool = False
    person_types: list[str] | str = Field(default_factory=lambda: ["Person"])


class _Native(Options):
    threshold: float = Field(default=0.9, ge=0.0, le=1.0)
    nudge_up: float = Field(default=0.05, ge=0.0, le=1.0)
    nudge_down: float = Field(default=0.1, ge=0.0, le=1.0)
    max_block: int = Field(default=50, ge=2)


class _Signature(Options):
    half_life_days: float | None = Field(default=365.0, gt=0)
    freshness_floor: float = Field(default=0.1, ge=0.0, le=1.0)
    intervals: bool = True


class _Evidence(Options):
    prior: float = Field(default=0.2, ge=0.0, le=1.0)
    verdict_weights: (
        dict[
            Literal["supported", "unchecked", "not_found", "contradicted"],
            float,
        ]
        | None
    ) = None


class _Verdict(Options):
    refuse_not_found: bool = False
    schema_: bool = Field(default=False, alias="schema")
    enforce: bool = False

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _Jsonl(Options):
    directory: str = Field(description="The folder the four files go to (relative to the config).")


class _Nothing(Options):
    pass


STAGE_OPTIONS: dict[str, dict[str, type[Options]]] = {
    "loader": {
        "text": _Loader,
        "markdown": _Loader,
        "directory": _Directory,
        "jsonl": _Records,
        "csv": _Csv,
    },
    "chunker": {"sentence": _Sentence, "passthrough": _Nothing},
    "router": {"passthrough": _Nothing},
    "extractor": {"pattern": _Pattern, "llm": _Llm, "hybrid": _Hybrid, "triples": _Triples},
    "grounder": {"span": _Nothing, "llm": _LlmGrounder, "passthrough": _Nothing},
    "normalizer": {"value": _Value, "passthrough": _Nothing},
    "resolver": {"native": _Native, "passthrough": _Nothing},
    "corroborator": {"signature": _Signature, "passthrough": _Nothing},
    "scorer": {"evidence": _Evidence, "passthrough": _Nothing},
    "gate": {"verdict": _Verdict, "passthrough": _Nothing},
    "sink": {"jsonl": _Jsonl},
}
"""Kind → built-in name → its options model."""

KINDS: tuple[str, ...] = (
    "chunker",
    "router",
    "extractor",
    "grounder",
    "normalizer",
    "resolver",
    "corroborator",
    "scorer",
    "gate",
    "sink",
)
"""The keys of ``stages``, in pipeline order (loaders are per input)."""

NOT_BUILT: dict[str, frozenset[str]] = {
    "loader": frozenset({"html", "pdf", "docx"}),
    "sink": frozenset(
        {"neo4j", "rdf", "networkx", "bulk", "admin_csv", "cypher", "csv", "admin-csv"}
    ),
    "extractor": frozenset(),
}
"""Kind → names out of scope for now (surface.md, Scope of the pipeline)."""

NOT_BUILT_KEYS: dict[str, str] = {
    "bootstrap": "bootstrap",
    "infer": "infer",
    "store": "store",
    "merge": "store merging",
    "retraction": "retraction",
    "retract": "retraction",
}
"""Config keys that name out-of-scope features: ``<name> is not built``."""


def option_fields(kind: str, name: str) -> list[str]:
    """The option names of a built-in stage (aliases as written in a config)."""
    model = STAGE_OPTIONS[kind][name]
    return [field.alias or key for key, field in model.model_fields.items()]


def defaults(kind: str, name: str) -> dict[str, Any]:
    """A built-in stage's option defaults, as a config would write them."""
    model = STAGE_OPTIONS[kind][name]
    return {
        (field.alias or key): field.get_default(call_default_factory=True)
        for key, field in model.model_fields.items()
        if not field.is_required()
    }
