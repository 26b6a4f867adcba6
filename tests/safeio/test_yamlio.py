"""openodke.safeio.yamlio: safe tags, bounded nesting and alias expansion."""

from __future__ import annotations

import time

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.errors import InputError
from openodke.safeio import MAX_NESTING, MAX_YAML_NODES, load_yaml, read_yaml


def bomb(levels: int = 9, width: int = 9) -> str:
    """The "billion laughs": each level an anchor listing the one before ``width`` times."""
    lines = ["a0: &a0 [" + ",".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{','.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def test_a_440_byte_alias_bomb_is_refused_at_once():
    text = bomb()
    assert len(text) < 460
    started = time.monotonic()
    with pytest.raises(InputError, match=f"c.yaml:\\d+: expands to more than {MAX_YAML_NODES:,}"):
        load_yaml(text, path="c.yaml")
    assert time.monotonic() - started < 1


def test_a_few_aliases_read_as_yaml_reads_them():
    text = "base: &base {model: m, max_tokens: 10}\nextract: *base\nground:\n  <<: *base\n  x: 1\n"
    assert load_yaml(text, path="c.yaml") == yaml.safe_load(text)


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a {b: *a}\n", "a: &a [1, [2, *a]]\n"])
def test_an_alias_inside_its_own_anchor_is_refused(text):
    with pytest.raises(InputError, match="c.yaml:1: the alias \\*a is inside its own anchor"):
        load_yaml(text, path="c.yaml")


def test_nesting_past_the_limit_is_refused():
    ok = "a: " + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)
    assert load_yaml(ok, path="c.yaml") is not None
    with pytest.raises(InputError, match="nested deeper"):
        load_yaml("a: " + "[" * MAX_NESTING + "]" * MAX_NESTING, path="c.yaml")
    with pytest.raises(InputError):
        load_yaml("a: " + "[" * 5000 + "]" * 5000, path="c.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: !!python/object:os.system x\n", "invalid YAML"),
        ("a: " + "1" * 5000 + "\n", "invalid YAML"),
        ('a: "\\ud800"\n', "invalid YAML"),
        ("a: [1, 2\n", "c.yaml:2: invalid YAML"),
    ],
)
def test_unsafe_or_broken_yaml_is_an_input_error(text, message):
    with pytest.raises(InputError, match=message):
        load_yaml(text, path="c.yaml")


@given(st.text(max_size=120))
@settings(max_examples=300, deadline=None)
def test_any_text_loads_or_gives_an_input_error_naming_the_file(text):
    try:
        load_yaml(text, path="c.yaml")
    except InputError as error:
        assert str(error).startswith("c.yaml")


def test_read_yaml_refuses_a_file_past_its_size_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("ODKE_MAX_YAML_MB", "1")
    path = tmp_path / "c.yaml"
    path.write_text("# x\n" * 300_000)
    with pytest.raises(InputError, match="set ODKE_MAX_YAML_MB to allow more"):
        read_yaml(path)
