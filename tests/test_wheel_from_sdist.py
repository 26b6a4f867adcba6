"""The wheel a user gets is built from the sdist, with the C extension compiled (issue 20).

The project's tracked files are copied aside (so nothing built in this tree, the in-place
``_keyhash`` module above all, can leak in), an sdist is made of them with setuptools' own
PEP 517 hooks, a wheel is built from the unpacked sdist alone, and the wheel is installed into a
fresh virtual environment that borrows this one's dependencies (offline, no registry). From that
installed copy, ``odke --version`` must say the compiled engine runs and ``_keyhash`` must load
from the installed wheel. Skipped, with the reason, only where no C compiler exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What the installed package reads at run time (pyproject's package-data) and what builds it.
SDIST_NEEDS = (
    "pyproject.toml",
    "setup.py",
    "src/openodke/eval/engine/_keyhash.c",
    "src/openodke/llm/prices.json",
    "src/openodke/llm/prices-source.txt",
    "src/openodke/eval/eval_report.schema.json",
    "src/openodke/validation_report.schema.json",
    "src/openodke/interop/triples.schema.json",
    "src/openodke/py.typed",
)
WHEEL_NEEDS = tuple(
    name.removeprefix("src/")
    for name in SDIST_NEEDS
    if name.startswith("src/") and "_keyhash" not in name
)


def _compiler() -> str | None:
    words = (sysconfig.get_config_var("CC") or "cc").split()
    return shutil.which(words[0]) if words else None


def _run(*command: str | Path, cwd: Path) -> str:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [str(word) for word in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def _tracked(root: Path) -> list[str]:
    """The files git tracks under src/ plus the top-level build files (what CI checks out)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "src"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: skip build outputs
        listed = [
            str(path.relative_to(root))
            for path in (root / "src").rglob("*")
            if path.is_file()
            and "__pycache__" not in path.parts
            and ".egg-info" not in str(path)
            and path.suffix not in (".so", ".pyd", ".pyc")
        ]
    return [*listed, "pyproject.toml", "setup.py", "README.md", "LICENSE"]


def _hook(hook: str, out: Path, cwd: Path) -> Path:
    """Call setuptools' PEP 517 ``hook`` in ``cwd`` (no isolation: this venv's setuptools)."""
    code = (
        "import sys; from setuptools import build_meta as backend; "
        f"sys.stderr.write('BUILT ' + backend.{hook}({str(out)!r}) + '\\n')"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    name = next(line for line in done.stderr.splitlines() if line.startswith("BUILT "))
    return out / name.removeprefix("BUILT ")


@pytest.mark.skipif(_compiler() is None, reason="no C compiler: the wheel would be pure Python")
def test_a_wheel_built_from_the_sdist_runs_the_compiled_engine(tmp_path):
    from importlib.metadata import version

    major = int(version("setuptools").split(".")[0])
    assert major >= 77, (
        f"setuptools {version('setuptools')} cannot read pyproject.toml's license (PEP 639): "
        "the dev extras need setuptools>=77; rerun .venv/bin/pip install -e '.[dev]'"
    )
    source = tmp_path / "checkout"
    for name in _tracked(ROOT):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    assert not list(source.rglob("*.so")), "a built module was copied into the checkout"

    sdist = _hook("build_sdist", tmp_path / "dist", source)
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.removeprefix(f"{top}/") for name in archive.getnames()}
        missing = [name for name in SDIST_NEEDS if name not in names]
        assert missing == [], f"the sdist lacks {missing}"
        archive.extractall(tmp_path / "unpacked", filter="data")

    wheel = _hook("build_wheel", tmp_path / "wheels", tmp_path / "unpacked" / top)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert [name for name in WHEEL_NEEDS if name not in names] == []
    assert any(
        name.startswith("openodke/eval/engine/_keyhash") and name.endswith((".so", ".pyd"))
        for name in names
    ), "the wheel holds no compiled _keyhash"

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(
        _run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path
        ).strip()
    )
    # this environment's dependencies (its site-packages as a plain path: its own .pth files,
    # this checkout's editable install among them, are not read)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
        "--no-compile", "-q", wheel, cwd=tmp_path,
    )  # fmt: skip

    version = _run(venv / "bin" / "odke", "--version", cwd=tmp_path)
    assert "engine: compiled" in version, version
    where = _run(
        python, "-c", "import openodke.eval.engine._keyhash as k, openodke as o; "
        "print(k.__file__); print(o.__file__)", cwd=tmp_path,
    ).split()  # fmt: skip
    assert all(Path(path).is_relative_to(site) for path in where), where
