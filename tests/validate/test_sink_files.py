"""JsonlSink.files: the four files with a run's manifest keys added, never replacing the sink's."""

from __future__ import annotations

import json

from openodke import Entity, Fact, KnowledgeGraph
from openodke.sinks import JsonlSink


def test_extra_manifest_keys_come_after_the_sinks_and_never_replace_one(tmp_path):
    fact = Fact(id="f1", subject=Entity(key="a"), predicate="p", object_value=1)
    graph = KnowledgeGraph(facts=(fact,), entities=(fact.subject,), ontology_name="o")
    files = JsonlSink(tmp_path).files(graph, {"manifest_version": 1, "facts": 99})
    assert [p.name for p, _ in files] == [
        "facts.jsonl",
        "entities.jsonl",
        "links.jsonl",
        "manifest.json",
    ]
    manifest = json.loads(files[-1][1])
    assert manifest["facts"] == 1 and manifest["manifest_version"] == 1
    assert list(manifest)[-1] == "manifest_version"
    assert json.loads(files[0][1])["id"] == "f1"
    # A relative directory is the run config's folder's.
    assert JsonlSink("out", base_dir=tmp_path).directory == tmp_path / "out"
