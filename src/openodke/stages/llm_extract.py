"""The ``llm`` extractor: a model reads each chunk against the ontology's snippets.

One call per chunk (prompt ``extract.facts@1``). The model is shown, per entity type asked
(``types``, default every type), that type's snippet (``Ontology.snippet``: its predicates ranked by
importance, cut at ``snippet_limit``, 25), then the chunk, and answers

    {"entities": [{"type", "name", "facts": [{"predicate", "value", "quote", "start"?, "qualifiers"?}]}]}

With ``structured`` (the default) that shape goes to the provider as a JSON schema; without, it is
described in the prompt and the first JSON object in the reply is read. Each answered fact is kept
only when its quote is in the chunk (``start`` is an offset into the chunk; with ``repairs`` a quote
differing only in case and whitespace is found too, and the span cites the text as it is); else it
is rejected with a reason (``quote not in chunk``, ``no quote``, ``unknown type``, ``unknown
predicate``, ``no value``, ``malformed``) and listed in ``rejections``. A reply that is not the
shape is asked again up to ``retry`` times (``ModelSpec.repeat`` bumped, so the cache keeps both);
a call that fails after the client's retries marks the document failed and never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openodke.errors import InputError
from openodke.llm import LLMClient, LLMResponse, ModelRoles, ModelSpec, map_calls
from openodke.ontology import Ontology
from openodke.ontology.snippet import OntologySnippet, coverage
from openodke.stages.base import ExtractionResult, Rejection, rejected_counts
from openodke.stages.chunkers import PassthroughChunker
from openodke.stages.facts import cited_evidence, make_fact
from openodke.types import Chunk, Document, Fact

__all__ = ["EXTRACT_PROMPT", "LLMExtractor", "reply_schema"]

EXTRACT_PROMPT = "extract.facts@1"
"""The extraction prompt's id; any change to its text bumps the version."""

_SYSTEM = """You extract facts from a text for a knowledge graph.
Use only the entity types and properties listed below. For each fact give:
- predicate: one of the listed property names for the entity's type;
- value: for a property whose range is an entity type, the other entity's name as written;
  otherwise the value as written in the text;
- quote: the exact words of the text that state the fact, copied character for character;
- start (optional): the character offset where the quote begins in the text.
State only what the text says. If the text states nothing listed, answer {"entities": []}."""

_SHAPE = """Answer with one JSON object and nothing else:
{"entities": [{"type": "<entity type>", "name": "<entity name>", "facts": [{"predicate": "...", "value": "...", "quote": "...", "start": 0}]}]}"""

_SPACE = re.compile(r"\s+")


def reply_schema(snippets: Sequence[OntologySnippet]) -> dict[str, Any]:
    """The JSON schema of a reply about these types: their names and offered predicates as enums."""
    predicates = sorted({name for snippet in snippets for name in snippet.names})
    fact = {
        "type": "object",
        "properties": {
            "predicate": {"type": "string", "enum": predicates},
            "value": {"type": ["string", "number", "boolean"]},
            "quote": {"type": "string"},
            "start": {"type": "integer", "minimum": 0},
            "qualifiers": {"type": "object"},
        },
        "required": ["predicate", "value", "quote"],
        "additionalProperties": False,
    }
    entity = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": [s.type for s in snippets]},
            "name": {"type": "string"},
            "facts": {"type": "array", "items": fact},
        },
        "required": ["type", "name", "facts"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"entities": {"type": "array", "items": entity}},
        "required": ["entities"],
        "additionalProperties": False,
    }


@dataclass
class _ChunkResult:
    facts: list[Fact] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    error: str | None = None
    responses: list[LLMResponse] = field(default_factory=list)
    repaired: int = 0


def _find_quote(text: str, quote: str, start: Any, repairs: bool) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text``: at ``start`` if it is there, else its first occurrence."""
    given = isinstance(start, int) and not isinstance(start, bool) and start >= 0
    if given and text[start : start + len(quote)] == quote:
        return start, start + len(quote)
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    if not repairs:
        return None
    words = quote.split()
    if not words:
        return None
    loose = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    found = loose.search(text)
    return (found.start(), found.end()) if found else None


class LLMExtractor:
    """Facts a model reads from each chunk (``llm``); see the module docstring.

    Options: ``types``, ``snippet_limit`` (25; None offers every predicate), ``confidence`` (0.5),
    ``repairs`` (True), ``retry`` (1 re-ask of a reply that is not the shape), ``max_workers``
    (8), ``structured`` (True). The model is ``roles.extract``; ``client`` any LLMClient.
    """

    name = "llm"

    def __init__(
        self,
        ontology: Ontology,
        *,
        client: LLMClient,
        roles: ModelRoles | None = None,
        types: Sequence[str] | None = None,
        snippet_limit: int | None = 25,
        confidence: float = 0.5,
        repairs: bool = True,
        retry: int = 1,
        max_workers: int = 8,
        structured: bool = True,
        progress: bool | None = None,
    ) -> None:
        if retry < 0:
            raise InputError(f"retry: expected 0 or more re-asks, got {retry}")
        if max_workers < 1:
            raise InputError(f"max_workers: expected 1 or more, got {max_workers}")
        self.ontology = ontology
        self.client = client
        self.spec: ModelSpec = (roles or ModelRoles()).extract
        self.types = None if types is None else [types] if isinstance(types, str) else list(types)
        self.snippet_limit = snippet_limit
        asked = self.types if self.types is not None else list(ontology.types)
        self.snippets = [ontology.snippet(name, limit=snippet_limit) for name in asked]
        self.snippets = [s for s in self.snippets if s.predicates]
        self.confidence = confidence
        self.repairs = repairs
        self.retry = retry
        self.max_workers = max_workers
        self.structured = structured
        self.progress = progress
        self.schema = reply_schema(self.snippets)
        self.stats: dict[str, Any] = {}

    def __repr__(self) -> str:
        return (
            f"LLMExtractor(model={self.spec.model!r}, types={len(self.snippets)}, "
            f"snippet_limit={self.snippet_limit})"
        )

    @property
    def prompts(self) -> list[str]:
        """The prompt ids this extractor sends."""
        return [EXTRACT_PROMPT]

    def coverage(self) -> dict[str, Any]:
        """``stats.coverage``: what each type was offered and what it never was."""
        return coverage(self.ontology, types=self.types, snippet_limit=self.snippet_limit)

    def messages(self, chunk: Chunk) -> list[dict[str, Any]]:
        """The request for one chunk."""
        schemas = "\n\n".join(snippet.render() for snippet in self.snippets)
        system = _SYSTEM if self.structured else f"{_SYSTEM}\n\n{_SHAPE}"
        user = f"{schemas}\n\nText:\n{chunk.text}"
        return [
            {"role": "system", "content": system, "prompt": EXTRACT_PROMPT},
            {"role": "user", "content": user, "prompt": EXTRACT_PROMPT},
        ]

    def _ask(self, chunk: Chunk) -> tuple[Any, list[LLMResponse], str | None]:
        messages = self.messages(chunk)
        schema = self.schema if self.structured else None
        responses: list[LLMResponse] = []
        for attempt in range(self.retry + 1):
            spec = self.spec
            if attempt:
                spec = spec.model_copy(update={"repeat": spec.repeat + attempt})
            response = self.client.complete(messages, spec, schema)
            responses.append(response)
            if response.error is not None:
                return None, responses, response.error
            parsed = response.parsed
            if isinstance(parsed, Mapping) and isinstance(parsed.get("entities"), list):
                return parsed, responses, None
        return None, responses, 'the reply is not {"entities": [...]} JSON'

    def _run(self, item: tuple[Document, Chunk]) -> _ChunkResult:
        document, chunk = item
        parsed, responses, error = self._ask(chunk)
        result = _ChunkResult(responses=responses, error=error)
        if parsed is not None:
            self._read(document, chunk, parsed, result)
        return result

    def _read(self, document: Document, chunk: Chunk, parsed: Any, out: _ChunkResult) -> None:
        def reject(reason: str, **fields: Any) -> None:
            value = fields.get("value")
            if value is not None and not isinstance(value, str | int | float | bool):
                fields["value"] = json.dumps(value, ensure_ascii=False)
            for key in ("subject", "predicate", "quote"):
                if fields.get(key) is not None and not isinstance(fields[key], str):
                    fields[key] = str(fields[key])
            out.rejections.append(
                Rejection(document=document.id, chunk=chunk.index, reason=reason, **fields)
            )

        asked = {s.type for s in self.snippets}
        for item in parsed["entities"]:
            if not isinstance(item, Mapping) or not isinstance(item.get("facts"), list):
                reject("malformed")
                continue
            name = item.get("name")
            found = self.ontology.entity_type(str(item.get("type", "")))
            for raw in item["facts"]:
                if not isinstance(raw, Mapping):
                    reject("malformed", subject=name)
                    continue
                shown = {
                    "subject": name,
                    "predicate": raw.get("predicate"),
                    "value": raw.get("value"),
                    "quote": raw.get("quote"),
                }
                if not isinstance(name, str) or not name.strip():
                    reject("malformed", **shown)
                    continue
                if found is None or found.name not in asked:
                    reject("unknown type", **shown)
                    continue
                pred = self.ontology.predicate(str(raw.get("predicate", "")))
                if pred is None:
                    reject("unknown predicate", **shown)
                    continue
                value = raw.get("value")
                if value is None or (isinstance(value, str) and not value.strip()):
                    reject("no value", **shown)
                    continue
                if not isinstance(value, str | int | float | bool):
                    reject("malformed", **shown)
                    continue
                quote = raw.get("quote")
                if not isinstance(quote, str) or not quote.strip():
                    reject("no quote", **shown)
                    continue
                place = _find_quote(chunk.text, quote, raw.get("start"), self.repairs)
                if place is None:
                    reject("quote not in chunk", **shown)
                    continue
                if chunk.text[place[0] : place[1]] != quote:
                    out.repaired += 1
                qualifiers = raw.get("qualifiers")
                out.facts.append(
                    make_fact(
                        subject_type=found.name,
                        subject_name=name,
                        predicate=pred,
                        value=value,
                        evidence=cited_evidence(
                            document, chunk.start + place[0], chunk.start + place[1]
                        ),
                        ontology=self.ontology,
                        extractor=self.name,
                        confidence=self.confidence,
                        qualifiers=qualifiers if isinstance(qualifiers, Mapping) else None,
                    )
                )

    def extract(self, document: Document) -> list[Fact]:
        """The facts the model reads in the whole document (one chunk)."""
        chunks = PassthroughChunker().chunk(document)
        return self.extract_batch([(document, chunks)]).facts

    def extract_batch(self, items: Sequence[tuple[Document, Sequence[Chunk]]]) -> ExtractionResult:
        """Every chunk asked concurrently (``max_workers``); results in input order."""
        work = [(document, chunk) for document, chunks in items for chunk in chunks]
        results = map_calls(
            self._run,
            work,
            max_workers=self.max_workers,
            progress=self.progress,
            description="extracting",
        )
        out = ExtractionResult(coverage=self.coverage())
        responses = []
        for (document, chunk), result in zip(work, results, strict=True):
            out.facts.extend(result.facts)
            out.rejections.extend(result.rejections)
            responses.extend(result.responses)
            if result.error is not None:
                out.failed.setdefault(document.id, f"chunk {chunk.index}: {result.error}")
        self.stats = {
            "documents": len(items),
            "chunks": len(work),
            "calls": len(responses),
            "failed_calls": sum(1 for r in responses if r.error is not None),
            "failed_documents": len(out.failed),
            "retried": len(responses) - len(work),
            "repaired": sum(r.repaired for r in results),
            "facts": len(out.facts),
            **rejected_counts(out.rejections),
        }
        out.stats = dict(self.stats)
        return out
