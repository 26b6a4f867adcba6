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


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "import sys\ndef run(documents):\n    sys.exit(3)\n",
            "run called sys.exit(3) on 1 document",
        ),
        ("def run(documents):\n    raise SystemExit('bye')\n", "run called sys.exit('bye')"),
        (
            "import sys\ndef run(documents):\n    yield {'doc': 'a'}\n    sys.exit(0)\n",
            "run called sys.exit(0) on 1 document",
        ),
    ],
)
def test_a_function_calling_sys_exit_is_a_pipeline_error_not_odkes_exit(tmp_path, body, message):
    """Its sys.exit(n) went through as odke's own exit status (issue 22)."""
    module = tmp_path / "exits.py"
    module.write_text(body)
    with pytest.raises(PipelineError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_callable(f"{module}:run", [Document(id="a", text="x")])


@pytest.mark.parametrize(
    "body",
    [
        "import time\ndef run(documents):\n    time.sleep(60)\n",
        "def run(documents):\n    while True:\n        try:\n            pass\n"
        "        except Exception:\n            pass\n",
    ],
)
def test_run_stops_at_its_timeout(tmp_path, body):
    import time

    module = tmp_path / "slow.py"
    module.write_text(body)
    started = time.monotonic()
    with pytest.raises(PipelineError, match=r"did not return within --timeout 0.5 s"):
        run_callable(f"{module}:run", [Document(id="a", text="x")], timeout=0.5)
    assert time.monotonic() - started < 10


def test_the_cli_exits_1_when_run_exits_or_passes_its_timeout(tmp_path):
    from tests.conftest import run_odke

    (tmp_path / "gold.jsonl").write_text(
        '{"doc_id": "a", "fact": {"subject": {"key": "P:x"}, "predicate": "p", "object_value": 1}}\n'
    )
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "a.txt").write_text("x")
    labels = ["--labels", str(tmp_path / "gold.jsonl"), "--documents", str(tmp_path / "texts")]
    (tmp_path / "exits.py").write_text("import sys\ndef run(documents):\n    sys.exit(7)\n")
    (tmp_path / "slow.py").write_text("import time\ndef run(documents):\n    time.sleep(60)\n")
    done = run_odke("eval", "pipeline", *labels, "--run", f"{tmp_path}/exits.py:run")
    assert done.exit_code == 1 and "called sys.exit(7)" in done.stderr
    done = run_odke(
        "eval", "pipeline", *labels, "--run", f"{tmp_path}/slow.py:run", "--timeout", "0.5"
    )
    assert done.exit_code == 1 and "did not return within --timeout 0.5 s" in done.stderr
