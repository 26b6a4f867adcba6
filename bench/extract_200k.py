"""odke eval extract on 200,000 gold and 200,000 predicted facts: the new user's corpus.

20,000 documents, four subjects per document, every object its own (ten facts per document). The
predictions come in the shapes users write: a tenth as a JsonlSink writes them (every field, an
``id``), the rest without ``id``, half in the short form, half with some optional fields; their mistakes are the kinds the diagnosis sorts (wrong relation, the other way round,
another name for the object, another subject type, a wrong value, missing, spurious). Target
(issue 8): ``odke eval extract --json``, its default output with the diagnosis, in at most 2.5 s
and 600 MB on a 2-core machine. Prints wall time, rows per second, peak memory (max RSS) and the
machine's load; then the Python API on the same files (``load_jsonl``, before and after).

    python bench/extract_200k.py [--facts 200000] [--documents 20000] [--runs 3] [--no-api]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from extract_scale import load_note, run_odke

PREDICATES = ["born_in", "employer", "award", "member_of", "founded", "spouse", "educated_at"]


def _entity(key: str, kind: str, label: str | None, full: bool) -> dict:
    entity: dict = {"key": key, "type": kind}
    if label is not None or full:
        entity["label"] = label
    if full:
        entity.update(aliases=[], external_id=None, resolution=None, attributes={})
    return entity


def _fact(i: int, doc: str, subject: dict, predicate: str, obj: dict, shape: int) -> dict:
    """A prediction in one of three shapes: 0 every field with an id, 1 short, 2 in between."""
    evidence: dict = {"doc_id": doc}
    fact: dict = {"subject": subject, "predicate": predicate, **obj}
    if shape == 0:
        evidence.update(span={"doc_id": doc, "start": 0, "end": 40, "quote": None}, mention=None)
        evidence.update(span_origin="cited", uri=None, tier="unverified", retrieved_at=None)
        fact = {"id": f"{i:032x}", **fact, "polarity": "asserted", "qualifiers": {}}
        fact.update(identity_keys=[], valid_from=None, valid_to=None)
        fact.update(extractor="llm", confidence=0.5, verdict="unchecked", support=1)
        fact.update(supported_by=[], retired_at=None)
    elif shape == 2:
        fact.update(extractor="llm", confidence=0.75)
    fact["evidence"] = [evidence]
    return fact


def write_files(folder: Path, n: int, documents: int, seed: int = 0) -> None:
    """gold.jsonl and facts.jsonl: ``n`` gold facts over ``documents`` documents, and the
    predictions (about as many), seeded."""
    rng = random.Random(seed)
    per_doc = max(n // documents, 1)
    with open(folder / "gold.jsonl", "w") as gold, open(folder / "facts.jsonl", "w") as said:
        for i in range(n):
            d = i // per_doc
            doc = f"d{d}"
            s = i % 4
            subject_key = f"Person:d{d} s{s}"
            predicate = PREDICATES[i % len(PREDICATES)]
            literal = i % 5 == 0
            if literal:
                gold_obj: dict = {"object_value": 1000 + i}
            else:
                gold_obj = {"object_entity": {"key": f"Thing:o{i}", "type": "Thing"}}
            subject = {"key": subject_key, "type": "Person"}
            gold.write(
                json.dumps(
                    {"doc_id": doc, "fact": {"subject": subject, "predicate": predicate} | gold_obj}
                )
                + "\n"  # fmt: skip
            )
            shape = 0 if rng.random() < 0.1 else rng.randrange(1, 3)
            full = shape == 0
            said_subject = _entity(subject_key, "Person", f"D{d} S{s}", full)
            if literal:
                said_obj: dict = {"object_value": 1000 + i}
            else:
                said_obj = {"object_entity": _entity(f"Thing:o{i}", "Thing", f"O{i}", full)}
            r = rng.random()
            if r < 0.08:
                continue  # missing
            if r < 0.12:
                predicate = PREDICATES[(i + 1) % len(PREDICATES)]  # wrong relation
            elif r < 0.14 and not literal:  # the other way round
                said_subject, said_obj = (
                    said_obj["object_entity"],
                    {"object_entity": said_subject},
                )
            elif r < 0.16 and not literal:  # the object in other words
                said_obj = {"object_entity": _entity(f"Thing:o{i} inc", "Thing", f"O{i} Inc", full)}
            elif r < 0.17:  # another subject type
                said_subject = _entity(subject_key, "Agent", f"D{d} S{s}", full)
            elif r < 0.20 and literal:  # a wrong value
                said_obj = {"object_value": 2000 + i}
            if full:
                said_obj.setdefault("object_entity", None)
                said_obj.setdefault("object_value", None)
            said.write(json.dumps(_fact(i, doc, said_subject, predicate, said_obj, shape)) + "\n")
            if rng.random() < 0.05:  # a spurious extra
                extra = {"object_entity": _entity(f"Thing:x{i}", "Thing", None, full)}
                said.write(json.dumps(_fact(i, doc, said_subject, "founded", extra, shape)) + "\n")


def python_api(folder: Path) -> None:
    """The Python API on the same files: load_jsonl, then scoring and the diagnosis; and the
    line-by-line reader load_jsonl replaced (json.loads then model_validate), for comparison."""
    from openodke.eval import GoldFact, evaluate_extraction, load_jsonl
    from openodke.eval.diagnosis import diagnose, gold_view
    from openodke.eval.engine.jsonl import iter_json_lines
    from openodke.eval.engine.pause import paused_gc
    from openodke.types import Fact

    note = load_note()
    start = time.perf_counter()
    gold = load_jsonl(folder / "gold.jsonl", GoldFact)
    facts = load_jsonl(folder / "facts.jsonl", Fact)
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    with paused_gc():  # the old reader left the collector running: it is given the same pause
        for path, model in ((folder / "gold.jsonl", GoldFact), (folder / "facts.jsonl", Fact)):
            _ = [model.model_validate(value) for _, value in iter_json_lines(path)]
    careful = time.perf_counter() - start
    start = time.perf_counter()
    evaluate_extraction(gold, facts)
    scored = time.perf_counter() - start
    start = time.perf_counter()
    diagnose(gold_view(gold, facts), row="extract")
    diagnosed = time.perf_counter() - start
    rows = len(gold) + len(facts)
    print(f"Python API on the same files ({note}):")
    print(
        f"  load_jsonl gold + facts: {loaded:.2f} s ({rows / loaded:,.0f} rows/s); line by line "
        f"(json.loads, then model_validate): {careful:.2f} s, {careful / loaded:.1f}x as long"
    )
    print(f"  evaluate_extraction {scored:.2f} s; gold_view + diagnose {diagnosed:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=200_000)
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-api", action="store_true", help="skip the Python API's timing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_files(folder, args.facts, args.documents)
        with open(folder / "facts.jsonl") as said:
            predicted = sum(1 for _ in said)
        rows = args.facts + predicted
        print(
            f"odke eval extract --json (diagnosis included): {args.facts:,} gold + "
            f"{predicted:,} predicted over {args.documents:,} documents"
        )
        times = []
        for _ in range(args.runs):
            note = load_note()
            stdout, seconds, peak_mb = run_odke(
                "eval", "extract", "--labels", str(folder / "gold.jsonl"),
                "--predictions", str(folder / "facts.jsonl"), "--json",
            )  # fmt: skip
            times.append((seconds, peak_mb))
            print(
                f"  {seconds:.2f} s, {rows / seconds:,.0f} rows/s, peak memory {peak_mb:,.0f} MB"
                f" ({note})"
            )
        out = json.loads(stdout)
        seconds = [t for t, _ in times]
        peak = max(p for _, p in times)
        print(
            f"  target: at most 2.5 s and 600 MB: {min(seconds):.2f}-{max(seconds):.2f} s, "
            f"{peak:,.0f} MB"
        )
        metrics = out["metrics"]
        print(
            f"  f1 {metrics['f1']:.4f}, tp {metrics['tp']:,}, fp {metrics['fp']:,}, "
            f"fn {metrics['fn']:,}"
        )
        buckets = {row["bucket"]: row["count"] for row in out["diagnosis"] if row["count"]}
        print(f"  diagnosis: {buckets}")
        if not args.no_api:
            python_api(folder)


if __name__ == "__main__":
    main()
