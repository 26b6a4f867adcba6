"""The --cmd runner, on real subprocesses: failures, timeouts, leftovers, names, no shell."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from openodke.errors import InputError, PipelineError
from openodke.eval.pipeline import CommandResult, collect, file_names, run_command
from openodke.types import Document

SCRIPT = Path(__file__).resolve().parent / "scripts" / "fake_pipeline.py"
DOCS = [
    Document(id="halden.txt", text="Halden Robotics was founded in 2019."),
    Document(id="veska.txt", text="Veska Labs is in Porto.\r\n"),
]


def cmd(mode: str, record: Path | None = None, *extra: str) -> str:
    parts = [sys.executable, str(SCRIPT), mode, "{in}", "{out}"]
    parts += [str(record)] if record is not None else []
    return shlex.join(parts + list(extra))


def gone(pid: int, wait: float = 5.0) -> bool:
    """True once ``pid`` is dead: no such process, or a zombie waiting for init to reap it."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            state = ""
        if state in {"Z", "X"}:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_ok_writes_one_file_per_document_and_returns_the_output(tmp_path):
    record = tmp_path / "record.json"
    with run_command(cmd("ok", record), DOCS) as ran:
        assert isinstance(ran, CommandResult)
        assert ran.out_path.is_file() and ran.seconds > 0
        assert ran.names == {"halden.txt": "halden.txt", "veska.txt": "veska.txt"}
        rows = [json.loads(line) for line in ran.out_path.read_text().splitlines()]
        assert [r["doc"] for r in rows] == ["halden", "veska"]
        seen = json.loads(record.read_text())
        # The texts are written exactly: CRLF survives, so offsets into them hold.
        assert seen["files"] == {"halden.txt": DOCS[0].text, "veska.txt": DOCS[1].text}
        assert not Path(seen["in"]).exists()  # {in} is gone as soon as the command is done
        out_dir = ran.out_path.parent
    assert not out_dir.exists()  # leaving the with block deletes {out}'s folder


def test_cleanup_without_with(tmp_path):
    ran = run_command(cmd("ok"), DOCS)
    assert ran.out_path.exists()
    ran.cleanup()
    ran.cleanup()
    assert not ran.out_path.parent.exists()


def test_non_zero_exit_names_the_code_and_the_last_stderr_line(tmp_path):
    record = tmp_path / "record.json"
    with pytest.raises(PipelineError, match=r"^command exited 3: RuntimeError: out of memory$"):
        run_command(cmd("fail", record), DOCS)
    assert not Path(json.loads(record.read_text())["in"]).exists()


def test_timeout_kills_the_whole_process_group(tmp_path):
    record = tmp_path / "record.json"
    started = time.monotonic()
    with pytest.raises(
        PipelineError,
        match=r"^command timed out after 1 s \(killed its process group\); give it longer with "
        r"--timeout SECONDS$",
    ):
        run_command(cmd("sleep", record), DOCS, timeout=1)
    assert time.monotonic() - started < 4  # SIGTERM sufficed: no wait for the grace period
    seen = json.loads(record.read_text())
    assert gone(seen["pid"]) and gone(seen["child"])
    assert not Path(seen["in"]).exists()


def test_timeout_sigkills_processes_that_ignore_sigterm(tmp_path):
    record = tmp_path / "record.json"
    started = time.monotonic()
    with pytest.raises(PipelineError, match="timed out after 1 s"):
        run_command(cmd("stubborn", record), DOCS, timeout=1, kill_grace=0.5)
    assert 1.5 <= time.monotonic() - started < 5
    seen = json.loads(record.read_text())
    assert gone(seen["pid"]) and gone(seen["child"])


def test_children_left_running_after_a_clean_exit_are_ended(tmp_path):
    record = tmp_path / "record.json"
    with run_command(cmd("leave", record), DOCS) as ran:
        assert ran.out_path.read_text().count("\n") == 2
    assert gone(json.loads(record.read_text())["child"])


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("nothing", r"^command wrote nothing at \S+out\.jsonl$"),
        ("stdout", r"^command wrote nothing at \S+ \(it printed \d+ bytes to stdout instead\)$"),
    ],
)
def test_writing_nothing_fails_and_leaves_no_temp_folders(tmp_path, mode, message):
    record = tmp_path / "record.json"
    with pytest.raises(PipelineError, match=message) as caught:
        run_command(cmd(mode, record), DOCS)
    out_path = Path(str(caught.value).split(" at ")[1].split(" ")[0])
    assert not out_path.parent.exists()
    assert not Path(json.loads(record.read_text())["in"]).exists()


def test_empty_folder_or_blank_file_is_nothing(tmp_path):
    make_dir = shlex.join([sys.executable, "-c", "import os, sys; os.mkdir(sys.argv[1])", "{out}"])
    with pytest.raises(PipelineError, match="wrote nothing"):
        run_command(make_dir, DOCS)
    blank = shlex.join([sys.executable, "-c", "open(__import__('sys').argv[1], 'w').write(' \\n')"])
    with pytest.raises(PipelineError, match="wrote nothing"):
        run_command(blank + " {out}", DOCS)


def test_a_child_process_may_write_the_output():
    with run_command(cmd("child"), DOCS) as ran:
        facts = collect(ran.out_path, DOCS, names=ran.names, from_command=True).facts
    assert [f.evidence[0].doc_id for f in facts] == ["halden.txt", "veska.txt"]


def test_half_line_is_a_pipeline_error_for_a_command():
    half = r"^command wrote a half line at \S+out\.jsonl:2 "
    with run_command(cmd("half"), DOCS) as ran, pytest.raises(PipelineError, match=half):
        collect(ran.out_path, DOCS, names=ran.names, from_command=True)


def test_command_not_found():
    with pytest.raises(PipelineError, match=r"^command not found: odke-no-such-command-x$"):
        run_command("odke-no-such-command-x {in} {out}", DOCS)


def test_killed_by_a_signal():
    suicide = shlex.join(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "{out}"]
    )
    with pytest.raises(PipelineError, match=r"^command was killed by SIGKILL$"):
        run_command(suicide, DOCS)


def test_no_shell_metacharacters_reach_the_command_literally(tmp_path):
    literal = ["a;b", "$(touch pwned)", "`touch pwned2`", "|", "&&", "x > y", "$HOME", "*"]
    with run_command(cmd("argv", None, *literal), DOCS, workdir=tmp_path) as ran:
        got = [json.loads(line)["object"] for line in ran.out_path.read_text().splitlines()]
    assert got[-len(literal) :] == literal
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing touched, nothing redirected


def test_placeholders_inside_an_argument_and_workdir(tmp_path):
    (tmp_path / "pipe.py").write_text(
        "import sys, pathlib\n"
        "_, i, o = sys.argv\n"
        "i, o = i.split('=', 1)[1], o.split('=', 1)[1]\n"
        "names = sorted(p.name for p in pathlib.Path(i).iterdir())\n"
        "pathlib.Path(o).write_text(f'{names}\\n')\n"
    )
    # A relative script path resolves against workdir.
    with run_command(f"{sys.executable} pipe.py --in={{in}} --out={{out}}", DOCS, workdir=tmp_path) as ran:  # fmt: skip
        assert ran.out_path.read_text() == "['halden.txt', 'veska.txt']\n"


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("python x.py {in}", r"has no \{out\}"),
        ("python 'x.py {out}", "cannot split it into arguments"),
        ("   ", "--cmd is empty"),
    ],
)
def test_bad_commands_are_input_errors(command, message):
    with pytest.raises(InputError, match=message):
        run_command(command, DOCS)


def test_missing_workdir_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="working folder does not exist"):
        run_command(cmd("ok"), DOCS, workdir=tmp_path / "nope")


@pytest.mark.parametrize(
    ("ids", "names"),
    [
        (["halden.txt"], ["halden.txt"]),
        (["halden"], ["halden.txt"]),
        (["texts/a/halden.txt"], ["texts_a_halden.txt"]),
        (["a/b.txt", "a_b.txt", "a\\b"], ["a_b.txt", "a_b~2.txt", "a_b~3.txt"]),
        (["Halden.txt", "halden.txt"], ["Halden.txt", "halden~2.txt"]),  # case-insensitive disks
        ([".hidden", "..", ".txt"], ["_hidden.txt", "_..txt", "doc.txt"]),
        (["x~2", "x", "x"], ["x_2.txt", "x.txt"]),  # ~ is reserved for ours; an id twice: once
        (["corpus/register.csv#L2"], ["corpus_register.csv_L2.txt"]),
        (["Tromsø rapport.txt"], ["Tromsø_rapport.txt"]),
        (["a\x00b:c*d?.txt"], ["a_b_c_d_.txt"]),
    ],
)
def test_file_names(ids, names):
    assert list(file_names([Document(id=i, text="t") for i in ids]).values()) == names


def test_long_ids_are_cut_to_a_safe_length():
    (name,) = file_names([Document(id="ø" * 400, text="t")]).values()
    assert len(name.encode()) <= 160 and name.endswith(".txt")


def test_names_with_slashes_reach_the_command_and_match_back(tmp_path):
    docs = [Document(id="a/b.txt", text="one"), Document(id="a_b.txt", text="two")]
    record = tmp_path / "record.json"
    with run_command(cmd("ok", record), docs) as ran:
        assert json.loads(record.read_text())["files"] == {"a_b.txt": "one", "a_b~2.txt": "two"}
        collected = collect(ran.out_path, docs, names=ran.names, from_command=True)
    # The rows name "a_b" and "a_b~2": the harness names, mapped back to the ids.
    assert [f.evidence[0].doc_id for f in collected.facts] == ["a/b.txt", "a_b.txt"]
    assert collected.dropped == 0
