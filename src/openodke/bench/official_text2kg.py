"""Text2KGBench's official scores, replayed rule for rule (benchmarks.md §3, Text2KGBench).

Per gold sentence with a system entry: precision, recall and F1 of the system triples whose
relation occurs in the sentence's gold (gold spaces → underscores; system as written), each
triple compared as subject+relation+object with whitespace and underscores removed and
lower-cased; ontology conformance OC (share of all system triples whose relation is an ontology
label with spaces → underscores; 1 with no triples) and RH = 1 − OC; subject and object
hallucination SH/OH (share of triples whose Porter-stemmed subject/object is not a substring of
the stemmed sentence followed by the concept labels). Averages divide the sums by **all** gold
sentences, so a sentence with no system entry scores 0 on every metric; the verified-subset
averages divide by the number of verified ids. This follows the benchmark's ``run_eval.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openodke.bench.porter import porter_stem
from openodke.bench.tokenize import word_tokenize
from openodke.errors import InputError

__all__ = [
    "BUILTIN_NOTE",
    "METRICS",
    "Averages",
    "SentenceScore",
    "Text2KGOfficial",
    "score_text2kg_official",
]

METRICS = ("precision", "recall", "f1", "onto_conf", "rel_halluc", "sub_halluc", "obj_halluc")
BUILTIN_NOTE = (
    "SH/OH use the built-in tokenizer and Porter stemmer; the third decimal may differ from NLTK's"
)
_NLTK_LINE_NOTE = (
    "SH/OH use NLTK without its punkt sentence splitter (its data is not installed); "
    "the third decimal may differ from the published scores"
)
_SPACE_OR_UNDERSCORE = re.compile(r"(_|\s+)")

Triple = list[str]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SentenceScore(_Frozen):
    """One sentence's official scores (only sentences with a system entry have one)."""

    id: str
    precision: float
    recall: float
    f1: float
    onto_conf: float
    rel_halluc: float
    sub_halluc: float
    obj_halluc: float
    llm_triples: list[Triple]
    filtered_llm_triples: list[Triple]
    gt_triples: list[Triple]


class Averages(_Frozen):
    """The seven metrics averaged over ``sentences`` (the official denominator)."""

    sentences: int = Field(description="The denominator: all gold sentences, or all verified ids.")
    answered: int = Field(description="How many of them have a system entry.")
    precision: float
    recall: float
    f1: float
    onto_conf: float
    rel_halluc: float
    sub_halluc: float
    obj_halluc: float

    def rounded(self) -> dict[str, str]:
        """The metrics as the benchmark prints them: 2-decimal strings."""
        return {name: f"{getattr(self, name):.2f}" for name in METRICS}


class Text2KGOfficial(Averages):
    """All-sentence averages (inherited fields), the verified subset, and per-sentence rows."""

    verified: Averages | None = Field(default=None, description="Over the manually verified ids.")
    per_sentence: list[SentenceScore]
    tokenizer: Literal["builtin", "nltk", "nltk-preserve-line"]
    notes: list[str] = Field(default_factory=list)


def _normalised(text: str) -> str:
    return _SPACE_OR_UNDERSCORE.sub("", text).lower()


def _triple_key(triple: Sequence[str]) -> str:
    return "".join(_normalised(part) for part in triple[:3])


def _stemmer(tokenizer: str) -> tuple[Callable[[str], str], str]:
    """A function text → stemmed concatenation, and which tokenizer it uses."""
    if tokenizer == "auto":
        try:
            from nltk.stem import PorterStemmer  # type: ignore[import-not-found]
            from nltk.tokenize import word_tokenize as nltk_tokenize  # type: ignore[import-not-found]
        except ImportError:
            tokenizer = "builtin"
        else:
            stem = PorterStemmer().stem
            try:
                nltk_tokenize("A check. Of punkt.")
                return (lambda text: "".join(stem(w) for w in nltk_tokenize(text))), "nltk"
            except LookupError:
                return (
                    lambda text: "".join(stem(w) for w in nltk_tokenize(text, preserve_line=True)),
                    "nltk-preserve-line",
                )
    if tokenizer != "builtin":
        raise ValueError(f"tokenizer must be 'auto' or 'builtin', got {tokenizer!r}")
    return (lambda text: "".join(porter_stem(w) for w in word_tokenize(text))), "builtin"


def _by_id(rows: Iterable[Mapping[str, Any]], what: str) -> dict[str, Mapping[str, Any]]:
    table: dict[str, Mapping[str, Any]] = {}
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping) or "id" not in row or "triples" not in row:
            raise InputError(f"{what} row {number}: expected an object with id and triples")
        table[str(row["id"])] = row  # the official scorer keys rows by id: the last one wins
    return table


def _score_sentence(
    sent_id: str,
    gold_row: Mapping[str, Any],
    system: Sequence[Sequence[str]],
    labels: set[str],
    context: str,
    stemmed: Callable[[str], str],
) -> SentenceScore:
    gold = [[t["sub"], t["rel"], t["obj"]] for t in gold_row["triples"]]
    gold_relations = {t[1].replace(" ", "_") for t in gold}
    filtered = [list(t) for t in system if t[1] in gold_relations]
    predicted = {_triple_key(t) for t in filtered}
    expected = {_triple_key(t) for t in gold}
    precision = recall = f1 = 0.0
    if predicted:
        hits = len(expected & predicted)
        precision, recall = hits / len(predicted), hits / len(expected)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    onto_conf, sub_halluc, obj_halluc = 1.0, 0.0, 0.0
    if system:
        onto_conf = sum(t[1] in labels for t in system) / len(system)
        haystack = _normalised(stemmed(gold_row["sent"] + context))

        def missing(text: str) -> bool:
            return haystack.find(_normalised(stemmed(text)).replace("01januari", "")) == -1

        sub_halluc = sum(missing(t[0]) for t in system) / len(system)
        obj_halluc = sum(missing(t[2]) for t in system) / len(system)
    return SentenceScore(
        id=sent_id,
        precision=precision,
        recall=recall,
        f1=f1,
        onto_conf=onto_conf,
        rel_halluc=1 - onto_conf,
        sub_halluc=sub_halluc,
        obj_halluc=obj_halluc,
        llm_triples=[list(t) for t in system],
        filtered_llm_triples=filtered,
        gt_triples=gold,
    )


def _average(scores: Sequence[SentenceScore], denominator: int) -> dict[str, Any]:
    sums = {name: sum(getattr(s, name) for s in scores) for name in METRICS}
    return {
        "sentences": denominator,
        "answered": len(scores),
        **{name: (sums[name] / denominator if denominator else 0.0) for name in METRICS},
    }


def score_text2kg_official(
    responses: Iterable[Mapping[str, Any]],
    gold_rows: Iterable[Mapping[str, Any]],
    ontology_raw: Mapping[str, Any],
    *,
    verified_ids: Sequence[str] | None = None,
    tokenizer: Literal["auto", "builtin"] = "auto",
) -> Text2KGOfficial:
    """Score response rows ``{"id", "triples": [[s, r, o], ...]}`` by the official rules.

    ``gold_rows`` are ground-truth rows ``{"id", "sent", "triples": [{"sub", "rel", "obj"}]}``
    and ``ontology_raw`` the benchmark's ontology JSON (``concepts``, ``relations``).
    ``tokenizer="auto"`` uses NLTK when it is installed, else the built-in equivalent.
    """
    if (
        not isinstance(ontology_raw, Mapping)
        or "relations" not in ontology_raw
        or "concepts" not in ontology_raw
    ):
        raise InputError(
            "the official Text2KGBench score needs the benchmark's ontology JSON (concepts, relations)"
        )
    system = _by_id(responses, "response")
    gold = {str(row["id"]): row for row in gold_rows}
    labels = {r["label"].replace(" ", "_") for r in ontology_raw["relations"]}
    context = " ".join(c["label"] for c in ontology_raw["concepts"])
    stemmed, used = _stemmer(tokenizer)
    scores = [
        _score_sentence(sid, row, system[sid]["triples"], labels, context, stemmed)
        for sid, row in gold.items()
        if sid in system
    ]
    verified = None
    if verified_ids:
        wanted = set(verified_ids)
        verified = Averages(**_average([s for s in scores if s.id in wanted], len(verified_ids)))
    notes = []
    if used == "builtin":
        notes.append(BUILTIN_NOTE)
    elif used == "nltk-preserve-line":
        notes.append(_NLTK_LINE_NOTE)
    if len(scores) < len(gold):
        notes.append(
            f"{len(gold) - len(scores)} of {len(gold)} gold sentences have no system entry and "
            "score 0 on every metric (the official rule)"
        )
    return Text2KGOfficial(
        **_average(scores, len(gold)),
        verified=verified,
        per_sentence=scores,
        tokenizer=used,
        notes=notes,
    )
