"""Peak memory of ``odke eval pipeline`` per input kind and path, against the input's size.

Target (issue 22): peak memory at most 4x the predictions file on every path, and 300 MB of
triples rows scored in at most 1.2 GB. For each kind, writes about ``--mb`` MB of predictions
over 5,000 documents (Document JSONL), GoldFact labels for a third of the rows, runs the venv's
``odke eval pipeline`` and prints the file size, the seconds, the peak memory and the ratios.

Peak memory is the largest of the command's own max RSS (wait4) and the proportional set size
(PSS: a page shared by forked workers counts once) of the command and every process under it,
sampled every 20 ms. What the interpreter and imports cost whatever the input is measured by
the same command on the same kind of input of about 1 KB (``base``); the ratio the limit holds is
``(peak - base) / file`` (DECISIONS "Memory in proportion"), beside the plain ``peak / file``.

Kinds (records written the way each tool writes them, every field):

- ``triples`` triples rows; ``facts`` a sink's Fact rows;
- ``langextract`` annotated documents (JSONL), ``langchain`` GraphDocument dumps (JSONL),
  ``graphrag`` an output folder of CSV tables (relationships, text_units, documents; the
  input's size is the folder's);
- ``cmd``: ``--cmd`` whose command copies a triples file to ``{out}``; ``run``: ``--run`` with a
  function yielding the triples file's rows; ``extractor``: ``--run`` with an Extractor class
  whose ``extract(document)`` returns that document's rows (read from a copy of the file
  grouped by document; the input's size is the triples file's in all three);
- ``submission``: Text2KGBench response rows scored with ``--bench`` on the movie set
  (``odke bench prepare text2kgbench data --ontology ont_1_movie``), its gold's triples repeated
  with new objects up to the size.

    python bench/predictions_memory.py [--mb 100] [--kinds triples,facts] [--limit 4]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from extract_scale import load_note

ROOT = Path(__file__).resolve().parent.parent
DOCS = 5000
PREDICATES = ("works_for", "born_in", "lives_in")
KINDS = "triples,facts,langextract,langchain,graphrag,cmd,run,extractor,submission"


def _triple(count: int, rng: random.Random) -> dict:
    return {
        "doc": f"doc_{count // 50 % DOCS:05d}",  # 50 rows a document, in a row
        "subject": f"Person number {count}",
        "predicate": rng.choice(PREDICATES),
        "object": f"Organisation {count % 977}",
        "quote": f"Person number {count} works for Organisation {count % 977}",
        "confidence": 0.5,
    }


def _fact(row: dict) -> dict:
    """The Fact a sink would write for ``row`` (the to_fact shape, defaults left out)."""
    subject = row["subject"]
    obj = row["object"]
    return {
        "subject": {"key": f"Thing:{subject.casefold()}", "type": "Thing", "label": subject},
        "predicate": row["predicate"],
        "object_entity": {"key": f"Thing:{obj.casefold()}", "type": "Thing", "label": obj},
        "evidence": [{"doc_id": row["doc"], "span_origin": "context"}],
        "extractor": "triples",
        "confidence": 0.5,
    }


def _langextract(rows: list[dict]) -> dict:
    """One annotated document holding ``rows`` (all of one document) as relation extractions,
    with every field LangExtract writes (tests/fixtures/adapters/langextract)."""
    return {
        "extractions": [
            {
                "extraction_class": r["predicate"],
                "extraction_text": r["object"],
                "char_interval": {"start_pos": 10 * k, "end_pos": 10 * k + 9},
                "alignment_status": "match_exact",
                "extraction_index": k + 1,
                "group_index": None,
                "description": None,
                "attributes": {"subject": r["subject"]},
            }
            for k, r in enumerate(rows)
        ],
        "text": None,
        "document_id": rows[0]["doc"],
    }


def _langchain(rows: list[dict]) -> dict:
    """One GraphDocument dump holding ``rows`` (all of one document) as relationships, its
    nodes and its source document, as ``GraphDocument.model_dump()`` writes them."""
    nodes: dict[str, dict] = {}
    relationships = []
    for r in rows:
        source = {"id": r["subject"], "type": "Person", "properties": {}}
        target = {"id": r["object"], "type": "Organisation", "properties": {}}
        nodes.setdefault(r["subject"], source)
        nodes.setdefault(r["object"], target)
        relationships.append(
            {"source": source, "target": target, "type": r["predicate"], "properties": {}}
        )
    doc = rows[0]["doc"]
    return {
        "nodes": list(nodes.values()),
        "relationships": relationships,
        "source": {
            "id": None,
            "metadata": {"source": doc},
            "page_content": f"Document {doc} text.",
            "type": "Document",
        },
    }


def _gold(gold, row: dict) -> None:
    fact = _fact(row)
    del fact["evidence"], fact["extractor"], fact["confidence"]
    gold.write(json.dumps({"doc_id": row["doc"], "fact": fact}) + "\n")


def _write_docs(folder: Path) -> None:
    with (folder / "docs.jsonl").open("w") as docs:
        for d in range(DOCS):
            docs.write(json.dumps({"id": f"doc_{d:05d}", "text": f"Document {d} text."}) + "\n")


def write_inputs(folder: Path, kind: str, size: int, seed: int = 0) -> Path:
    """Predictions of ``kind`` (about ``size`` bytes; a JSONL file, or GraphRAG's folder),
    gold.jsonl and docs.jsonl."""
    if kind == "graphrag":
        return _write_graphrag(folder, size, seed)
    rng = random.Random(seed)
    path = folder / f"{kind}.jsonl"
    written = count = 0
    group: list[dict] = []
    with path.open("w") as out, (folder / "gold.jsonl").open("w") as gold:
        while written < size or group:
            row = _triple(count, rng)
            if count % 3 == 0:
                _gold(gold, row)
            count += 1
            if kind in ("langextract", "langchain"):
                group.append(row)
                if len(group) < 50:
                    continue
                record = _langextract(group) if kind == "langextract" else _langchain(group)
                group = []
                line = json.dumps(record)
            else:
                line = json.dumps(_fact(row) if kind == "facts" else row)
            out.write(line + "\n")
            written += len(line) + 1
    _write_docs(folder)
    return path


def _unit(d: int) -> str:
    """A text unit's id as GraphRAG writes it (SHA-512 hex, tests/fixtures/adapters/graphrag)."""
    return hashlib.sha512(f"unit {d}".encode()).hexdigest()


def _write_graphrag(folder: Path, size: int, seed: int) -> Path:
    """A GraphRAG 2.x output folder (CSV): a text unit per document, its relationships, ids
    as GraphRAG writes them (SHA-512 hex for documents and text units, UUIDs for rows)."""
    rng = random.Random(seed)
    out = folder / "graphrag"
    out.mkdir()
    with (out / "documents.csv").open("w", newline="") as handle:
        table = csv.writer(handle)
        table.writerow(["id", "human_readable_id", "title", "text"])
        for d in range(DOCS):
            gdoc = hashlib.sha512(f"doc {d}".encode()).hexdigest()
            table.writerow([gdoc, d, f"doc_{d:05d}", f"Document {d} text."])
    with (out / "text_units.csv").open("w", newline="") as handle:
        table = csv.writer(handle)
        table.writerow(["id", "human_readable_id", "text", "n_tokens", "document_ids"])
        for d in range(DOCS):
            gdoc = hashlib.sha512(f"doc {d}".encode()).hexdigest()
            table.writerow([_unit(d), d, f"Document {d} text.", 4, json.dumps([gdoc])])
    written = count = 0
    with (
        (out / "relationships.csv").open("w", newline="") as handle,
        (folder / "gold.jsonl").open("w") as gold,
    ):
        table = csv.writer(handle)
        table.writerow(["id", "human_readable_id", "source", "target", "description", "weight",
                        "combined_degree", "text_unit_ids"])  # fmt: skip
        while written < size:
            row = _triple(count, rng)
            if count % 3 == 0:
                _gold(gold, row)
            unit = int(row["doc"][4:])
            cells = [str(uuid.UUID(int=rng.getrandbits(128), version=4)), count, row["subject"],
                     row["object"], row["predicate"], 1.0, 2, str([_unit(unit)])]  # fmt: skip
            table.writerow(cells)
            written += sum(len(str(c)) + 1 for c in cells)
            count += 1
    _write_docs(folder)
    return out


def _write_submission(folder: Path, size: int) -> Path:
    """Text2KGBench response rows for the movie set's sentences, about ``size`` bytes: each
    sentence's gold triples, then made-up ones, row after row."""
    bench = folder / "movie"
    subprocess.run(
        [str(Path(sys.executable).with_name("odke")), "bench", "prepare", "text2kgbench",
         str(ROOT / "data"), "--ontology", "ont_1_movie", "--out", str(bench)],
        check=True, capture_output=True,
    )  # fmt: skip
    sentences = [json.loads(line) for line in (bench / "gold.jsonl").open()]
    path = folder / "submission.jsonl"
    written = extra = 0
    with path.open("w") as out:
        while written < size or extra == 0:
            for s in sentences:
                triples = [[t["sub"], t["rel"], t["obj"]] for t in s["triples"]]
                triples += [[t["sub"], t["rel"], f"made up {extra}"] for t in s["triples"]]
                line = json.dumps({"id": s["id"], "triples": triples})
                out.write(line + "\n")
                written += len(line) + 1
                if written >= size:
                    break
            extra += 1
    return path


_RUN = """import json

def run(documents):
    with open({path!r}, encoding="utf-8") as rows:
        for line in rows:
            yield json.loads(line)
"""


_EACH = """import json

class Extract:
    def __init__(self):
        with open({index!r}, encoding="utf-8") as index:
            self.spans = json.load(index)

    def extract(self, document):
        start, end = self.spans.get(document.id, (0, 0))
        with open({path!r}, "rb") as rows:
            rows.seek(start)
            return [json.loads(line) for line in rows.read(end - start).splitlines()]
"""


def _by_document(said: Path, folder: Path) -> tuple[Path, Path]:
    """The triples file's rows grouped by document, and where each document's rows lie."""
    groups: dict[str, list[bytes]] = {}
    with said.open("rb") as rows:
        for line in rows:
            groups.setdefault(json.loads(line)["doc"], []).append(line)
    path, spans, at = folder / "by_doc.jsonl", {}, 0
    with path.open("wb") as out:
        for doc, lines in groups.items():
            block = b"".join(lines)
            out.write(block)
            spans[doc] = (at, at + len(block))
            at += len(block)
    index = folder / "by_doc.json"
    index.write_text(json.dumps(spans))
    return path, index


def command(kind: str, folder: Path, size: int) -> tuple[list[str], int]:
    """The ``odke`` arguments scoring ``kind`` in ``folder`` and the input's size in bytes."""
    report = ["--report", str(folder / "report.json")]
    if kind == "submission":
        said = _write_submission(folder, size)
        return ["eval", "pipeline", "--bench", str(folder / "movie"), "--predictions", str(said),
                *report], said.stat().st_size  # fmt: skip
    source = "triples" if kind in ("cmd", "run", "extractor") else kind
    said = write_inputs(folder, source, size)
    gold = ["--labels", str(folder / "gold.jsonl"), "--documents", str(folder / "docs.jsonl")]
    measured = (
        sum(f.stat().st_size for f in said.iterdir()) if said.is_dir() else said.stat().st_size
    )
    if kind == "cmd":
        return ["eval", "pipeline", *gold, "--cmd", f"cp {said} {{out}}", *report], measured
    if kind == "run":
        (folder / "pipe.py").write_text(_RUN.format(path=str(said)))
        return ["eval", "pipeline", *gold, "--run", f"{folder / 'pipe.py'}:run", *report], measured
    if kind == "extractor":
        path, index = _by_document(said, folder)
        (folder / "each.py").write_text(_EACH.format(path=str(path), index=str(index)))
        run = f"{folder / 'each.py'}:Extract"
        return ["eval", "pipeline", *gold, "--run", run, *report], measured
    adapter = ["--adapter", "triples" if kind == "facts" else kind]
    return ["eval", "pipeline", *gold, "--predictions", str(said), *adapter, *report], measured


def _tree(root: int) -> list[int]:
    """``root`` and every process under it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            return next(int(line.split()[1]) for line in handle if line.startswith("Pss:"))
    except (OSError, StopIteration):
        return 0


def run_measured(args: list[str]) -> tuple[float, float]:
    """Run the venv's ``odke`` with ``args``: wall seconds and peak memory (MB): the largest of
    its max RSS and the sampled PSS of its process tree."""
    odke = Path(sys.executable).with_name("odke")
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen([str(odke), *args], stdout=out, stderr=err, text=True)
        peak_kb = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak_kb
            while not done.wait(0.02):
                peak_kb = max(peak_kb, sum(_pss_kb(p) for p in _tree(child.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            sys.exit(f"odke {' '.join(args[:2])} failed: {err.read().strip()}")
    return seconds, max(usage.ru_maxrss, peak_kb) / 1024


def measure(kind: str, size: int) -> tuple[float, float, float]:
    """(input MB, seconds, peak MB) of scoring ``kind`` predictions of about ``size`` bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        args, measured = command(kind, Path(tmp), size)
        seconds, peak = run_measured(args)
    return measured / (1 << 20), seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100)
    parser.add_argument("--kinds", default=KINDS)
    parser.add_argument("--limit", type=float, default=4.0, help="(peak - base) / input allowed")
    args = parser.parse_args()
    print(f"{load_note()}; limit (peak - base) / input <= {args.limit:g}")
    print(f"{'kind':12} {'input MB':>9} {'base MB':>8} {'peak MB':>8} {'peak/in':>8} "
          f"{'(peak-base)/in':>15} {'seconds':>8}  load")  # fmt: skip
    worst = 0.0
    for kind in args.kinds.split(","):
        _, _, base = measure(kind, 1024)
        file_mb, seconds, peak = measure(kind, int(args.mb * (1 << 20)))
        ratio = (peak - base) / file_mb
        worst = max(worst, ratio)
        print(
            f"{kind:12} {file_mb:9.1f} {base:8.0f} {peak:8.0f} {peak / file_mb:8.2f} "
            f"{ratio:15.2f} {seconds:8.1f}  {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    if worst > args.limit:
        print(f"over the {args.limit:g}x limit")
        sys.exit(1)


if __name__ == "__main__":
    main()
