"""The Validator: other systems' facts through grounding, normalising, resolving, corroborating,
scoring and the gate, with inverse partners added.

``Validator(ontology, ...).validate(rows_or_facts, documents)`` runs, in order:

1. **match**: each triples row or Fact paired with the document it names (``inputs``); the rest
   are ``unmatched`` and dropped;
2. **ground**: the grounder stamps a verdict on each fact (default: the free checks, then
   ``LLMGrounder`` on the ``ground`` role);
3. **normalize**, **resolve** (links proposed, never merged), **corroborate** (merged by
   signature; conflicts flagged), **score**;
4. **gate**: refused facts leave (``refused``), marked ones stay with ``odke.review``;
5. **inverses**: partners of the written facts, where the ontology declares them (derived after
   the gate, so a refused fact has no partner and a partner is never refused apart from it);
6. **sinks**: the graph written (not on a dry run).

A stage passed as a pass-through (``openodke.stages.Passthrough*``) is off. On a dry run nothing
is grounded: the calls grounding would make are planned, priced and put in
``graph.stats["dry_run"]``; no sink is written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from openodke.calibration import CalibrationCard, find_card, load_cards
from openodke.gate import VerdictGate, reason_kind
from openodke.interop.match import DocumentIndex
from openodke.llm import LLMClient, ModelRoles
from openodke.llm.batch.use import batch_use
from openodke.ontology import Ontology
from openodke.ontology.snippet import coverage as snippet_coverage
from openodke.protocols import as_validation_verdict, bind_stage, call_stage
from openodke.stages import (
    EvidenceScorer,
    InverseDeriver,
    NativeResolver,
    PassthroughGrounder,
    SignatureCorroborator,
    ValueNormalizer,
    declares_inverses,
    entities_of,
)
from openodke.stages.grounding import ModelGrounder
from openodke.types import Document, EntityLink, Fact, GroundingVerdict, KnowledgeGraph, LinkKind
from openodke.validate.inputs import match_facts
from openodke.validate.plan import plan_grounding
from openodke.validate.report import ValidationReport

__all__ = ["Validator"]


class Validator:
    """Validates facts against their documents and the ontology (see the module docstring).

    Every stage is optional: None takes the default (LLMGrounder behind the free checks,
    ValueNormalizer, NativeResolver, SignatureCorroborator, EvidenceScorer,
    ``VerdictGate(schema=True)`` with the grounder's calibration card), a pass-through turns it
    off. ``client`` answers the model calls (None: the live client for ``roles``, checked before
    any call); ``inverses`` None adds partners when the ontology declares any; ``coverage`` True
    records ``{snippet_limit, offered, never_offered}`` for the whole ontology (a Validator offers
    every predicate), a mapping records that one (an extractor's), False none; ``cards`` are the
    calibration cards the default gate looks its judge up in (None: those shipped).
    """

    def __init__(
        self,
        ontology: Ontology,
        *,
        client: LLMClient | None = None,
        roles: ModelRoles | None = None,
        grounder: Any = None,
        normalizer: Any = None,
        resolver: Any = None,
        corroborator: Any = None,
        scorer: Any = None,
        gate: Any = None,
        inverses: bool | None = None,
        coverage: bool | Mapping[str, Any] = True,
        sinks: Sequence[Any] = (),
        cards: Sequence[CalibrationCard] | None = None,
    ) -> None:
        self.ontology = ontology
        self.roles = roles or ModelRoles()
        if grounder is None:
            grounder = ModelGrounder(ontology, client=client, roles=self.roles)
        self.grounder = grounder
        self.normalizer = normalizer if normalizer is not None else ValueNormalizer(ontology)
        self.resolver = resolver if resolver is not None else NativeResolver(ontology)
        self.corroborator = (
            corroborator if corroborator is not None else SignatureCorroborator(ontology)
        )
        self.scorer = scorer if scorer is not None else EvidenceScorer()
        if gate is None:
            gate = VerdictGate(schema=True, card=self._card(cards))
        self.gate = gate
        self.inverses = declares_inverses(ontology) if inverses is None else inverses
        self.coverage = coverage
        self.sinks = list(sinks)
        self.refused: list[tuple[Fact, str]] = []
        """The last run's refused facts with the gate's reasons (``refused.jsonl``)."""

    def __repr__(self) -> str:
        return f"Validator({self.ontology.name!r}, grounder={self.grounder!r}, gate={self.gate!r})"

    def judge_card(self, cards: Sequence[CalibrationCard] | None) -> CalibrationCard | None:
        """The card of the grounder's judge among ``cards`` (None: those shipped), or None."""
        return self._card(cards)

    def _card(self, cards: Sequence[CalibrationCard] | None) -> CalibrationCard | None:
        judge = _judge(self.grounder)
        if judge is None:
            return None
        known = list(cards) if cards is not None else load_cards()
        return find_card(known, *judge)

    # -- the run --------------------------------------------------------------------------

    def validate(
        self,
        rows_or_facts: Iterable[Any],
        documents: Iterable[Document],
        dry_run: bool = False,
    ) -> tuple[KnowledgeGraph, ValidationReport]:
        """The validated graph and what happened to the facts (see the module docstring)."""
        documents = list(documents)
        matched = match_facts(rows_or_facts, DocumentIndex(documents), self.ontology)
        facts_in = [fact for fact, _ in matched.pairs]
        notes = list(matched.notes)
        if dry_run:
            return self._dry_run(matched.pairs, documents, matched.unmatched, notes)

        grounded = self._ground(matched.pairs)
        verdicts = Counter(f.verdict.value for f in grounded)
        normalize = bind_stage(self.normalizer, "normalize")
        normalized = list(call_stage(normalize, grounded, where="the facts"))
        resolve = bind_stage(self.resolver, "resolve")
        links: list[EntityLink] = list(call_stage(resolve, normalized, where="the facts"))
        corroborate = bind_stage(self.corroborator, "corroborate")
        merged = list(call_stage(corroborate, normalized, where="the facts"))
        score = bind_stage(self.scorer, "score")
        scored = [call_stage(score, fact, where=f"fact {fact.id}") for fact in merged]
        written, refused = self._gate(scored)
        derived = InverseDeriver(self.ontology).derive(written) if self.inverses else []
        facts = written + derived

        report = self._report(
            facts_in=len(facts_in),
            unmatched=matched.unmatched,
            merged=len(normalized) - len(merged),
            refused=refused,
            written=written,
            derived=len(derived),
            links=links,
            verdicts=verdicts,
            notes=notes,
        )
        graph = KnowledgeGraph(
            entities=tuple(entities_of(facts)),
            facts=tuple(facts),
            links=tuple(links),
            ontology_name=self.ontology.name,
            stats=self._stats(documents, report, refused, facts, links),
        )
        for sink in self.sinks:
            call_stage(bind_stage(sink, "write"), graph, where="the graph")
        self.refused = refused
        return graph, report

    def _ground(self, pairs: list[tuple[Fact, Document]]) -> list[Fact]:
        if isinstance(self.grounder, PassthroughGrounder) or not pairs:
            return [fact for fact, _ in pairs]
        batch = getattr(self.grounder, "ground_all", None)
        if callable(batch):
            return list(call_stage(batch, pairs, where="the facts"))
        ground = bind_stage(self.grounder, "ground")
        return [call_stage(ground, f, d, where=f"fact {f.id}") for f, d in pairs]

    def _gate(self, facts: list[Fact]) -> tuple[list[Fact], list[tuple[Fact, str]]]:
        apply = getattr(self.gate, "apply", None)
        if callable(apply):
            result = call_stage(apply, facts, where="the facts")
            return list(result.written), list(result.refused)
        decide = bind_stage(self.gate, "decide")
        written: list[Fact] = []
        refused: list[tuple[Fact, str]] = []
        for fact in facts:
            verdict = as_validation_verdict(call_stage(decide, fact, where=f"fact {fact.id}"))
            if verdict.action == "refuse":
                refused.append((fact, verdict.reason or "refused"))
            else:
                written.append(fact)
        return written, refused

    def _dry_run(
        self,
        pairs: list[tuple[Fact, Document]],
        documents: list[Document],
        unmatched: int,
        notes: list[str],
    ) -> tuple[KnowledgeGraph, ValidationReport]:
        plan = plan_grounding(self.grounder, pairs)
        notes = [*notes, f"dry run: {plan.render()}; nothing was grounded or written"]
        facts = [fact for fact, _ in pairs]
        report = self._report(
            facts_in=len(facts),
            unmatched=unmatched,
            merged=0,
            refused=[],
            written=facts,
            derived=0,
            links=[],
            verdicts=Counter(f.verdict.value for f in facts),
            notes=notes,
            dry_run=True,
        )
        stats = self._stats(documents, report, [], facts, [])
        stats["dry_run"] = plan.as_dict()
        graph = KnowledgeGraph(
            entities=tuple(entities_of(facts)),
            facts=tuple(facts),
            ontology_name=self.ontology.name,
            stats=stats,
        )
        self.refused = []
        return graph, report

    # -- counting -------------------------------------------------------------------------

    def _coverage(self) -> dict[str, Any] | None:
        if self.coverage is False:
            return None
        if isinstance(self.coverage, Mapping):
            return dict(self.coverage)
        return snippet_coverage(self.ontology, snippet_limit=None)

    def _grounder_stats(self) -> dict[str, Any]:
        stats = getattr(self.grounder, "stats", None)
        return dict(stats) if isinstance(stats, Mapping) else {}

    def _report(
        self,
        *,
        facts_in: int,
        unmatched: int,
        merged: int,
        refused: list[tuple[Fact, str]],
        written: list[Fact],
        derived: int,
        links: list[EntityLink],
        verdicts: Counter[str],
        notes: list[str],
        dry_run: bool = False,
    ) -> ValidationReport:
        stats = {} if dry_run else self._grounder_stats()
        by_kind = Counter(link.kind.value for link in links)
        linked = {
            key
            for link in links
            if link.kind is LinkKind.same_as
            for key in (link.source_key, link.target_key)
        }
        return ValidationReport(
            facts_in=facts_in,
            unmatched=unmatched,
            refused=len(refused),
            refused_by=dict(Counter(reason_kind(reason) for _, reason in refused)),
            marked=sum(1 for f in written if "odke.review" in f.qualifiers),
            merged=merged,
            linked=len(linked),
            links={kind.value: by_kind[kind.value] for kind in LinkKind},
            derived=derived,
            facts_out=facts_in + derived - len(refused) - merged,
            verdicts={v.value: verdicts[v.value] for v in GroundingVerdict},
            checked=facts_in - verdicts[GroundingVerdict.unchecked.value],
            calls=int(stats.get("calls", 0)),
            failed=int(stats.get("failed", 0)),
            failures=dict(stats.get("failures") or {}),
            tokens=int(stats.get("tokens", 0)),
            cost_usd=stats.get("cost_usd", 0.0) if stats else 0.0,
            batch=batch_use(),
            prompts=list(getattr(self.grounder, "prompts", ()) or ()),
            coverage=self._coverage(),
            notes=notes,
        )

    def _stats(
        self,
        documents: list[Document],
        report: ValidationReport,
        refused: list[tuple[Fact, str]],
        facts: list[Fact],
        links: list[EntityLink],
    ) -> dict[str, Any]:
        stages: dict[str, Any] = {"grounder": self._grounder_stats()}
        for name, stage in (
            ("normalizer", self.normalizer),
            ("resolver", self.resolver),
            ("corroborator", self.corroborator),
            ("validator", self.gate),
        ):
            counts = getattr(stage, "stats", None)
            stages[name] = dict(counts) if isinstance(counts, Mapping) else {}
        stages["inverses"] = {"derived": report.derived}
        validation = report.model_dump(mode="json")
        return {
            "documents": len(documents),
            "refused": report.refused,
            "marked": report.marked,
            "graph": {
                "entities": len(entities_of(facts)),
                "facts": len(facts),
                "edges": sum(1 for f in facts if f.is_edge),
                "properties": sum(1 for f in facts if not f.is_edge),
                "links": len(links),
            },
            "stages": stages,
            "coverage": validation["coverage"],
            "prompts": validation["prompts"],
            "claim_formats": dict(getattr(self.grounder, "claim_formats", {}) or {}),
            "judges": list(getattr(self.grounder, "judges", []) or []),
            "validation": validation,
        }


def _judge(grounder: Any) -> tuple[str, str] | None:
    """``(model, prompt)`` of the model grounder inside ``grounder``, before it has asked."""
    inner = getattr(grounder, "inner", grounder)
    spec, prompt = getattr(inner, "spec", None), getattr(inner, "prompt", None)
    model, key = getattr(spec, "model", None), getattr(prompt, "key", None)
    if isinstance(model, str) and isinstance(key, str):
        return model, key
    return None
