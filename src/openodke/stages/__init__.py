"""The pipeline's stages: one module per kind, and the registry that builds them from a run config.

Loaders (``text``, ``markdown``, ``directory``, ``jsonl``, ``csv``), chunkers (``sentence``,
``passthrough``), the ``passthrough`` router, extractors (``pattern``, ``triples``, ``llm``,
``hybrid``), the ``value`` normalizer, the ``native`` resolver, the ``signature`` corroborator, the
``evidence`` scorer and inverse partners. Grounders and the gate live in ``openodke.ground`` and
``openodke.gate``; the JSONL sink in ``openodke.sinks``.
"""

from openodke.stages.base import (
    Chunker,
    Corroborator,
    ExtractionResult,
    Loader,
    Normalizer,
    Rejection,
    Resolver,
    rejected_counts,
)
from openodke.stages.chunkers import PassthroughChunker, SentenceChunker, sentence_spans
from openodke.stages.corroborate import CONFLICT, SignatureCorroborator, source_of
from openodke.stages.hybrid import HybridExtractor, merge_by_signature
from openodke.stages.inputs import default_loader, load_inputs
from openodke.stages.inverses import DERIVED, InverseDeriver, declares_inverses
from openodke.stages.llm_extract import EXTRACT_PROMPT, LLMExtractor, reply_schema
from openodke.stages.loaders import (
    DirectoryLoader,
    MarkdownLoader,
    TextLoader,
    document_id,
    unique_ids,
)
from openodke.stages.normalize import NAME_KEY, SOURCE_FORM, ValueNormalizer
from openodke.stages.passthrough import (
    PassthroughCorroborator,
    PassthroughGate,
    PassthroughGrounder,
    PassthroughNormalizer,
    PassthroughResolver,
    PassthroughRouter,
    PassthroughScorer,
)
from openodke.stages.pattern import PatternExtractor
from openodke.stages.records import CsvLoader, JsonlLoader, render_record
from openodke.stages.registry import (
    BUILT,
    NOT_BUILT,
    STAGE_KINDS,
    StageContext,
    build_stage,
    stage_class,
    stage_spec,
)
from openodke.stages.resolve import NativeResolver, entities_of
from openodke.stages.score import SCORE, EvidenceScorer
from openodke.stages.triples import TriplesExtractor

__all__ = [
    "BUILT",
    "CONFLICT",
    "DERIVED",
    "EXTRACT_PROMPT",
    "NAME_KEY",
    "NOT_BUILT",
    "SCORE",
    "SOURCE_FORM",
    "STAGE_KINDS",
    "Chunker",
    "Corroborator",
    "CsvLoader",
    "DirectoryLoader",
    "EvidenceScorer",
    "ExtractionResult",
    "HybridExtractor",
    "InverseDeriver",
    "JsonlLoader",
    "LLMExtractor",
    "Loader",
    "MarkdownLoader",
    "NativeResolver",
    "Normalizer",
    "PassthroughChunker",
    "PassthroughCorroborator",
    "PassthroughGate",
    "PassthroughGrounder",
    "PassthroughNormalizer",
    "PassthroughResolver",
    "PassthroughRouter",
    "PassthroughScorer",
    "PatternExtractor",
    "Rejection",
    "Resolver",
    "SentenceChunker",
    "SignatureCorroborator",
    "StageContext",
    "TextLoader",
    "TriplesExtractor",
    "ValueNormalizer",
    "build_stage",
    "declares_inverses",
    "default_loader",
    "document_id",
    "entities_of",
    "load_inputs",
    "merge_by_signature",
    "rejected_counts",
    "render_record",
    "reply_schema",
    "sentence_spans",
    "source_of",
    "stage_class",
    "stage_spec",
    "unique_ids",
]
