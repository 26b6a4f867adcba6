"""The stage registry: names, options, custom classes, and names not built."""

from __future__ import annotations

from pathlib import Path

import pytest

from openodke import Entity, Fact
from openodke.errors import InputError
from openodke.llm import ModelRoles, ScriptedClient
from openodke.sinks import JsonlSink
from openodke.stages import (
    BUILT,
    STAGE_KINDS,
    LLMExtractor,
    NativeResolver,
    SentenceChunker,
    StageContext,
    TriplesExtractor,
    build_stage,
    stage_spec,
)
from openodke.stages.passthrough import PassthroughGate
from tests.stages.custom_stage import Shout, plain


def test_every_kind_has_its_built_names():
    assert set(BUILT) == set(STAGE_KINDS)
    assert set(BUILT["extractor"]) == {"pattern", "llm", "hybrid", "triples"}
    assert set(BUILT["loader"]) == {"text", "markdown", "directory", "jsonl", "csv"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("sentence", ("sentence", {})),
        ({"use": "sentence", "max_words": 5}, ("sentence", {"max_words": 5})),
    ],
)
def test_stage_spec(value, expected):
    assert stage_spec(value) == expected


def test_names_build_with_their_options_and_the_context_they_ask_for(ontology, tmp_path):
    chunker = build_stage("chunker", {"use": "sentence", "max_words": 50, "overlap": 1})
    assert isinstance(chunker, SentenceChunker) and (chunker.max_words, chunker.overlap) == (50, 1)
    resolver = build_stage("resolver", "native", StageContext(ontology=ontology))
    assert isinstance(resolver, NativeResolver) and resolver.ontology is ontology
    assert isinstance(build_stage("gate", "passthrough"), PassthroughGate)
    client = ScriptedClient([])
    context = StageContext(ontology=ontology, client=client, roles=ModelRoles.single("ollama/m"))
    llm = build_stage("extractor", {"use": "llm", "snippet_limit": 3}, context)
    assert isinstance(llm, LLMExtractor) and llm.client is client and llm.snippet_limit == 3
    (tmp_path / "t.jsonl").write_text(
        '{"doc": "a", "subject": "A", "predicate": "p", "object": 1}\n'
    )
    triples = build_stage(
        "extractor", {"use": "triples", "path": "t.jsonl"}, StageContext(base_dir=tmp_path)
    )
    assert isinstance(triples, TriplesExtractor) and triples.path == tmp_path / "t.jsonl"
    sink = build_stage(
        "sink", {"use": "jsonl", "directory": "out"}, StageContext(base_dir=tmp_path)
    )
    assert isinstance(sink, JsonlSink) and sink.directory == tmp_path / "out"


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("sink", "neo4j", r"^odke\.yaml:12: neo4j is not built$"),
        ("sink", {"use": "rdf"}, r"^odke\.yaml:12: rdf is not built$"),
        ("loader", "pdf", r"^odke\.yaml:12: pdf is not built$"),
        (
            "resolver",
            "natve",
            r"^odke\.yaml:12: stages\.resolver: unknown resolver 'natve' \(did you mean 'native'\?\); built: native, passthrough$",
        ),
        (
            "chunker",
            {"use": "sentence", "max_word": 5},
            r"stages\.chunker: sentence has no option 'max_word' \(did you mean 'max_words'\?\); its options: max_words, overlap",
        ),
        ("chunker", {"use": "sentence", "max_words": 0}, r"stages\.chunker: sentence: max_words"),
        ("extractor", "llm", r"stages\.extractor: llm needs an ontology"),
        ("resolver", {"use": "native", "ontology": "x"}, "native has no option 'ontology'"),
        ("scorer", {"max_words": 1}, r"stages\.scorer: a stage mapping needs `use: <name>`"),
        ("scorer", 3, r"stages\.scorer: expected a stage name"),
        (
            "normalizer",
            "tests.stages.nope:X",
            r"stages\.normalizer: 'tests\.stages\.nope:X': no module named 'tests\.stages\.nope'",
        ),
        ("normalizer", "tests.stages.custom_stage:Nope", r"custom_stage has no attribute 'Nope'"),
        (
            "normalizer",
            {"use": "tests.stages.custom_stage:plain", "x": 1},
            "is not a class, so it takes no options",
        ),
    ],
)
def test_problems_are_input_errors_at_the_config_line(kind, value, message):
    with pytest.raises(InputError, match=message) as caught:
        build_stage(kind, value, path="odke.yaml", line=12)
    assert caught.value.exit_code == 2


def test_the_llm_extractor_needs_a_client(ontology):
    with pytest.raises(InputError, match=r"llm needs a model client \(models\.extract\)"):
        build_stage("extractor", "llm", StageContext(ontology=ontology))


def test_a_custom_class_is_built_with_its_options_and_a_function_as_it_is(ontology):
    shout = build_stage(
        "normalizer",
        {"use": "tests.stages.custom_stage:Shout", "times": 2},
        StageContext(ontology=ontology),
    )
    assert isinstance(shout, Shout) and shout.times == 2 and shout.ontology is ontology
    fact = Fact(subject=Entity(key="a"), predicate="p", object_value="hi")
    assert shout.normalize([fact])[0].object_value == "HI!!"
    assert build_stage("normalizer", "tests.stages.custom_stage:plain") is plain
    path = Path(__file__).with_name("custom_stage.py")
    by_file = build_stage("normalizer", {"use": f"{path}:Shout", "times": 3})
    assert by_file.times == 3


def test_the_grounders_are_the_free_checks_alone_or_a_model_behind_them(ontology):
    from openodke.ground import CheckedGrounder, LLMGrounder
    from openodke.stages.grounding import ModelGrounder, SpanGrounder

    span = build_stage("grounder", "span", StageContext(ontology=ontology))
    assert isinstance(span, SpanGrounder) and isinstance(span, CheckedGrounder)
    assert span.inner is None and span.ontology is ontology
    context = StageContext(
        ontology=ontology, client=ScriptedClient([]), roles=ModelRoles.single("ollama/m")
    )
    llm = build_stage(
        "grounder", {"use": "llm", "locate": True, "max_workers": 2, "verdicts": "binary"}, context
    )
    assert isinstance(llm, ModelGrounder) and isinstance(llm.inner, LLMGrounder)
    assert (llm.inner.locate, llm.inner.max_workers, llm.inner.claim_format) == (True, 2, "paper")
    assert llm.inner.spec.model == "ollama/m" and llm.inner.client is context.client
    with pytest.raises(InputError, match=r"stages\.grounder: llm: grounder: context 'page'"):
        build_stage("grounder", {"use": "llm", "context": "page"}, context)


def test_load_inputs_reads_each_path_by_its_loader_and_numbers_repeats(tmp_path):
    from openodke.stages import load_inputs

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("A.")
    (tmp_path / "sheet.md").write_text("# S\nx: 1")
    (tmp_path / "r.csv").write_text("name\nAda\n")
    docs, warnings = load_inputs(
        ["notes", "sheet.md", {"path": "r.csv", "tier": "curated"}, "notes/a.txt"], tmp_path
    )
    assert [d.id for d in docs] == ["notes/a.txt", "sheet.md", "r.csv#L2", "notes/a.txt~2"]
    assert docs[2].tier.value == "curated" and warnings == []
    with pytest.raises(InputError, match=r"odke\.yaml:4: inputs\[0\]: /.*/missing: no such folder"):
        load_inputs(
            [{"path": "missing", "loader": "directory"}], tmp_path, path="odke.yaml", lines=[4]
        )
    with pytest.raises(InputError, match=r"odke\.yaml:4: html is not built"):
        load_inputs([{"path": "x.html", "loader": "html"}], tmp_path, path="odke.yaml", lines=[4])
