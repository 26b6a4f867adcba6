"""A stand-in pipeline for the --cmd runner tests: ``fake_pipeline.py MODE IN OUT [RECORD]``.

Modes: ok (one triples row per text, ``doc`` = its file name without .txt), fail (exit 3), sleep
and stubborn (start a sleeping child, then sleep; stubborn ignores SIGTERM), nothing, half (a row
then a cut-off one), child (a child process writes the output), argv (one row per argument),
stdout (prints rows instead of writing OUT), leave (exits 0 leaving a sleeping child behind).
RECORD, when given, gets a JSON object: the IN path, its files and texts, argv, and any pids.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
STUBBORN = [
    sys.executable,
    "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)",
]


def rows(folder: Path) -> str:
    lines = []
    for file in sorted(folder.iterdir()):
        text = file.read_bytes().decode("utf-8")
        first = text.split()[0] if text.split() else "nothing"
        lines.append(json.dumps({"doc": file.name[: -len(".txt")], "subject": first,
                                 "predicate": "says", "object": len(text)}))  # fmt: skip
    return "".join(line + "\n" for line in lines)


def main() -> int:
    mode, in_dir, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    record_path = Path(sys.argv[4]) if len(sys.argv) > 4 and mode != "argv" else None
    record: dict = {"in": str(in_dir), "argv": sys.argv[1:], "pid": __import__("os").getpid()}
    if in_dir.is_dir():
        record["files"] = {f.name: f.read_bytes().decode("utf-8") for f in in_dir.iterdir()}

    def save() -> None:
        if record_path is not None:
            record_path.write_text(json.dumps(record), encoding="utf-8")

    if mode in {"sleep", "stubborn", "leave"}:
        if mode == "stubborn":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(STUBBORN if mode == "stubborn" else SLEEPER)
        record["child"] = child.pid
        save()
        if mode == "leave":
            out.write_text(rows(in_dir), encoding="utf-8")
            return 0
        time.sleep(60)
        return 0
    save()
    if mode == "ok":
        out.write_text(rows(in_dir), encoding="utf-8")
    elif mode == "fail":
        print("loading model", file=sys.stderr)
        print("RuntimeError: out of memory", file=sys.stderr)
        print("", file=sys.stderr)
        return 3
    elif mode == "half":
        good = {"doc": "a", "subject": "x", "predicate": "p", "object": 1}
        out.write_text(json.dumps(good) + "\n" + '{"doc": "a", "subj', encoding="utf-8")
    elif mode == "child":
        return subprocess.run([sys.executable, __file__, "ok", str(in_dir), str(out)]).returncode
    elif mode == "argv":
        lines = [{"doc": "a", "subject": "arg", "predicate": "p", "object": a} for a in sys.argv]
        out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    elif mode == "stdout":
        sys.stdout.write(rows(in_dir))
    elif mode != "nothing":
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
