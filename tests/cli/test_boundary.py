"""The CLI's one error boundary, the guard on output paths, and how signals end a run."""

from __future__ import annotations

import json
import os
import random
import shlex
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_odke
from tests.fuzz.seeds import items_files, pipeline_files, write
from tests.support.children import alive, gone_soon

ODKE = [sys.executable, "-c", "import sys; from openodke.cli import entry; sys.exit(entry())"]


@pytest.fixture
def items(tmp_path: Path) -> tuple[Path, Path]:
    write(tmp_path, items_files())
    return tmp_path / "a.jsonl", tmp_path / "b.jsonl"


def boom(*args, **kwargs):
    raise RuntimeError("boom: nobody expected this")


def test_an_unexpected_exception_is_one_line_naming_command_inputs_and_debug(items, monkeypatch):
    monkeypatch.setattr("openodke.eval.compare.compare_runs", boom)
    a, b = items
    result = run_odke("eval", "compare", str(a), str(b))
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: odke eval compare failed unexpectedly on {a}, {b}: ")
    assert "RuntimeError: boom: nobody expected this" in line and "--debug" in line
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("where", ["first", "last"])
def test_debug_anywhere_on_the_line_shows_the_traceback(items, monkeypatch, where):
    monkeypatch.setattr("openodke.eval.compare.compare_runs", boom)
    a, b = items
    args = ["eval", "compare", str(a), str(b)]
    args = ["--debug", *args] if where == "first" else [*args, "--debug"]
    with pytest.raises(RuntimeError, match="boom"):
        run_odke(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--report", "{a}"], "--report would overwrite the input {a}"),
        (["--track-record", "{b}"], "--track-record would overwrite the input {b}"),
        (["--report", "{d}/r.json", "--track-record", "{d}/r.json"], "are the same path"),
        (["--report", "{d}"], "is a folder, expected a file path (--report)"),
        (["--track-record", "{d}"], "is a folder, expected a file path (--track-record)"),
        (["--report={a}"], "--report would overwrite the input {a}"),
    ],
)
def test_an_output_that_is_an_input_or_a_folder_is_refused_before_anything_runs(
    items, args, message
):
    a, b = items
    before = {p: p.read_bytes() for p in (a, b)}
    fill = {"a": str(a), "b": str(b), "d": str(a.parent)}
    result = run_odke("eval", "compare", str(a), str(b), *[x.format(**fill) for x in args])
    assert result.exit_code == 2
    assert message.format(**fill) in result.stderr
    assert {p: p.read_bytes() for p in (a, b)} == before


def test_a_hard_link_to_an_input_is_the_input(items, tmp_path):
    a, b = items
    os.link(a, tmp_path / "linked.json")
    result = run_odke("eval", "compare", str(a), str(b), "--report", str(tmp_path / "linked.json"))
    assert result.exit_code == 2 and "would overwrite the input" in result.stderr


def test_an_input_inside_an_output_folder_is_refused(tmp_path):
    write(tmp_path, pipeline_files())
    out = tmp_path / "out"
    out.mkdir()
    (out / "facts.jsonl").write_text((tmp_path / "triples.jsonl").read_text())
    result = run_odke(
        "ground", "--facts", str(out / "facts.jsonl"), "--texts", str(tmp_path / "docs.jsonl"),
        "-o", str(out),
    )  # fmt: skip
    assert result.exit_code == 2 and "is inside the output folder -o" in result.stderr


@pytest.mark.parametrize(
    "spelling",
    [["-o", "{out}"], ["-o{out}"], ["--out={out}"], ["--out", "{out}"], ["-o{link}"],
     ["--out", "{rel}"], ["-o{rel}"]],
)  # fmt: skip
def test_an_output_folder_holding_an_input_is_refused_however_spelled(
    tmp_path, monkeypatch, spelling
):
    """odke validate --config in/odke.yaml -oin overwrote its own input (issue 22)."""
    write(tmp_path, pipeline_files())
    folder = tmp_path / "in"
    folder.mkdir()
    facts = folder / "facts.jsonl"
    facts.write_text((tmp_path / "triples.jsonl").read_text())
    (tmp_path / "link").symlink_to(folder)
    monkeypatch.chdir(tmp_path)
    fill = {"out": str(folder), "link": str(tmp_path / "link"), "rel": "in"}
    args = [x.format(**fill) for x in spelling]
    before = facts.read_bytes()
    result = run_odke("ground", "--facts", "in/facts.jsonl", "--texts", "docs.jsonl", *args)
    assert result.exit_code == 2, result.stderr
    assert "is inside the output folder -o" in result.stderr or "--out" in result.stderr
    assert facts.read_bytes() == before


@pytest.mark.parametrize("spelling", [["-oin"], ["-o./in"], ["--out=in"], ["-o", "in/"]])
def test_validate_with_o_glued_to_its_config_folder_is_refused(tmp_path, monkeypatch, spelling):
    """The issue's own line: `odke validate --config in/odke.yaml -oin` overwrote in/facts.jsonl
    (issue 22): the config's triples are named facts.jsonl, what validate writes."""
    example = Path(__file__).resolve().parents[2] / "examples" / "triples"
    folder = tmp_path / "in"
    for name in ("ontology.json", "recorded/ground.json", "texts/halden.txt", "texts/orvik.txt"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes((example / name).read_bytes())
    (folder / "facts.jsonl").write_bytes((example / "triples.jsonl").read_bytes())
    config = (example / "odke.yaml").read_text().replace("triples.jsonl", "facts.jsonl")
    (folder / "odke.yaml").write_text(config)
    monkeypatch.chdir(tmp_path)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    result = run_odke("validate", "--config", "in/odke.yaml", *spelling)
    assert result.exit_code == 2, result.stderr
    assert "output" in result.stderr
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("flag", ["--report", "--items", "--track-record"])
def test_a_file_output_ending_in_a_slash_is_refused_naming_the_file_to_give(items, tmp_path, flag):
    a, b = items
    result = run_odke("eval", "compare", str(a), str(b), flag, f"{tmp_path}/newdir/")
    assert result.exit_code == 2
    assert (
        f"ends with '/': {flag} names a file, not a folder (say {tmp_path}/newdir/" in result.stderr
    )
    assert not (tmp_path / "newdir").exists()


@pytest.mark.parametrize(
    "spelling", [["--report", ""], ["--report="], ["--items", " "], ["--html", ""], ["-o", ""]]
)
def test_an_output_given_an_empty_path_is_refused(items, tmp_path, spelling):
    """Found probing option values (issue 22): ``Path("")`` is the current folder; the writer
    raised ValueError ("this is a bug") or wrote into the folder the command runs in."""
    a, b = items
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run_odke("eval", "compare", str(a), str(b), *spelling)
    assert result.exit_code == 2, result.stderr
    assert f"{spelling[0].rstrip('=')} is given an empty path" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("flag", ["--report", "--items", "--html"])
@pytest.mark.parametrize("through", ["itself", "a symlink"])
def test_an_output_that_is_a_fifo_or_device_is_refused_and_left_as_it_is(
    items, tmp_path, flag, through
):
    """Found probing option values (issue 22): `--report /dev/null` as root renamed the report
    over /dev/null, which became a regular file for every process on the machine. A FIFO
    stands for the device here (no root, no risk to /dev): it must still be a FIFO after."""
    a, b = items
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    target = fifo
    if through == "a symlink":
        target = tmp_path / "link"
        target.symlink_to(fifo)
    result = run_odke("eval", "compare", str(a), str(b), flag, str(target))
    assert result.exit_code == 2, result.stderr
    assert f"{target}: {flag} names a pipe (FIFO), not a file" in result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.path.islink(target) == (target != fifo)


def _odke(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [*ODKE, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def test_ctrl_c_at_any_moment_of_start_up_exits_130_without_a_traceback(items):
    a, b = items
    rng = random.Random(13)
    codes = []
    for _ in range(8):
        process = _odke(["eval", "compare", str(a), str(b)], a.parent)
        # From 80 ms: before that Python is still starting itself (importing site), and an
        # interrupt there is Python's to report, before any line of ours runs.
        time.sleep(rng.uniform(0.08, 0.6))
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        # -2: SIGINT came before Python had set up its handler (the shell shows 130 too);
        # 0: it finished first.
        assert process.returncode in (130, -signal.SIGINT, 0), err
        assert b"Traceback" not in out + err
        codes.append(process.returncode)
    assert 130 in codes or -signal.SIGINT in codes


AFTER = """
import os, signal, sys, time
from openodke.cli import entry
sys.argv = ["odke", "eval", "compare", sys.argv[1], sys.argv[2]]
try:
    entry()
except SystemExit:
    pass
os.kill(os.getpid(), signal.SIG{name})  # the interpreter is about to shut down
time.sleep(10)
print("not stopped")
"""


@pytest.mark.parametrize(("name", "code"), [("INT", 130), ("TERM", 143), ("HUP", 129)])
def test_a_signal_after_the_command_ends_it_without_a_traceback(items, name, code):
    """A Ctrl-C that lands after the command returned (joining threads at exit) printed a
    KeyboardInterrupt traceback from threading._shutdown (seen under load): the command's
    output stands, and the process ends at once with 128 + the signal."""
    a, b = items
    done = subprocess.run(
        [sys.executable, "-c", AFTER.replace("{name}", name), str(a), str(b)],
        capture_output=True, text=True, timeout=60, check=False, cwd=a.parent,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "not stopped" not in done.stdout
    assert "difference" in done.stdout  # what the command printed was flushed before


SLOW = """
import os, pathlib, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
pathlib.Path(sys.argv[1]).write_text(f"{os.getpid()} {child.pid}")
time.sleep(60)
"""


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)]
)
def test_a_signal_ends_the_cmd_process_group_and_removes_temp_folders(tmp_path, sig, code):
    write(tmp_path, pipeline_files())
    (tmp_path / "slow.py").write_text(SLOW)
    marker, temp = tmp_path / "pids", tmp_path / "tmp"
    temp.mkdir()
    cmd = f"{sys.executable} slow.py {marker} {{in}} {{out}}"
    process = _odke(
        ["eval", "pipeline", "--labels", "gold.jsonl", "--documents", "docs.jsonl", "--cmd", cmd],
        tmp_path,
        env={"TMPDIR": str(temp)},
    )
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    pids = [int(p) for p in marker.read_text().split()]
    assert any(temp.iterdir())  # {in} and {out} exist while the command runs
    process.send_signal(sig)
    _, err = process.communicate(timeout=15)
    assert process.returncode == code, err
    assert b"Traceback" not in err and (b"stopped by" in err or b"interrupted" in err)
    assert gone_soon(pids)  # the group is signalled before odke exits, and reaped soon after
    assert list(temp.iterdir()) == []


TREE = """
import os, pathlib, subprocess, sys, time
sleep = [sys.executable, "-c", "import signal, time; [signal.signal(s, signal.SIG_IGN) for s in (1, 2, 15)]; time.sleep(120)"]
kids = [subprocess.Popen(sleep) for _ in range(2)]
escaped = subprocess.Popen(sleep, start_new_session=True)  # setsid: out of the group
pathlib.Path(sys.argv[1]).write_text(" ".join(str(p) for p in [os.getpid(), escaped.pid, *(k.pid for k in kids)]))
time.sleep(120)
"""


def test_after_kill_9_of_odke_the_next_cmd_run_ends_the_tree_and_removes_its_folders(tmp_path):
    """kill -9 of odke left the command tree (a setsid child too) and both temp folders."""
    write(tmp_path, pipeline_files())
    (tmp_path / "tree.py").write_text(TREE)
    marker, temp = tmp_path / "pids", tmp_path / "tmp"
    temp.mkdir()
    args = ["eval", "pipeline", "--labels", "gold.jsonl", "--documents", "docs.jsonl"]
    cmd = f"{sys.executable} tree.py {marker} {{in}} {{out}}"
    process = _odke([*args, "--cmd", cmd], tmp_path, env={"TMPDIR": str(temp)})
    deadline = time.monotonic() + 60
    while not marker.exists() or len(marker.read_text().split()) < 4:
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    pids = [int(p) for p in marker.read_text().split()]
    process.kill()
    process.communicate(timeout=15)
    assert all(alive(pid) for pid in pids)  # orphans now, nobody ends them ...
    assert any(p.name.startswith("odke-in-") for p in temp.iterdir())
    (tmp_path / "quick.py").write_text(
        "import sys, shutil; shutil.copy('triples.jsonl', sys.argv[1])\n"
    )
    done = _odke([*args, "--cmd", f"{sys.executable} quick.py {{out}}"], tmp_path,
                 env={"TMPDIR": str(temp)})  # fmt: skip
    _, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    assert gone_soon(pids)  # ... but the next run does
    assert list(temp.iterdir()) == []


def test_in_names_never_start_with_a_dash_and_shell_scripts_get_quoted_paths(tmp_path):
    from openodke.eval.pipeline.runner import file_names, substitute
    from openodke.types import Document

    assert file_names([Document(id="--help", text="x")]) == {"--help": "_-help.txt"}
    where = Path("/tmp/a b'c")
    argv = ["sh", "-c", "python x.py {in} > {out}", "{in}"]
    got = substitute(argv, where, where / "out.jsonl")
    assert (
        got[2] == f"python x.py {shlex.quote(str(where))} > {shlex.quote(str(where / 'out.jsonl'))}"
    )
    assert got[3] == str(where)  # an argument of its own: no shell reads it
    assert substitute(["python", "x.py", "{in}"], where, where)[2] == str(where)


def test_a_pipe_to_cat_ends_when_odke_is_terminated(tmp_path):
    write(tmp_path, pipeline_files())
    (tmp_path / "slow.py").write_text(SLOW)
    marker = tmp_path / "pids"
    cmd = f"{sys.executable} slow.py {marker} {{in}} {{out}}"
    odke = " ".join(json.dumps(part) for part in ODKE)
    shell = subprocess.Popen(
        ["sh", "-c", f"{odke} eval pipeline --labels gold.jsonl --documents docs.jsonl "
         f"--cmd {json.dumps(cmd)} | cat; echo ended"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    found = subprocess.run(
        ["pgrep", "-s", str(shell.pid), "-f", f"^{sys.executable} -c .*openodke.cli"],
        capture_output=True,
        text=True,
    )
    (pid,) = found.stdout.split()  # odke itself, not the shell around it
    os.kill(int(pid), signal.SIGTERM)
    out, _ = shell.communicate(timeout=15)
    assert out.strip().endswith(b"ended")


def test_a_nan_or_negative_timeout_is_refused_before_anything_runs(tmp_path):
    write(tmp_path, pipeline_files())
    for value in ("nan", "-1", "inf", "0"):
        result = run_odke(
            "eval", "pipeline", "--labels", str(tmp_path / "gold.jsonl"), "--documents",
            str(tmp_path / "docs.jsonl"), "--cmd", "true {in} {out}", "--timeout", value,
        )  # fmt: skip
        assert result.exit_code == 2 and "--timeout must be a number of seconds" in result.stderr


def test_an_error_a_library_makes_of_a_ctrl_c_is_an_interruption(monkeypatch, capsys):
    """Ctrl-C raises Terminated wherever the program is; a library may catch it and raise its
    own error (pydantic building a model's schema gave a SchemaError, seen as a flake of the
    test above): the run still ends as interrupted, 130, not as a bug."""
    from openodke.cli import main as cli

    def wrapping(args):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt as error:
            raise RuntimeError("Error building schema") from error

    monkeypatch.setattr(cli, "check_paths", wrapping)
    with pytest.raises(SystemExit) as done:
        cli.main(["eval", "compare", "a.items.jsonl", "b.items.jsonl"])
    assert done.value.code == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "unexpectedly" not in err
