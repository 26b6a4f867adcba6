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
}
TARGETS = {"odke --version": 6.0, "odke eval extract --help": 10.0}


def best(command: list[str], runs: int) -> float:
    """The fastest of ``runs`` wall-clock times of ``command``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def modules(command: list[str]) -> int:
    """How many modules the command imports (`-X importtime` lines)."""
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]], capture_output=True, text=True, check=True
    )
    return sum(1 for line in done.stderr.splitlines() if line.startswith("import time:"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    base = best(LINES["python -c pass"], args.runs)
    for name, command in LINES.items():
        took = base if name == "python -c pass" else best(command, args.runs)
        ratio = took / base
        target = TARGETS.get(name)
        verdict = (
            ""
            if target is None
            else f"  target ≤ {target:g}x: {'ok' if ratio <= target else 'OVER'}"
        )
        print(
            f"{name:28} {took * 1000:7.1f} ms  {ratio:5.1f}x  {modules(command):4d} modules{verdict}"
        )
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
