"""What should change: each diagnosis bucket mapped to its fix, knob and expected recall gain.

DECISIONS #38: each bucket maps to one fix; fixes rank by expected recall gain and are never summed
(gains overlap). Per fix (evaluate-a-pipeline.md, "What should change?"):

- ``expected`` is exact where the fix replays (``audit-refusals``: accept every refusal and rescore;
  ``inverses``: the inverse step replayed; both give the precision change too), else assumes the
  bucket's misses are found as often as the facts the fix does not touch: misses × a recall rate /
  gold, the rate named in ``basis``;
- ``align-identity`` is exact: matching pairs each near miss once types, keys, predicates or
  document ids are written as the gold's (:mod:`~openodke.eval.engine.near`): misses / gold;
- ``normalise-names`` expects 0 until a judge confirms (``--lenient``), then confirmed / gold;
- ``ceiling`` is every miss found: misses / gold;
- ``reference`` is misses × another system's rate for the same fix / gold. The rate is read from
  the reference report's fix of the same id, from its basis's ``(…: hits of n)``; exact fixes have
  no reference.

Gains are fractions of recall (0.025 is +2.5 points). Fixes rank by expected gain, those with misses
first and an unknown gain after a known one; ties by ceiling, then the table's order. A fix whose
buckets the run cannot measure is left out; one with no misses is kept (its rate is a reference for
other runs) and not printed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.eval.diagnosis.fix_model import Fix, FixRecall
from openodke.eval.diagnosis.models import Diagnosis, Rate, Replay

__all__ = ["FIXES", "Fix", "FixRecall", "FixSpec", "fixes", "reference_rates", "render_fixes"]


class FixSpec(BaseModel):
    """One row of the spec's table: a fix, its buckets, knob and how its gain is reckoned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    buckets: tuple[str, ...]
    knob: str = Field(description="The knob or command, as printed.")
    knobs: tuple[str, ...] = Field(description="Run-config paths the fix changes (track record).")
    action: str
    gain: str = Field(
        description="offered, row, same_sentence, short_documents, audit, inverses, names or near."
    )


FIXES: tuple[FixSpec, ...] = (
    FixSpec(
        id="offer-relations",
        buckets=("never_offered",),
        knob="stages.extractor.snippet_limit",
        knobs=("stages.extractor.snippet_limit", "stages.extractor.types"),
        action="Offer every relation the subject's type can take: raise the snippet limit, "
        "or name the types.",
        gain="offered",
    ),
    FixSpec(
        id="audit-refusals",
        buckets=("refused",),
        knob="odke eval refusals; stages.gate.refuse_not_found",
        knobs=("stages.gate",),
        action="Audit what the gate refused: sample the refusals with odke eval refusals, and "
        "stop refusing what it refuses wrongly.",
        gain="audit",
    ),
    FixSpec(
        id="relation-descriptions",
        buckets=("wrong_relation",),
        knob="each predicate's description and examples",
        knobs=("ontology",),
        action="Describe each relation and give examples, so the extractor picks the right one.",
        gain="row",
    ),
    FixSpec(
        id="inverses",
        buckets=("inverse",),
        knob="inverse_of; symmetric; inverses: true",
        knobs=("inverses", "ontology"),
        action="Declare inverse_of and symmetric and run the inverse step, so a fact written "
        "the other way round counts.",
        gain="inverses",
    ),
    FixSpec(
        id="normalise-names",
        buckets=("surface_form",),
        knob="stages.normalizer; Entity.aliases",
        knobs=("stages.normalizer",),
        action="Normalise names and record aliases, so the same thing in other words matches.",
        gain="names",
    ),
    FixSpec(
        id="check-details",
        buckets=("scored_apart",),
        knob="the ontology's types and qualifiers",
        knobs=("ontology",),
        action="Check the types, polarity and qualifiers the extractor writes: the triple was "
        "found but scored apart.",
        gain="row",
    ),
    FixSpec(
        id="wider-context",
        buckets=("cross_sentence",),
        knob="stages.chunker",
        knobs=("stages.chunker",),
        action="Give the extractor more than one sentence at a time: the evidence spans sentences.",
        gain="same_sentence",
    ),
    FixSpec(
        id="smaller-chunks",
        buckets=("saturation",),
        knob="stages.chunker; models.extract.max_tokens",
        knobs=("stages.chunker", "models.extract.max_tokens"),
        action="Cut long documents into smaller chunks, or raise max_tokens: output stops "
        "growing with length.",
        gain="short_documents",
    ),
    FixSpec(
        id="every-relation",
        buckets=("linked_other",),
        knob="the extraction prompt; each predicate's description",
        knobs=("prompts", "ontology"),
        action="Ask for every relation a pair holds, not only the first one found.",
        gain="row",
    ),
    FixSpec(
        id="reextract",
        buckets=("entity_missing", "not_linked"),
        knob="reextract",
        knobs=("reextract",),
        action="Re-extract narrower windows around the misses (reextract: true).",
        gain="row",
    ),
    FixSpec(
        id="align-identity",
        buckets=("other_type_or_key",),
        knob="--type-map FILE, --match names",
        # Run-config paths only: --type-map and --match are the scorer's options, not the run's.
        knobs=("ontology",),
        action="Compare entities as the gold means them: map the written types to the gold's "
        "(--type-map FILE, or the ontology's type aliases), write keys, predicates and document "
        "ids as the gold does (the lines printed first say which).",
        gain="near",
    ),
)
"""The spec's table, in its order, then align-identity (issue 9; last, so a run without near
misses ranks the others as before)."""

_PHRASES = {
    "offered": "its recall on the relations it was offered",
    "row": "the row's recall",
    "same_sentence": "its recall on facts within one sentence",
    "short_documents": "its recall on documents up to the median length",
}
# Counts of at most 30 characters: a longer "number" is not one this code wrote.
_RATE_IN_BASIS = re.compile(r"\(([^()]*): ([\d,]{1,30}) of ([\d,]{1,30})\)")


def _misses(n: int) -> str:
    return f"{n:,} miss" if n == 1 else f"{n:,} misses"


def _pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.1f}%"


def _precision_words(replay: Replay) -> str:
    before, after = replay.precision_before, replay.precision_after
    b = "—" if before is None else f"{before:.3f}"
    a = "—" if after is None else f"{after:.3f}"
    return f"precision {b} → {a}"


def _delta(after: float | None, before: float | None) -> float | None:
    return None if after is None or before is None else after - before


def _read_reference(path: Path) -> Any:
    """Another system's report, read as every report is (:func:`~openodke.eval.report.io.
    read_report`: within bounds, a 1.x schema_version, every field checked against the schema):
    a file that fails ``check_report`` is refused, never half used."""
    from openodke.eval.report.io import read_report

    try:
        report, _ = read_report(path)
    except InputError as error:
        if error.path is not None:
            raise
        lines = [line.removeprefix(f"{path}: ") for line in error.message.splitlines()]
        problems = "; ".join(lines[:3]) + (f" and {len(lines) - 3} more" if len(lines) > 3 else "")
        raise InputError(
            f"not a valid eval report (--reference): {problems}", path=str(path)
        ) from None
    return report.model_dump(mode="json")


def reference_rates(reference: Any) -> dict[str, float]:
    """Fix id -> the rate another system's report used for it (from each fix's basis).

    ``reference`` is a path to an EvalReport (or any JSON with ``fixes``), the parsed mapping,
    or a list of fixes (Fix or their JSON). Exact and unconfirmed fixes carry no rate.
    """
    where: str | None = None
    if isinstance(reference, str | Path):
        where = str(reference)
        reference = _read_reference(Path(reference))
    if isinstance(reference, Mapping):
        reference = reference.get("fixes")
        if reference is None:
            raise InputError("the reference report has no fixes", path=where)
    if not isinstance(reference, list | tuple):
        raise InputError("fixes: expected a list of fixes", path=where)
    rates: dict[str, float] = {}
    for number, fix in enumerate(reference):
        data = fix.model_dump() if isinstance(fix, BaseModel) else fix
        recall = data.get("recall") if isinstance(data, Mapping) else None
        if not isinstance(data, Mapping) or not isinstance(recall or {}, Mapping):
            raise InputError(f"fixes.{number}: expected a fix object", path=where)
        recall = recall or {}
        if recall.get("exact"):
            continue
        found = _RATE_IN_BASIS.search(str(recall.get("basis", "")))
        if found:
            hits, of = (int(found.group(n).replace(",", "")) for n in (2, 3))
            if of:
                rates[str(data.get("id"))] = hits / of
    return rates


def _estimate(
    spec: FixSpec, diagnosis: Diagnosis, misses: int
) -> tuple[float | None, bool, str, float | None, float | None]:
    """(expected, exact, basis, precision change, rate) for one fix."""
    gold = diagnosis.gold
    if spec.gain in _PHRASES:
        rate: Rate | None = diagnosis.rates.get(spec.gain)
        value = rate.value if rate is not None else None
        hits, of = (rate.hits, rate.of) if rate is not None else (0, 0)
        basis = (
            f"{_misses(misses)} × {_pct(value)} ({_PHRASES[spec.gain]}: {hits:,} of {of:,}) "
            f"/ {gold:,} gold"
        )
        expected = misses * value / gold if value is not None and gold else None
        return expected, False, basis, None, value
    if spec.gain == "near":
        basis = f"exact: matching would pair {_misses(misses)} once aligned / {gold:,} gold"
        return (misses / gold if gold else None), True, basis, None, None
    if spec.gain == "names":
        if diagnosis.confirmed:
            basis = f"{misses:,} confirmed by a judge / {gold:,} gold"
            return (misses / gold if gold else None), True, basis, None, None
        basis = f"0 until a judge confirms: {misses:,} near misses unconfirmed (--lenient)"
        return 0.0, False, basis, None, None
    replay = diagnosis.replays.get(spec.gain)
    if replay is None:
        basis = (
            "no inverse pairs known: declare inverse_of or symmetric (a bench set carries its "
            "inverses) to replay the step"
            if spec.gain == "inverses"
            else "nothing to replay"
        )
        return None, False, basis, None, None
    if spec.gain == "audit":
        basis = (
            f"exact: accepting the {replay.added:,} refused facts and rescoring finds "
            f"{replay.found:,} gold facts; {_precision_words(replay)}"
        )
    else:
        basis = (
            f"exact: the inverse step adds {replay.added:,} facts, {replay.found:,} of them "
            f"gold; {_precision_words(replay)}"
        )
    return (
        _delta(replay.recall_after, replay.recall_before),
        True,
        basis,
        _delta(replay.precision_after, replay.precision_before),
        None,
    )


def _detail(spec: FixSpec, diagnosis: Diagnosis, limit: int = 3) -> list[str]:
    merged: Counter[str] = Counter()
    for bucket in spec.buckets:
        for group in diagnosis.groups.get(bucket, ()):
            merged[group.name] += group.count
    top = sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [f"{name}: {count:,}" for name, count in top]


def fixes(diagnosis: Diagnosis, *, reference: Any = None) -> list[Fix]:
    """Each measured bucket's fix with its expected gain, ranked (see the module docstring)."""
    rates = reference_rates(reference) if reference is not None else {}
    made: list[tuple[tuple[Any, ...], Fix]] = []
    for order, spec in enumerate(FIXES):
        counts = [diagnosis.bucket(b).count for b in spec.buckets]
        if all(c is None for c in counts):
            continue
        misses = sum(c for c in counts if c is not None)
        gold = diagnosis.gold
        expected, exact, basis, precision, _rate = _estimate(spec, diagnosis, misses)
        ref_rate = rates.get(spec.id) if not exact else None
        knob = spec.knob
        if spec.id == "offer-relations" and diagnosis.offered_knobs:
            knob = "; ".join(diagnosis.offered_knobs)
        fix = Fix(
            id=spec.id,
            rank=0,
            buckets=list(spec.buckets),
            misses=misses,
            action=spec.action,
            knob=knob,
            recall=FixRecall(
                expected=expected,
                ceiling=misses / gold if gold else None,
                exact=exact,
                basis=basis,
                reference=misses * ref_rate / gold if ref_rate is not None and gold else None,
                precision=precision,
            ),
            detail=_detail(spec, diagnosis),
        )
        key = (
            misses == 0,
            expected is None,
            -(expected or 0.0),
            -(fix.recall.ceiling or 0.0),
            order,
        )
        made.append((key, fix))
    made.sort(key=lambda pair: pair[0])
    return [fix.model_copy(update={"rank": rank}) for rank, (_, fix) in enumerate(made, start=1)]


def _points(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f}"


def render_fixes(found: Sequence[Fix], *, row: str = "pipeline") -> str:
    """The spec's table of fixes with misses, then each one's action, basis and largest groups."""
    shown = [f for f in found if f.misses]
    lines = [f"what should change  ({row}: ranked by expected recall gain; gains overlap)"]
    if not shown:
        return "\n".join([*lines, "  nothing: no miss was put down to a fix"])
    lines.append(f"     {'fix':<23}{'expected':<10}{'ceiling':<9}{'reference':<11}knob")
    for fix in shown:
        r = fix.recall
        lines.append(
            f"  {fix.rank:<3}{fix.id:<23}{_points(r.expected):<10}{_points(r.ceiling):<9}"
            f"{_points(r.reference):<11}{fix.knob}"
        )
    lines.append("")
    for fix in shown:
        lines.append(f"  {fix.rank}. {fix.action} {fix.recall.basis}")
        lines += [f"     - {item}" for item in fix.detail]
        if fix.record is not None:
            lines.append(f"     - track record: {_record_words(fix.record)}")
    return "\n".join(lines)


def _record_words(record: Mapping[str, Any]) -> str:
    measured = record.get("measured") or {}
    interval = measured.get("interval")
    span = f" [{_points(interval[0])}, {_points(interval[1])}]" if interval else ""
    return (
        f"expected {_points(record.get('expected'))}, measured "
        f"{_points(measured.get('difference'))}{span} {record.get('verdict', '')}".rstrip()
    )
