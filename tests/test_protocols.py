"""Stage protocols, verdict models and load_stage (``--run package.module:Name``)."""

from __future__ import annotations

import sys
import textwrap

import pytest
from pydantic import ValidationError

from openodke import Document, Entity, Fact
from openodke.errors import InputError, PipelineError
from openodke.protocols import (
    Gate,
    Grounder,
    Router,
    RouteVerdict,
    Scorer,
    Sink,
    ValidationVerdict,
    as_route_verdict,
    as_validation_verdict,
    bind_stage,
    call_stage,
    load_stage,
)

STAGES = """
class MyGate:
    def decide(self, fact):
        return {"action": "accept"}


class NeedsArgs:
    def __init__(self, ontology):
        self.ontology = ontology


def route(text):
    return "skip"


INSTANCE = MyGate()
"""


@pytest.fixture
def stages(tmp_path, monkeypatch):
    """A package ``odke_test_stages_<n>`` on sys.path, removed again after the test."""
    name = f"odke_test_stages_{abs(hash(str(tmp_path)))}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(STAGES)
    (package / "broken.py").write_text("raise RuntimeError('boom at import')\n")
    (package / "needs_dep.py").write_text("import odke_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def test_a_class_is_built_with_no_arguments(stages):
    gate = load_stage(f"{stages}.mod:MyGate")
    assert type(gate).__name__ == "MyGate" and isinstance(gate, Gate)


def test_a_function_or_instance_is_returned_as_is(stages):
    route = load_stage(f"{stages}.mod:route")
    assert route("x") == "skip"
    assert type(load_stage(f"{stages}.mod:INSTANCE")).__name__ == "MyGate"


def test_a_file_path_spec_loads_the_file(tmp_path):
    path = tmp_path / "my_router.py"
    path.write_text(textwrap.dedent(STAGES))
    assert load_stage(f"{path}:route")("text") == "skip"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nocolon", "expected package.module:Name"),
        (":Name", "expected package.module:Name"),
        ("{pkg}.mod:", "expected package.module:Name"),
        ("{pkg}.mod:not-a-name", "expected package.module:Name"),
        ("{pkg}.missing:Thing", "no module named"),
        ("{pkg}.mod:Nothing", "has no attribute 'Nothing'"),
        ("{pkg}.mod:NeedsArgs", "cannot be built with no arguments"),
        ("{pkg}.broken:X", "importing {pkg}.broken failed: boom at import"),
        ("{pkg}.needs_dep:X", "odke_no_such_dependency"),
        ("no/such/file.py:run", "no such file"),
    ],
)
def test_bad_specs_are_input_errors(stages, spec, message):
    with pytest.raises(InputError) as caught:
        load_stage(spec.format(pkg=stages))
    assert message.format(pkg=stages) in str(caught.value)
    assert caught.value.exit_code == 2


def test_verdict_models_are_frozen_and_strict():
    verdict = RouteVerdict(action="skip", label="ad")
    assert verdict.scope == "chunk" and verdict.reason is None
    with pytest.raises(ValidationError):
        verdict.action = "extract"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        ValidationVerdict(action="accept", extra="x")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ValidationVerdict(action="maybe")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "answer",
    ["skip", {"action": "skip", "label": "ad"}, RouteVerdict(action="skip", label="ad")],
)
def test_route_answers_of_any_shape_are_read(answer):
    assert as_route_verdict(answer).action == "skip"


def test_validation_answers_keep_their_reason():
    assert as_validation_verdict({"action": "refuse", "reason": "why"}).reason == "why"
    with pytest.raises(InputError, match="a gate answered"):
        as_validation_verdict(None)


class Everything:
    def ground(self, fact, document):
        return fact

    def score(self, fact):
        return fact

    def decide(self, fact):
        return ValidationVerdict(action="accept")

    def route(self, text):
        return RouteVerdict(action="extract")

    def write(self, graph):
        return None


@pytest.mark.parametrize("protocol", [Grounder, Scorer, Gate, Router, Sink])
def test_protocols_are_structural(protocol):
    assert isinstance(Everything(), protocol)
    assert not isinstance(object(), protocol)


def test_bind_stage_takes_a_method_or_a_function():
    fact = Fact(subject=Entity(key="a"), predicate="p", object_value=1)
    assert bind_stage(Everything(), "ground")(fact, Document(text="t")) is fact
    assert bind_stage(len, "ground") is len
    with pytest.raises(InputError, match="is a class"):
        bind_stage(Everything, "ground")
    with pytest.raises(InputError, match="no ground\\(\\) method"):
        bind_stage(42, "ground")


def test_call_stage_turns_a_stage_error_into_a_pipeline_error():
    with pytest.raises(PipelineError, match="failed on label 3: ZeroDivisionError"):
        call_stage(lambda: 1 / 0, where="label 3")
    with pytest.raises(InputError):  # our own typed errors pass through
        call_stage(lambda: as_validation_verdict(None), where="x")
