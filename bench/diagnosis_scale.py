"""How fast is the diagnosis at scale? 100,000 misses over 10,000 documents, with texts.

    .venv/bin/python bench/diagnosis_scale.py [--documents 10000] [--gold 15] [--seed 0]

Builds a seeded synthetic corpus (no files): per document 24 named entities, a text of sentences
naming pairs of them, ``--gold`` gold facts and predictions that hit some, write others with the
wrong relation, the other way round, in other words, with another type, or not at all, plus
spurious ones; a trace that leaves some relations unoffered and a gate that refused a few facts.
Then scores the row (``score_facts``: the matching, which ``odke eval pipeline`` does for every row
before any diagnosis) and times the diagnosis on it: ``gold_view`` given that score, ``diagnose``
and ``fixes``. Prints both times (wall, and CPU for the diagnosis) and peak memory (the process's
maximum resident set, and how much of it the corpus took before). The target is 10 s at most on a 2-core
machine; building the Facts is timed apart, since it is not the diagnosis's work.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from openodke.eval.diagnosis import Offered, diagnose, gold_view
from openodke.eval.diagnosis.fixes import fixes
from openodke.eval.stages.extract import score_facts
from openodke.eval.stages.labels import GoldFact
from openodke.types import Entity, Evidence, Fact

RELATIONS = [f"rel_{k}" for k in range(30)]
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "to", "vi", "nor", "bel", "dan", "es", "tur"]


def _fact(s: Entity, predicate: str, o: Entity, cited: tuple[Evidence, ...]) -> Fact:
    # model_construct: the Facts are known-good, and validating 300,000 of them is not the work
    # being timed.
    return Fact.model_construct(subject=s, predicate=predicate, object_entity=o, evidence=cited)


def corpus(documents: int, gold_per_doc: int, seed: int):
    """Gold facts, predictions, refused facts and texts for a seeded synthetic corpus.

    Of every 15 gold facts of a document (each a distinct pair): 5 are hit, 2 written with the
    wrong relation, 2 the other way round, 1 in other words, 1 refused by the gate, 1 with another
    subject type, and 3 not written: one named across two sentences, one whose ends are in no
    prediction, one whose ends are in predictions but never together. About 10% of relations are
    unoffered, and 3 spurious predictions per document are false positives.
    """
    rng = np.random.default_rng(seed)
    gold: list[GoldFact] = []
    predicted: list[Fact] = []
    refused: list[Fact] = []
    texts: dict[str, str] = {}
    for d in range(documents):
        doc = f"doc{d:05d}"
        cited = (Evidence.model_construct(doc_id=doc),)
        picks = rng.integers(0, len(SYLLABLES), size=(2 * gold_per_doc, 4))
        names = [
            "".join(SYLLABLES[x] for x in row[:3]).title() + f" {SYLLABLES[row[3]].title()}{k}"
            for k, row in enumerate(picks)
        ]
        people = [
            Entity.model_construct(key=f"Person:{n.lower()}", type="Person", label=n)
            for n in names[:gold_per_doc]
        ]
        things = [
            Entity.model_construct(key=f"Thing:{n.lower()}", type="Thing", label=n)
            for n in names[gold_per_doc:]
        ]
        relations = rng.integers(0, len(RELATIONS), size=gold_per_doc)
        sentences = []
        for k in range(gold_per_doc):
            s, o = people[k], things[(k * 7 + d) % gold_per_doc]
            predicate = RELATIONS[int(relations[k])]
            gold.append(GoldFact.model_construct(doc_id=doc, fact=_fact(s, predicate, o, cited)))
            kind = k % 15
            if kind == 12:
                sentences.append(f"{s.label} was there . Later {o.label} came .")
            else:
                sentences.append(f"{s.label} worked with {o.label} for years .")
            if kind < 5:  # a hit
                predicted.append(_fact(s, predicate, o, cited))
            elif kind < 7:  # wrong relation
                predicted.append(_fact(s, "rel_wrong", o, cited))
            elif kind < 9:  # other way round
                predicted.append(_fact(o, predicate, s, cited))
            elif kind == 9:  # in other words
                other = Entity.model_construct(
                    key=o.key + " jr", type="Thing", label=f"{o.label} Jr"
                )
                predicted.append(_fact(s, predicate, other, cited))
            elif kind == 10:  # refused by the gate
                refused.append(_fact(s, predicate, o, cited))
            elif kind == 11:  # another subject type
                typed = Entity.model_construct(key=s.key, type="Agent", label=s.label)
                predicted.append(_fact(typed, predicate, o, cited))
            elif kind == 14:  # both ends written, never together
                predicted.append(_fact(s, "rel_spurious", people[0], cited))
                predicted.append(_fact(people[1], "rel_spurious", o, cited))
        for k in range(3):  # spurious
            predicted.append(_fact(people[k], "rel_spurious", people[k + 1], cited))
        texts[doc] = " ".join(sentences) + " Filler words follow ." * int(rng.integers(1, 40))
    return gold, predicted, refused, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--gold", type=int, default=15, help="gold facts per document")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()

    started = time.perf_counter()
    gold, predicted, refused, texts = corpus(options.documents, options.gold, options.seed)
    built = time.perf_counter() - started
    offered = Offered(by_type={"Person": tuple(RELATIONS[:27]) + ("rel_wrong",)})

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    started = time.perf_counter()
    score = score_facts(gold, predicted)  # the row's own scoring, which the pipeline does anyway
    scoring = time.perf_counter() - started
    started, cpu = time.perf_counter(), time.process_time()
    view = gold_view(gold, predicted, score=score)
    found = diagnose(view, offered=offered, validator=refused, texts=texts)
    ranked = fixes(found)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    counts = ", ".join(f"{b.bucket} {b.count:,}" for b in found.recall_side if b.count)
    print(
        f"corpus: {options.documents:,} documents, {len(gold):,} gold facts, "
        f"{len(predicted):,} predictions, {len(refused):,} refused (built in {built:.1f} s)"
    )
    print(f"misses: {found.misses:,} ({counts})")
    print(f"top fix: {ranked[0].id} {ranked[0].recall.expected * 100:+.1f}")
    print(f"scoring the row (matching, done before any diagnosis): {scoring:.2f} s")
    print(
        f"diagnosis (gold_view on the row's score + diagnose + fixes): {seconds:.2f} s "
        f"({cpu:.2f} s CPU); peak memory (max RSS) {rss:.0f} MiB, {before:.0f} MiB of it the corpus"
    )


if __name__ == "__main__":
    main()
