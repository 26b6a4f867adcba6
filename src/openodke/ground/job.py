"""``odke ground`` as a library call: read the facts and texts, build the grounder, ground or plan.

``read_inputs`` reads facts (triples rows through an adapter, or Fact rows), documents and an
ontology; ``build_grounder`` makes the free checks plus the configured model grounder (or the
free checks alone for ``span``), checking the model before any call; ``plan_grounding`` prices
the calls a run would make (a dry run); ``run_grounding`` grounds and summarises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke.calibration import calibration_entry, load_cards
from openodke.documents import load_documents
from openodke.errors import InputError
from openodke.ground.checked import CheckedGrounder
from openodke.ground.graph import ground_graph, rehome
from openodke.ground.llm import LLMGrounder, PlannedCall
from openodke.ground.settings import GroundSettings
from openodke.ground.summary import ground_summary
from openodke.interop import DocumentIndex, TripleRow, is_fact_rows, read_predictions, to_fact
from openodke.llm import LLMClient, ResponseStore, cache_key, client_for, load_replay
from openodke.llm.budget import estimate_usd
from openodke.llm.estimate import VERDICT_TOKENS, expected_usd
from openodke.llm.prices import price_of
from openodke.ontology import Ontology
from openodke.types import Document, Fact, KnowledgeGraph

__all__ = [
    "DryRun",
    "GroundInputs",
    "GroundResult",
    "build_grounder",
    "plan_grounding",
    "read_inputs",
    "run_grounding",
]


@dataclass
class GroundInputs:
    """What grounding reads: the facts (or rows), their documents and the ontology."""

    rows: list[Fact | TripleRow]
    documents: list[Document]
    ontology: Ontology | None = None


def read_inputs(
    facts: str | Path,
    texts: str | Path,
    *,
    adapter: str = "triples",
    ontology: str | Path | None = None,
) -> GroundInputs:
    """Read ``facts`` (Fact rows, or another system's output through ``adapter``), the documents
    in ``texts`` (a folder or Document JSONL) and the ontology; InputError (exit 2) on bad input."""
    documents = load_documents(texts)
    schema = Ontology.load(ontology) if ontology is not None else None
    rows: list[Fact | TripleRow]
    if adapter == "triples" and is_fact_rows(facts):
        from openodke.eval import load_facts  # Fact rows: a sink's facts.jsonl

        rows = list(load_facts(facts))
    else:
        rows = list(read_predictions(facts, adapter, DocumentIndex(documents)))
    if not rows:
        raise InputError("no facts to ground", path=str(facts))
    return GroundInputs(rows, documents, schema)


def _client(settings: GroundSettings) -> LLMClient:
    if settings.replay is not None:
        return load_replay(settings.replay)  # recorded answers bypass the cache
    cache: Path | bool = settings.cache if settings.cache is not None else False
    return client_for(settings.roles.ground, cache=cache, budget=settings.budget())


def build_grounder(
    settings: GroundSettings,
    ontology: Ontology | None = None,
    *,
    paper: bool = False,
    locate: bool = False,
    max_workers: int | None = None,
    progress: bool | None = None,
) -> CheckedGrounder:
    """The free checks, then the model grounder the settings name (``span``: none).

    Raises ModelConfigError (exit 2) for an unknown provider or a missing key, before any call.
    """
    if settings.use == "span":
        return CheckedGrounder(None, ontology)
    if settings.use != "llm":
        raise InputError(f"stages.grounder: {settings.use!r} is not a grounder; use span or llm")
    options = dict(settings.options)
    if paper:
        options["claim_format"] = "paper"
    if locate:
        options["locate"] = True
    if max_workers is not None:
        options["max_workers"] = max_workers
    client = _client(settings)
    inner = LLMGrounder(
        settings.roles, client=client, progress=progress, owns_client=True, **options
    )
    return CheckedGrounder(inner, ontology)


def _facts(inputs: GroundInputs) -> list[Fact]:
    index = DocumentIndex(inputs.documents)
    return [
        row if isinstance(row, Fact) else to_fact(row, index.get(row.doc), inputs.ontology)
        for row in inputs.rows
    ]


@dataclass
class DryRun:
    """The calls a run would make and what they would cost, none made."""

    facts: int
    calls: list[PlannedCall]
    model: str | None
    prompt: str | None
    cached: int = 0
    usd: float | None = 0.0
    max_usd: float | None = 0.0
    replayed: bool = False
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: counts, price and each call's fact id and claim line."""
        return {
            "facts": self.facts,
            "calls": len(self.calls),
            "cached": self.cached,
            "model": self.model,
            "prompt": self.prompt,
            "usd": self.usd,
            "max_usd": self.max_usd,
            "replayed": self.replayed,
            "requests": [
                {"fact_id": call.fact_id, "claim": _claim_line(call)} for call in self.calls
            ],
            "notes": self.notes,
        }


def _claim_line(call: PlannedCall) -> str:
    user = call.messages[-1]["content"]
    for line in user.splitlines():
        if line.startswith(("Claim:", "Triple:")):
            return line
    return user.splitlines()[0] if user else ""


def plan_grounding(grounder: CheckedGrounder, inputs: GroundInputs) -> DryRun:
    """Price the calls grounding ``inputs`` would make: ``usd`` as expected (the prompt at four
    characters a token, a verdict out: ``openodke.llm.estimate``), ``max_usd`` as the budget
    reserves (``max_tokens`` out), at the model's price; 0 for an answer already in the cache or
    a recorded one; None when the model is unpriced. Makes no call."""
    index = DocumentIndex(inputs.documents)
    facts = _facts(inputs)
    pairs = []
    for fact in facts:
        document = index.get(fact.evidence[0].doc_id) if fact.evidence else None
        if document is not None:
            pairs.append((rehome(fact, document), document))
    calls = grounder.plan(pairs)
    inner = grounder.inner
    if not isinstance(inner, LLMGrounder):
        return DryRun(len(facts), calls, None, None, notes=["the free checks alone: no model call"])
    spec = inner.spec
    replayed = not getattr(inner.client, "cacheable", True)
    run = DryRun(len(facts), calls, spec.model, inner.prompt.key, replayed=replayed)
    if replayed:
        run.notes.append("answered from recorded answers: no model is called, nothing is priced")
        return run
    store = _cache_store(inner.client)
    price = price_of(spec.model)
    total = expected = 0.0
    for call in calls:
        if store is not None and store.get(cache_key(call.messages, spec, call.schema)) is not None:
            run.cached += 1
            continue
        total += estimate_usd(call.messages, spec, call.schema)
        expected += expected_usd(call.messages, spec, call.schema, VERDICT_TOKENS) or 0.0
    priced = price is not None or run.cached == len(calls)
    run.max_usd = round(total, 6) if priced else None
    run.usd = round(expected, 6) if priced else None
    if price is None and run.cached < len(calls):
        run.notes.append(f"{spec.model} is not in the price table: its cost is unknown")
    if inner.widen:
        run.notes.append("a widened retry depends on an answer: not counted")
    return run


def _cache_store(client: Any) -> ResponseStore | None:
    seen = 0
    while client is not None and seen < 8:
        store = getattr(client, "store", None)
        if isinstance(store, ResponseStore):
            return store
        client = getattr(client, "inner", None)
        seen += 1
    return None


@dataclass
class GroundResult:
    """A grounding run: the grounded graph and its summary (``summary.json``)."""

    graph: KnowledgeGraph
    summary: dict[str, Any]


def run_grounding(
    grounder: CheckedGrounder, inputs: GroundInputs, settings: GroundSettings
) -> GroundResult:
    """Ground every fact against its document and summarise (verdicts, calls, failure shapes,
    and the calibration line of the judge)."""
    graph = ground_graph(inputs.rows, inputs.documents, grounder, ontology=inputs.ontology)
    stats = graph.stats["stages"]["grounder"]
    by_id = {doc.id: doc for doc in inputs.documents}
    summary = ground_summary(list(graph.facts), by_id, stats)
    inner = grounder.inner
    cards = load_cards(settings.calibration)
    judges = []
    if isinstance(inner, LLMGrounder):
        judges = [calibration_entry("ground", inner.spec.model, inner.prompt.key, cards)]
    summary = {
        **summary,
        "model": inner.spec.model if isinstance(inner, LLMGrounder) else None,
        "prompts": list(grounder.prompts),
        "claim_formats": grounder.claim_formats,
        "calibration": judges,
        "first_error": stats.get("first_error"),
    }
    return GroundResult(graph, summary)
