"""Bench sets from local benchmark files (``odke bench``), and the benchmarks' official scorers."""

from openodke.bench.load import BenchSet, align, load_bench
from openodke.bench.official import score_competitor_official, score_official
from openodke.bench.official_redocred import (
    RedocredOfficial,
    gold_submission,
    load_train_facts,
    score_redocred_official,
)
from openodke.bench.official_text2kg import (
    Averages,
    SentenceScore,
    Text2KGOfficial,
    score_text2kg_official,
)
from openodke.bench.porter import porter_stem
from openodke.bench.prepare import PrepareResult, prepare_redocred, prepare_text2kgbench
from openodke.bench.run import BenchRun, run_bench
from openodke.bench.submissions import (
    docred_facts,
    facts_to_responses,
    read_submission,
    to_docred_submission,
)
from openodke.bench.tokenize import word_tokenize

__all__ = [
    "Averages",
    "BenchRun",
    "BenchSet",
    "PrepareResult",
    "RedocredOfficial",
    "SentenceScore",
    "Text2KGOfficial",
    "align",
    "docred_facts",
    "facts_to_responses",
    "gold_submission",
    "load_bench",
    "load_train_facts",
    "porter_stem",
    "prepare_redocred",
    "prepare_text2kgbench",
    "read_submission",
    "run_bench",
    "score_competitor_official",
    "score_official",
    "score_redocred_official",
    "score_text2kg_official",
    "to_docred_submission",
    "word_tokenize",
]
