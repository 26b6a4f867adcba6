"""A long fuzz campaign over every command: issue 13's fixed corpus, then seeded random mutations.

Each input is one command of the harness's table (tests/fuzz/commands.py) over valid seed files
with one file broken, run through the real entry point in a forked process. Printed: how many
runs gave a traceback, an exit code the issue does not allow, a refusal naming no file (or no
line), a hang, a process left behind, or a half-written output (a file written or changed by a
run that failed, or a temp file left), per command and in total, with the first few examples.
Exit 1 when any run had a problem.

    python bench/fuzz_campaign.py [--runs 5000] [--seed 0] [--workers 2] [--only "eval route"]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fuzz.commands import COMMANDS, run_case  # noqa: E402
from tests.fuzz.mutations import CORPUS, mutate_randomly  # noqa: E402

KINDS = {
    "traceback": "tracebacks",
    "exit": "wrong exit codes",
    "refusal names no input file": "refusals naming no file",
    "refusal names no line": "refusals naming no line",
    "hung": "hangs",
    "left": "leftover processes or temp files",
    "wrote on failure": "half-written outputs",
}


def _plan(runs: int, seed: int) -> list[tuple[str, str, str, int]]:
    """(command, target, mutation name or "random", seed) for each run: the corpus first."""
    plan: list[tuple[str, str, str, int]] = []
    for row in COMMANDS:
        for target, fmt in row.targets.items():
            plan += [(row.name, target, m.name, 0) for m in CORPUS if fmt in m.formats]
    rng = random.Random(seed)
    pairs = [(row.name, target) for row in COMMANDS for target in row.targets]
    while len(plan) < runs:
        name, target = rng.choice(pairs)
        plan.append((name, target, "random", rng.randrange(1 << 30)))
    return plan


def _kind(problem: str) -> str:
    for prefix, kind in KINDS.items():
        if problem.startswith(prefix):
            return kind
    return problem


def run_shard(plan: list[tuple[str, str, str, int]], out: Path) -> None:
    """Run ``plan`` and write one JSON line per run to ``out``."""
    rows = {row.name: row for row in COMMANDS}
    mutations = {m.name: m for m in CORPUS}
    base = Path(tempfile.mkdtemp(prefix="fuzz-campaign-"))
    base.chmod(0o755)
    try:
        with out.open("w", encoding="utf-8") as handle:
            for name, target, mutation, seed in plan:
                row = rows[name]
                chosen = mutate_randomly if mutation == "random" else mutations[mutation]
                case = run_case(row, target, chosen, base, seed=seed)
                record = {
                    "command": name,
                    "target": target,
                    "mutation": mutation,
                    "seed": seed,
                    "code": case.outcome.code,
                    "seconds": round(case.outcome.seconds, 3),
                    "problems": case.problems,
                    "stderr": case.outcome.stderr[-400:],
                }
                handle.write(json.dumps(record) + "\n")
                handle.flush()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", action="append", help="Run only these commands.")
    parser.add_argument("--shard", help=argparse.SUPPRESS)
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args()
    plan = _plan(args.runs, args.seed)
    if args.only:
        plan = [step for step in plan if step[0] in args.only]
    if args.shard:  # a worker: "index/count:output"
        where, out = args.shard.split(":", 1)
        index, count = map(int, where.split("/"))
        run_shard(plan[index::count], Path(out))
        return
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / f"shard-{i}.jsonl" for i in range(args.workers)]
        workers = [
            subprocess.Popen(
                [sys.executable, __file__, *sys.argv[1:], "--shard", f"{i}/{args.workers}:{o}"]
            )
            for i, o in enumerate(outs)
        ]
        codes = [worker.wait() for worker in workers]
        results = [
            json.loads(line)
            for out in outs
            if out.exists()
            for line in out.read_text(encoding="utf-8").splitlines()
        ]
    seconds = time.monotonic() - started
    _print(results, seconds, args.examples, codes)
    if any(r["problems"] for r in results) or any(codes) or len(results) < len(plan):
        sys.exit(1)


def _print(results: list[dict], seconds: float, examples: int, codes: list[int]) -> None:
    totals: Counter[str] = Counter()
    by_command: dict[str, Counter[str]] = defaultdict(Counter)
    shown: dict[str, list[str]] = defaultdict(list)
    for result in results:
        by_command[result["command"]]["runs"] += 1
        by_command[result["command"]][f"exit {result['code']}"] += 1
        for problem in result["problems"]:
            kind = _kind(problem)
            totals[kind] += 1
            by_command[result["command"]][kind] += 1
            if len(shown[kind]) < examples:
                last = (result["stderr"].strip().splitlines() or [""])[-1][:160]
                shown[kind].append(
                    f"{result['command']} | {result['target']} | {result['mutation']} "
                    f"(seed {result['seed']}) | exit {result['code']} | {last}"
                )
    bad = sum(1 for r in results if r["problems"])
    print(f"fuzz campaign: {len(results)} runs in {seconds:.0f} s, {bad} with a problem")
    for kind in KINDS.values():
        print(f"  {kind:36} {totals.get(kind, 0)}")
    print("per command (runs, exit codes, problems):")
    for name in sorted(by_command):
        counts = by_command[name]
        exits = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k.startswith("exit"))
        problems = ", ".join(
            f"{k} {v}"
            for k, v in sorted(counts.items())
            if k != "runs" and not k.startswith("exit")
        )
        print(f"  {name:28} {counts['runs']:5}  {exits}  {problems}")
    for kind, lines in shown.items():
        print(f"examples of {kind}:")
        for line in lines:
            print(f"  {line}")
    if any(codes):
        print(f"worker exit codes: {codes}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
