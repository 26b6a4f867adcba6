"""How fast does `odke` start? `odke --version` and `odke <command> --help` against a bare
`python -c pass`, best of N, timed in the same run (issue 20).

    .venv/bin/python bench/startup.py [--runs 5]

Targets (quiet 2-core machine): `odke --version` ≤ 6x `python -c pass`; `odke eval extract
--help` ≤ 10x. Prints each time, its ratio, the modules each loads and the load average, since
the machine is shared and only ratios from one run compare.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ODKE = [sys.executable, str(Path(sys.executable).parent / "odke")]
LINES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    # The floor under any typer CLI's --help here: typer 0.29 imports pydantic to coerce values.
    "bare typer app --help": [
        sys.executable,
        "-c",
        "import typer; app = typer.Typer(rich_markup_mode=None); app.command()(lambda x=1: None); "
        "app(['--help'])",
    ],
    "odke --version": [*ODKE, "--version"],
    "odke eval extract --help": [*ODKE, "eval", "extract", "--help"],
    "odke eval pipeline --help": [*ODKE, "eval", "pipeline", "--help"],
    "odke ground --help": [*ODKE, "ground", "--help"],
    "odke --help": [*ODKE, "--help"],
    "odke eval --help": [*ODKE, "eval", "--help"],
    "odke validate --help": [*ODKE, "validate", "--help"],
    "odke run --help": [*ODKE, "run", "--help"],
    "odke bench run --help": [*ODKE, "bench", "run", "--help"],
    "odke label --help": [*ODKE, "label", "--help"],
    "odke report --help": [*ODKE, "report", "--help"],
    # A help line click parses (an option before the last word): typer's path, with pydantic.
    "odke eval extract --help --help": [*ODKE, "eval", "extract", "--help", "--help"],
}
TARGETS = {"odke --version": 6.0, "odke eval extract --help": 10.0}


# What a user's machine does: compiled modules cached in __pycache__ (a shell that sets
# PYTHONDONTWRITEBYTECODE would compile every module of the package at every start).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def best(command: list[str], runs: int) -> tuple[float, float]:
    """The fastest of ``runs`` wall-clock times of ``command``, and the least CPU (user + system)
    it took: on a busy machine the CPU time says more than the wall clock."""
    times, cpus = [], []
    subprocess.run(command, check=True, capture_output=True, env=ENV)  # writes __pycache__
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=ENV)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(times), min(cpus)


def modules(command: list[str]) -> int:
    """How many modules the command imports (`-X importtime` lines)."""
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
    return sum(1 for line in done.stderr.splitlines() if line.startswith("import time:"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    base, base_cpu = best(LINES["python -c pass"], args.runs)
    worst = ("", 0.0)
    for name, command in LINES.items():
        took, cpu = (base, base_cpu) if name == "python -c pass" else best(command, args.runs)
        ratio = took / base
        if name.endswith(" --help") and not name.endswith("--help --help") and ratio > worst[1]:
            worst = (name, ratio)
        target = TARGETS.get(name)
        verdict = (
            ""
            if target is None
            else f"  target ≤ {target:g}x: {'ok' if ratio <= target else 'OVER'}"
        )
        print(
            f"{name:32} {took * 1000:7.1f} ms {ratio:5.1f}x  cpu {cpu * 1000:6.1f} ms "
            f"{cpu / base_cpu:5.1f}x  {modules(command):4d} modules{verdict}"
        )
    print(f"worst `<command> --help`: {worst[0]} {worst[1]:.1f}x")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
