"""The pipeline's stages: one module per kind, and the registry that builds them from a run config.

Loaders (``text``, ``markdown``, ``directory``, ``jsonl``, ``csv``), chunkers (``sentence``,
``passthrough``), the ``passthrough`` router, extractors (``pattern``, ``triples``, ``llm``,
``hybrid``), the ``value`` normalizer, the ``native`` resolver, the ``signature`` corroborator, the
``evidence`` scorer and inverse partners. Grounders and the gate live in ``openodke.ground`` and
``openodke.gate``; the JSONL sink in ``openodke.sinks``.

Each name is imported with its module when first asked for (PEP 562): `odke validate` and
`odke ground` load the stages they run, not every extractor and loader (issue 20).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openodke._lazy import lazy_names

if TYPE_CHECKING:
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

_HOMES: dict[str, str] = {
    "BUILT": "openodke.stages.registry",
    "CONFLICT": "openodke.stages.corroborate",
    "DERIVED": "openodke.stages.inverses",
    "EXTRACT_PROMPT": "openodke.stages.llm_extract",
    "NAME_KEY": "openodke.stages.normalize",
    "NOT_BUILT": "openodke.stages.registry",
    "SCORE": "openodke.stages.score",
    "SOURCE_FORM": "openodke.stages.normalize",
    "STAGE_KINDS": "openodke.stages.registry",
    "Chunker": "openodke.stages.base",
    "Corroborator": "openodke.stages.base",
    "CsvLoader": "openodke.stages.records",
    "DirectoryLoader": "openodke.stages.loaders",
    "EvidenceScorer": "openodke.stages.score",
    "ExtractionResult": "openodke.stages.base",
    "HybridExtractor": "openodke.stages.hybrid",
    "InverseDeriver": "openodke.stages.inverses",
    "JsonlLoader": "openodke.stages.records",
    "LLMExtractor": "openodke.stages.llm_extract",
    "Loader": "openodke.stages.base",
    "MarkdownLoader": "openodke.stages.loaders",
    "NativeResolver": "openodke.stages.resolve",
    "Normalizer": "openodke.stages.base",
    "PassthroughChunker": "openodke.stages.chunkers",
    "PassthroughCorroborator": "openodke.stages.passthrough",
    "PassthroughGate": "openodke.stages.passthrough",
    "PassthroughGrounder": "openodke.stages.passthrough",
    "PassthroughNormalizer": "openodke.stages.passthrough",
    "PassthroughResolver": "openodke.stages.passthrough",
    "PassthroughRouter": "openodke.stages.passthrough",
    "PassthroughScorer": "openodke.stages.passthrough",
    "PatternExtractor": "openodke.stages.pattern",
    "Rejection": "openodke.stages.base",
    "Resolver": "openodke.stages.base",
    "SentenceChunker": "openodke.stages.chunkers",
    "SignatureCorroborator": "openodke.stages.corroborate",
    "StageContext": "openodke.stages.registry",
    "TextLoader": "openodke.stages.loaders",
    "TriplesExtractor": "openodke.stages.triples",
    "ValueNormalizer": "openodke.stages.normalize",
    "build_stage": "openodke.stages.registry",
    "declares_inverses": "openodke.stages.inverses",
    "default_loader": "openodke.stages.inputs",
    "document_id": "openodke.stages.loaders",
    "entities_of": "openodke.stages.resolve",
    "load_inputs": "openodke.stages.inputs",
    "merge_by_signature": "openodke.stages.hybrid",
    "rejected_counts": "openodke.stages.base",
    "render_record": "openodke.stages.records",
    "reply_schema": "openodke.stages.llm_extract",
    "sentence_spans": "openodke.stages.chunkers",
    "source_of": "openodke.stages.corroborate",
    "stage_class": "openodke.stages.registry",
    "stage_spec": "openodke.stages.registry",
    "unique_ids": "openodke.stages.loaders",
}
"""Where each public name lives."""

__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__)
