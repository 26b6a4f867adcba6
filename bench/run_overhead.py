"""How much does a run cost besides its model calls? 1,000 Re-DocRED documents, recorded answers.

    .venv/bin/python bench/run_overhead.py [--documents 1000] [--workers 1]

The documents are Re-DocRED's test and dev splits (500 + 500) as ``odke bench prepare`` writes
them (``docs/<id>.txt``, tokens joined), with its ontology (96 relations, all offered). The run
config runs every stage: ``directory`` loader, ``sentence`` chunker, ``llm`` extractor (JSON
parsed from text, as bench sets do), ``llm`` grounder, ``value`` normalizer, ``native`` resolver,
``signature`` corroborator, ``evidence`` scorer, ``verdict`` gate and a ``jsonl`` sink. The answers
are recorded from the gold: each chunk's extraction reply states the gold facts whose evidence
sentence the chunk holds (quoting that sentence), and every grounding question is answered
``supported``. They come from memory at once through a client that times itself, so

    overhead = wall time of ``execute`` - time spent inside the model client

is everything the pipeline does itself: reading, chunking, prompts, parsing and checking
replies, grounding's free checks, normalising, resolving, corroborating, scoring, gating and
writing. Target: at most 10 s. Prints the counts, the split, and exits 1 if it is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openodke.bench import prepare_redocred  # noqa: E402
from openodke.bench.redocred import TYPE_NAMES, document_text, predicate_names  # noqa: E402
from openodke.llm import LLMResponse, ModelSpec  # noqa: E402
from openodke.run import RunOptions, execute, parse_config  # noqa: E402

TARGET_S = 10.0


class MemoryClient:
    """Answers from a table at once, and sums the time spent inside ``complete``."""

    cacheable = False

    def __init__(self, extract: Mapping[str, str]) -> None:
        self.extract = extract
        self.seconds = 0.0
        self.calls = 0
        self._lock = threading.Lock()

    def complete(
        self, messages: Sequence[Mapping[str, Any]], spec: ModelSpec, schema: Any = None
    ) -> LLMResponse:
        started = time.perf_counter()
        prompt = str(messages[-1]["content"])
        if "\nText:\n" in prompt:
            text = self.extract.get(prompt.rsplit("\nText:\n", 1)[1], '{"entities": []}')
            parsed = json.loads(text)
        else:
            text, parsed = '{"verdict": "supported"}', {"verdict": "supported"}
        response = LLMResponse(text=text, parsed=parsed, model=spec.model)
        with self._lock:
            self.calls += 1
            self.seconds += time.perf_counter() - started
        return response


def _documents(limit: int) -> list[tuple[str, dict[str, Any]]]:
    docs: list[tuple[str, dict[str, Any]]] = []
    for split in ("test", "dev"):
        raw = json.loads((ROOT / "data" / "redocred" / f"{split}_revised.json").read_text())
        docs += [(f"{split}_{i:04d}", doc) for i, doc in enumerate(raw)]
    return docs[:limit]


def _replies(docs: list[tuple[str, dict[str, Any]]], names: Mapping[str, str]) -> dict[str, str]:
    """Per document text: the reply stating its gold facts, each quoting its evidence sentence.
    The chunker is set to keep a whole document in one chunk, so the key is the document text."""
    replies: dict[str, str] = {}
    for _doc_id, doc in docs:
        text = document_text(doc)
        entities: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for label in doc["labels"]:
            head, tail = doc["vertexSet"][label["h"]][0], doc["vertexSet"][label["t"]][0]
            sentence = " ".join(
                doc["sents"][label["evidence"][0] if label["evidence"] else head["sent_id"]]
            )
            key = (TYPE_NAMES.get(head["type"], "Misc"), head["name"])
            entities.setdefault(key, []).append(
                {"predicate": names[label["r"]], "value": tail["name"], "quote": sentence}
            )
        reply = {"entities": [{"type": t, "name": n, "facts": f} for (t, n), f in entities.items()]}
        replies[text] = json.dumps(reply, ensure_ascii=False)
    return replies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    docs = _documents(args.documents)
    rel_info = json.loads((ROOT / "data" / "redocred" / "rel_info.json").read_text())
    names = predicate_names(rel_info)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "set"
        prepare_redocred(ROOT / "data", folder, split="test", limit=1)  # the ontology
        docs_dir = folder / "docs"
        for path in docs_dir.iterdir():
            path.unlink()
        for doc_id, doc in docs:
            (docs_dir / f"{doc_id}.txt").write_text(document_text(doc), encoding="utf-8")
        config = parse_config(
            {
                "ontology": "ontology.json",
                "inputs": [{"path": "docs", "loader": "directory"}],
                "models": {"extract": "ollama/recorded", "ground": "ollama/recorded"},
                "stages": {
                    "chunker": {"use": "sentence", "max_words": 100_000},
                    "extractor": {
                        "use": "llm",
                        "structured": False,
                        "snippet_limit": 96,
                        "max_workers": args.workers,
                    },
                    "grounder": {"use": "llm", "max_workers": args.workers},
                    "normalizer": "value",
                    "resolver": "native",
                    "corroborator": "signature",
                    "scorer": "evidence",
                    "gate": "verdict",
                    "sink": {"use": "jsonl", "directory": "out"},
                },
            },
            folder,
        )
        client = MemoryClient(_replies(docs, names))
        options = RunOptions(clients={"extract": client, "ground": client}, no_cache=True)
        started = time.perf_counter()
        result = execute(config, options=options)
        wall = time.perf_counter() - started
    stats = result.stats
    overhead = wall - client.seconds
    print(
        f"{stats['documents']} documents, {stats['chunks']} chunks, {stats['extracted']} facts "
        f"extracted, {stats['graph']['facts']} written; {client.calls} model calls"
    )
    print(
        f"wall {wall:.2f} s = model client {client.seconds:.2f} s + pipeline overhead "
        f"{overhead:.2f} s (target <= {TARGET_S:.0f} s)"
    )
    return 0 if overhead <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
