"""RunResult: what ``execute`` gives back, and how ``odke run`` prints it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openodke.run.plan import RunPlan
from openodke.stages import Rejection
from openodke.types import Fact, KnowledgeGraph

__all__ = ["RunResult"]


def _counts(mapping: Any) -> str:
    if not isinstance(mapping, dict):
        return ""
    shown = [f"{k} {v}" for k, v in mapping.items() if v]
    return ", ".join(shown)


@dataclass
class RunResult:
    """A run's graph, whether it was a dry run, the files written, warnings and stats."""

    graph: KnowledgeGraph
    dry_run: bool = False
    written: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    plan: RunPlan | None = None
    refused: list[tuple[Fact, str]] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    manifest: dict[str, Any] | None = None
    failures: dict[str, Any] | None = None
    """``{failed, facts, kinds, first}`` when grounding calls failed (the exit rule reads it)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``dry_run``, ``written``, ``warnings``, ``stats`` (``--json``)."""
        return {
            "dry_run": self.dry_run,
            "written": list(self.written),
            "warnings": list(self.warnings),
            "stats": self.stats,
            "plan": self.plan.as_dict() if self.plan is not None else None,
        }

    def render(self) -> str:
        """What ``odke run`` prints: the counts per stage, the cost block, files and warnings."""
        if self.dry_run and self.plan is not None:
            lines = [self.plan.render()]
            lines += [f"warning: {w}" for w in self.warnings]
            return "\n".join(lines)
        s = self.stats
        stages = s.get("stages", {})
        router = stages.get("router", {})
        extractor = stages.get("extractor", {})
        validation = s.get("validation", {})
        graph = s.get("graph", {})
        lines = [
            f"run: {s.get('documents', 0)} documents, {s.get('chunks', 0)} chunks "
            f"({router.get('skipped', 0)} skipped, {router.get('deferred', 0)} deferred by the router)",
            f"  extracted  {s.get('extracted', 0)} facts"
            + (f" ({extractor['model_calls']} model calls)" if extractor.get("model_calls") else "")
            + (f"; {extractor['rejected']} rejected" if extractor.get("rejected") else ""),
        ]
        reextract = s.get("reextract")
        if isinstance(reextract, dict) and "facts" in reextract:
            lines.append(
                f"  reextract  {reextract['facts']} new facts from {reextract['windows']} windows"
            )
        verdicts = _counts(validation.get("verdicts"))
        if verdicts:
            lines.append(f"  grounded   {verdicts}")
        lines.append(
            f"  written    {graph.get('facts', 0)} facts ({graph.get('edges', 0)} edges, "
            f"{graph.get('properties', 0)} properties), {graph.get('entities', 0)} entities, "
            f"{graph.get('links', 0)} links; merged {validation.get('merged', 0)}, "
            f"refused {validation.get('refused', 0)}, marked {validation.get('marked', 0)}, "
            f"derived {validation.get('derived', 0)}"
        )
        cost = s.get("cost")
        if isinstance(cost, dict):
            lines.append("cost")
            for name, row in {**cost.get("stages", {}), "total": cost.get("total", {})}.items():
                usd = row.get("cost_usd")
                price = "unpriced" if usd is None else f"${usd:.4f}"
                lines.append(
                    f"  {name:<8}  {row.get('calls', 0)} calls ({row.get('cached', 0)} cached, "
                    f"{row.get('failed', 0)} failed), {row.get('prompt_tokens', 0):,} prompt + "
                    f"{row.get('completion_tokens', 0):,} completion tokens, {price}, "
                    f"{row.get('latency_s', 0.0):.2f} s"
                    + (
                        f"; tokens of {row['estimated']} calls estimated (no usage reported)"
                        if row.get("estimated")
                        else ""
                    )
                )
        for judge in s.get("calibration", []) or []:
            lines.append(
                f"judge: {judge['line'] if judge['line'] != 'UNCALIBRATED' else judge['prompt'] + ' on ' + judge['model'] + ': UNCALIBRATED'}"
            )
        lines += [f"warning: {w}" for w in self.warnings]
        lines += [f"wrote {path}" for path in self.written]
        return "\n".join(lines)
