"""A bench set's official score for our facts or a competitor's published outputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from openodke.bench import text2kgbench
from openodke.bench.load import BenchSet
from openodke.bench.official_redocred import RedocredOfficial, TrainFact, score_redocred_official
from openodke.bench.official_text2kg import Text2KGOfficial, score_text2kg_official
from openodke.bench.submissions import facts_to_responses, to_docred_submission
from openodke.errors import InputError
from openodke.types import Fact

__all__ = ["score_competitor_official", "score_official"]


def score_official(
    bench: BenchSet, facts: Sequence[Fact], *, train_facts: Iterable[TrainFact] | None = None
) -> Text2KGOfficial | RedocredOfficial:
    """Score our facts by the benchmark's own rules (surface.md, Official mode).

    Text2KGBench: the facts become response rows (one per document) and are scored macro per
    sentence, with the verified-subset averages. Re-DocRED: the facts are aligned to
    ``vertexSet`` entries and scored micro; ``unaligned`` and a note say how many could not be.
    """
    if bench.dataset == "text2kgbench":
        return score_text2kg_official(
            facts_to_responses(bench, facts),
            bench.gold_rows,
            bench.info["ontology"],
            verified_ids=bench.verified_ids,
        )
    rows, failed = to_docred_submission(bench, facts)
    result = score_redocred_official(rows, bench.gold_rows, train_facts=train_facts)
    note = (
        f"{failed} of {len(facts)} predictions could not be aligned to a vertexSet entity by any mention "
        "name (or named no Re-DocRED relation) and are not in the submission"
    )
    return result.model_copy(update={"unaligned": failed, "notes": [*result.notes, note]})


def score_competitor_official(bench: BenchSet, name: str) -> Text2KGOfficial:
    """Replay a competitor's published responses (``competitors/<name>/responses.jsonl``) exactly."""
    path = bench.competitors.get(name)
    if path is None or not (path / "responses.jsonl").is_file():
        raise InputError(
            f"no published responses for competitor {name!r}", path=str(bench.path / "competitors")
        )
    rows = text2kgbench.read_responses(path / "responses.jsonl")
    return score_text2kg_official(
        rows, bench.gold_rows, bench.info["ontology"], verified_ids=bench.verified_ids
    )
