"""Recorded answers for the movie set: an extractor and a grounder, replayed over HTTP.

The answers are written once per session from the set's own gold (seeded, so they never change):
per sentence the extractor states about 80% of its gold triples and, in about one sentence in
eight, one wrong triple (the object of another sentence's triple of the same relation); each
quote is the whole sentence. The grounder says ``supported`` of a right triple (``not_found`` of
one in ten) and ``contradicted`` or ``not_found`` of a wrong one. A server speaking OpenAI's
protocol answers each request from this table, by the sentence (extraction) or by the claim and
passage (grounding); a request it has no answer for is a 404, as a recording with no match is.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from openodke.bench import BenchSet
from openodke.ground.prompts import predicate_words

__all__ = ["Recorded", "record"]


class Recorded:
    """The recorded answers: extraction by sentence, verdicts by (subject, predicate, object)."""

    def __init__(self, extract: dict[str, str], ground: dict[str, str]) -> None:
        self.extract = extract
        self.ground = ground

    def answer(self, prompt: str) -> str:
        """The recorded reply to one request's messages (joined); '' when none matches."""
        if "\nText:\n" in prompt:
            return self.extract.get(prompt.rsplit("\nText:\n", 1)[1], "")
        claim = prompt.split("Claim: ", 1)[1].split("\n\nPassage:\n", 1)[0]
        return json.dumps({"verdict": self.ground.get(claim, "not_found")})

    def save(self, path: Path) -> None:
        """Write the table as JSON."""
        path.write_text(json.dumps({"extract": self.extract, "ground": self.ground}, indent=1))


def _claim(subject: str, s_type: str, predicate: str, obj: str, o_type: str | None) -> str:
    end = f"{obj} ({o_type})" if o_type else obj
    return f"{subject} ({s_type}) — {predicate_words(predicate)} — {end}."


def record(bench: BenchSet, seed: int = 0) -> Recorded:
    """The answers for every sentence of ``bench`` (see the module docstring)."""
    rng = random.Random(seed)
    ontology = bench.ontology
    by_relation: dict[str, list[str]] = {}
    for row in bench.gold_rows:
        for triple in row["triples"]:
            by_relation.setdefault(triple["rel"], []).append(triple["obj"])
    extract: dict[str, str] = {}
    ground: dict[str, str] = {}
    for row, document in zip(bench.gold_rows, bench.documents, strict=True):
        sentence = document.text
        entities: dict[tuple[str, str], list[dict[str, Any]]] = {}
        wanted: list[tuple[dict[str, str], bool]] = [
            (t, True) for t in row["triples"] if rng.random() < 0.8
        ]
        if row["triples"] and rng.random() < 0.125:
            first = row["triples"][0]
            others = [o for o in by_relation[first["rel"]] if o != first["obj"]]
            if others:
                wanted.append(({**first, "obj": rng.choice(others)}, False))
        for triple, right in wanted:
            name = bench.predicates.resolve(triple["rel"])
            if name is None:
                continue
            spec = ontology["predicates"][name]
            s_type = spec["domain"][0] if spec.get("domain") else "Thing"
            o_type = spec["range"] if spec["range"] in ontology["types"] else None
            entities.setdefault((s_type, triple["sub"]), []).append(
                {"predicate": name, "value": triple["obj"], "quote": sentence}
            )
            if right:
                verdict = "not_found" if rng.random() < 0.1 else "supported"
            else:
                verdict = rng.choice(["contradicted", "not_found"])
            ground[_claim(triple["sub"], s_type, name, triple["obj"], o_type)] = verdict
        reply = {
            "entities": [
                {"type": t, "name": n, "facts": facts} for (t, n), facts in entities.items()
            ]
        }
        extract[sentence] = json.dumps(reply, ensure_ascii=False)
    return Recorded(extract, ground)
