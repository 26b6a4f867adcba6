"""--run: a function named by module:function or file.py:function, returning each row kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from openodke.errors import InputError, PipelineError
from openodke.eval.pipeline import collect, run_callable
from openodke.interop import TripleRow
from openodke.types import Document, Fact

SCRIPTS = Path(__file__).resolve().parent / "scripts"
FILE = SCRIPTS / "callables.py"
MODULE = "tests.eval.pipeline.scripts.callables"
DOCS = [Document(id="halden.txt", text="Ada founded Halden."), Document(id="b", text="Other.")]


@pytest.fixture(params=["module", "file"])
def spec(request):
    """``spec("facts")``: the function as module:function, or as path/to/file.py:function."""
    where = MODULE if request.param == "module" else str(FILE)
    return lambda name: f"{where}:{name}"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("dict_rows", TripleRow),
        ("triple_rows", TripleRow),
        ("generated", TripleRow),
        ("facts", Fact),
        ("Pipeline", TripleRow),
    ],
)
def test_each_row_kind_comes_back(spec, name, kind):
    items = run_callable(spec(name), DOCS)
    assert items and all(isinstance(item, kind) for item in items)
    expected = 1 if name == "Pipeline" else len(DOCS)
    assert len(items) == expected


@pytest.mark.parametrize("name", ["dict_rows", "triple_rows", "facts"])
def test_rows_and_facts_collect_to_the_same_facts(name):
    facts = collect(run_callable(f"{MODULE}:{name}", DOCS), DOCS).facts
    assert [(f.evidence[0].doc_id, f.predicate, f.object_entity.key) for f in facts] == [
        ("halden.txt", "founded", "Thing:halden"),
        ("b", "founded", "Thing:halden"),
    ]
    # Facts stay as the function made them; rows become facts of the triples extractor.
    assert {f.extractor for f in facts} == {"mine" if name == "facts" else "triples"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("raises", r"^raises failed on 2 documents: ValueError: cannot read 2 documents$"),
        (
            "broken_generator",
            r"^broken_generator failed on 2 documents: KeyError: 'missing model'$",
        ),
        ("returns_none", r"^returns_none returned NoneType: expected a list of triples rows"),
        ("returns_one_fact", r"^returns_one_fact returned Fact: expected a list"),
    ],
)
def test_a_failing_function_is_a_pipeline_error_naming_it(name, message):
    with pytest.raises(PipelineError, match=message):
        run_callable(f"{MODULE}:{name}", DOCS)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "bad_row",
            r"callables:bad_row: item 2: predicat: unknown field \(did you mean 'predicate'",
        ),
        (
            "not_a_row",
            r"item 1: expected a triples row \(a dict\), a TripleRow or a Fact, got tuple",
        ),
    ],
)
def test_a_bad_item_is_an_input_error_naming_it(name, message):
    with pytest.raises(InputError, match=message):
        run_callable(f"{MODULE}:{name}", DOCS)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tests.eval.pipeline.scripts.callables:nope", "has no attribute 'nope'"),
        ("no_such_module_xyz:run", "no module named 'no_such_module_xyz'"),
        ("missing/file.py:run", "no such file missing/file.py"),
        ("just_a_name", "expected package.module:Name"),
    ],
)
def test_specs_that_do_not_load_are_input_errors(spec, message):
    with pytest.raises(InputError, match=message):
        run_callable(spec, DOCS)


def test_the_function_gets_the_documents_as_a_list(tmp_path):
    module = tmp_path / "seen.py"
    module.write_text(
        "def run(documents):\n"
        "    assert isinstance(documents, list)\n"
        "    return [{'doc': d.id, 'subject': d.text, 'predicate': 'p', 'object': 1}"
        " for d in documents]\n"
    )
    items = run_callable(f"{module}:run", tuple(DOCS))
    assert [(r.doc, r.subject) for r in items] == [(d.id, d.text) for d in DOCS]
