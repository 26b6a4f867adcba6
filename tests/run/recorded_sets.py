"""Recorded answers for the bundled sets, for a whole ``odke run`` over HTTP: extraction replies
written from each set's gold, and grounding verdicts.

The movie set (Text2KGBench) uses ``tests/bench/movie_replay.py``. For Re-DocRED each chunk's
reply states the gold facts whose evidence sentence the chunk holds, each quoting that sentence,
as ``bench/run_overhead.py`` does for whole documents; every grounding question is answered
``supported``. :func:`tokens` is the usage the replay server reports: word pieces and marks
(``\\w+`` runs and single punctuation characters), an approximation of what BPE tokenizers count
that is independent of the four-characters-a-token estimate the dry run makes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openodke.bench import load_bench
from openodke.bench.redocred import TYPE_NAMES, predicate_names

__all__ = ["movie_answers", "redocred_answers", "tokens"]

_PIECES = re.compile(r"\w+|[^\w\s]")
_VERDICT = json.dumps({"verdict": "supported"})


def tokens(text: str) -> int:
    """Word pieces and punctuation marks in ``text`` (see the module)."""
    return len(_PIECES.findall(text))


def movie_answers(folder: Path) -> Callable[[str], str]:
    """The movie set's recorded answers (``tests/bench/movie_replay.py``)."""
    from tests.bench.movie_replay import record

    return record(load_bench(folder)).answer


def redocred_answers(data: Path, split: str, limit: int) -> Callable[[str], str]:
    """Re-DocRED's first ``limit`` documents of ``split``: each chunk's gold facts (see the module)."""
    docs = json.loads((data / "redocred" / f"{split}_revised.json").read_text())[:limit]
    names = predicate_names(json.loads((data / "redocred" / "rel_info.json").read_text()))
    by_sentence: dict[str, list[tuple[tuple[str, str], dict[str, str]]]] = {}
    for doc in docs:
        for label in doc["labels"]:
            head, tail = doc["vertexSet"][label["h"]][0], doc["vertexSet"][label["t"]][0]
            where = label["evidence"][0] if label["evidence"] else head["sent_id"]
            sentence = " ".join(doc["sents"][where])
            fact = {"predicate": names[label["r"]], "value": tail["name"], "quote": sentence}
            key = (TYPE_NAMES.get(head["type"], "Misc"), head["name"])
            by_sentence.setdefault(sentence, []).append((key, fact))

    def answer(prompt: str) -> str:
        if "\nText:\n" not in prompt:
            return _VERDICT
        chunk = prompt.rsplit("\nText:\n", 1)[1]
        entities: dict[tuple[str, str], list[dict[str, str]]] = {}
        for sentence, facts in by_sentence.items():
            if sentence in chunk:
                for key, fact in facts:
                    entities.setdefault(key, []).append(fact)
        reply: dict[str, Any] = {
            "entities": [{"type": t, "name": n, "facts": f} for (t, n), f in entities.items()]
        }
        return json.dumps(reply, ensure_ascii=False)

    return answer
