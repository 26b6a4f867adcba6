from openodke import __version__
from openodke.eval.engine import keyhash
from tests.conftest import run_odke


def test_version_prints_the_package_version():
    result = run_odke("--version")
    assert result.exit_code == 0
    first, engine = result.stdout.splitlines()
    assert first == f"openodke {__version__}"
    assert engine.startswith("engine: compiled" if keyhash.COMPILED else "engine: pure Python")


def test_unknown_command_is_a_usage_error():
    assert run_odke("nonsense").exit_code == 2
