"""JsonlSink and the sink check: write twice, count once after each write."""

from __future__ import annotations

import json
import os

import pytest

from openodke import Entity, EntityLink, Fact, KnowledgeGraph, LinkKind
from openodke.eval.stages.sink import assert_idempotent, check_idempotency, jsonl_counts
from openodke.sinks import JsonlSink
from tests.eval import spec_stage_names
from tests.eval.stages.test_ground import spec_ground_example

ADA = Entity(key="Person:ada", type="Person", label="Ada")
LONDON = Entity(key="City:london", type="City")


def graph() -> KnowledgeGraph:
    return KnowledgeGraph(
        entities=(ADA, LONDON),
        facts=(
            Fact(id="f1", subject=ADA, predicate="born", object_value=1815),
            Fact(id="f2", subject=ADA, predicate="born_in", object_entity=LONDON),
        ),
        links=(EntityLink(source_key="Person:ada", target_key="Person:a", kind=LinkKind.similar),),
        ontology_name="people",
        stats={"documents": 1},
    )


def test_spec_example(monkeypatch, capsys):
    spec_stage_names.provide(monkeypatch)
    labels = spec_ground_example()  # the sink example uses the ground example's labels
    capsys.readouterr()
    # --- spec: sink ---
    import tempfile

    from openodke import KnowledgeGraph
    from openodke.eval import assert_idempotent, jsonl_counts
    from openodke.sinks import JsonlSink

    graph = KnowledgeGraph(facts=tuple(row.fact for row in labels))
    with tempfile.TemporaryDirectory() as out:
        report = assert_idempotent(JsonlSink(out), graph, jsonl_counts(out))

    print(report.notes)
    # ('idempotent: every count unchanged over 2 writes',)
    # --- end spec ---
    assert capsys.readouterr().out.splitlines() == [
        "('idempotent: every count unchanged over 2 writes',)"
    ]


def test_jsonl_sink_writes_four_files_one_model_per_line(tmp_path):
    written = graph()
    manifest = JsonlSink(tmp_path).write(written)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "entities.jsonl",
        "facts.jsonl",
        "links.jsonl",
        "manifest.json",
    ]
    facts = (tmp_path / "facts.jsonl").read_text().splitlines()
    assert facts == [f.model_dump_json() for f in written.facts]
    assert [Fact.model_validate_json(line) for line in facts] == list(written.facts)
    entities = (tmp_path / "entities.jsonl").read_text().splitlines()
    assert [Entity.model_validate_json(line) for line in entities] == [ADA, LONDON]
    links = (tmp_path / "links.jsonl").read_text().splitlines()
    assert json.loads(links[0])["kind"] == "similar"
    on_disk = json.loads((tmp_path / "manifest.json").read_text())
    assert on_disk == manifest
    assert {
        k: on_disk[k] for k in ("ontology", "entities", "facts", "edges", "properties", "links")
    } == {
        "ontology": "people",
        "entities": 2,
        "facts": 2,
        "edges": 1,
        "properties": 1,
        "links": 1,
    }
    assert on_disk["stats"] == {"documents": 1}
    assert on_disk["created_at"] == written.model_dump(mode="json")["created_at"]


def test_a_failed_write_leaves_the_previous_files_whole(tmp_path, monkeypatch):
    sink = JsonlSink(tmp_path)
    sink.write(graph())
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        sink.write(KnowledgeGraph())
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no temp file left


def test_jsonl_sink_is_idempotent_over_three_writes(tmp_path):
    report = check_idempotency(JsonlSink(tmp_path), graph(), jsonl_counts(tmp_path), writes=3)
    assert report.metrics == {"writes": 3, "counts": 3, "changed": 0}
    assert report.breakdown["facts.jsonl"] == {
        "write 1": 2,
        "write 2": 2,
        "write 3": 2,
        "unchanged": True,
    }
    assert report.notes == ("idempotent: every count unchanged over 3 writes",)


class AppendingSink:
    """A sink that appends instead of replacing: not idempotent."""

    def __init__(self) -> None:
        self.rows: list[Fact] = []

    def write(self, graph: KnowledgeGraph) -> None:
        self.rows.extend(graph.facts)


def test_a_sink_that_appends_fails_the_assertion():
    sink = AppendingSink()
    report = check_idempotency(sink, graph(), lambda: len(sink.rows))
    assert report.metrics["changed"] == 1
    assert report.notes == ("not idempotent over 2 writes: count 2 → 4",)
    other = AppendingSink()
    with pytest.raises(AssertionError, match="rows 2 → 4"):
        assert_idempotent(other, graph(), lambda: {"rows": len(other.rows)})


def test_a_count_that_appears_later_is_a_change():
    calls = iter([{"a": 1}, {"a": 1, "b": 2}])
    report = check_idempotency(AppendingSink(), graph(), lambda: next(calls))
    assert report.breakdown["b"] == {"write 1": None, "write 2": 2, "unchanged": False}
    assert report.notes[0] == "not idempotent over 2 writes: b — → 2"


def test_nothing_counted_is_untested_not_passed():
    report = assert_idempotent(AppendingSink(), KnowledgeGraph(), lambda: {})
    assert report.metrics["changed"] is None
    assert report.notes[0] == "nothing was counted over 2 writes: idempotency is untested"


def test_an_empty_graph_is_idempotent(tmp_path):
    report = assert_idempotent(JsonlSink(tmp_path), KnowledgeGraph(), jsonl_counts(tmp_path))
    assert report.n == 0 and report.metrics["changed"] == 0


def test_fewer_than_two_writes_is_refused():
    with pytest.raises(ValueError):
        check_idempotency(AppendingSink(), graph(), lambda: 0, writes=1)


def test_jsonl_counts_counts_non_blank_lines_per_file(tmp_path):
    count = jsonl_counts(tmp_path / "later")
    assert count() == {}
    (tmp_path / "later").mkdir()
    (tmp_path / "later" / "b.jsonl").write_text("{}\n\n{}\r\n")
    (tmp_path / "later" / "a.jsonl").write_text("")
    (tmp_path / "later" / "notes.txt").write_text("x\n")
    assert count() == {"a.jsonl": 0, "b.jsonl": 2}
