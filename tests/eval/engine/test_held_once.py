"""A score holds each column once: the sides' key tables read their rows from the matching's
table of both, and the columns as given read what alignment left unchanged from the aligned
ones; the values (and the score) are those of copies."""

from __future__ import annotations

import numpy as np
import pytest

from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.matching import match_keys
from openodke.eval.stages.extract import score_keys
from openodke.eval.stages.labels import GoldFact
from openodke.types import Entity, Evidence, Fact


def _corpus(untyped: bool = True) -> tuple[list[GoldFact], list[Fact]]:
    gold, said = [], []
    for i in range(60):
        doc = f"d{i % 4}"
        obj = {"object_entity": Entity(key=f"Org:o{i % 5}", type="Org")} if i % 2 else {}
        fact = Fact(
            subject=Entity(key=f"Person:p{i}", type="Person" if i % 3 or not untyped else "Thing"),
            predicate=["born", "works_for"][i % 2],
            **(obj or {"object_value": 1900 + i}),
        )
        gold.append(GoldFact(doc_id=doc, fact=fact))
        if i % 5:
            said.append(fact.model_copy(update={"evidence": (Evidence(doc_id=doc),)}))
    return gold, said


def test_the_sides_read_their_keys_from_the_table_of_both() -> None:
    gold, said = _corpus()
    g, p = FactColumns.of_gold(gold), FactColumns.of_facts(said)
    copies = {n: getattr(p.keys, n).copy() for n in ("subject_rest", "object_name", "predicate")}
    m = match_keys(g.docs, g.keys, p.docs, p.keys)
    for name, before in copies.items():
        side = getattr(p.keys, name)
        assert np.shares_memory(side, getattr(m.rows, name))
        assert np.array_equal(side, before)
    assert np.shares_memory(g.keys.key, m.rows.key)
    assert np.array_equal(p.keys.key, m.rows.key[len(g) :])


@pytest.mark.parametrize("untyped", [False, True], ids=["names-kept", "untyped-renamed"])
def test_columns_as_given_share_what_alignment_left_unchanged(untyped: bool) -> None:
    gold, said = _corpus(untyped)
    g, p = FactColumns.of_gold(gold), FactColumns.of_facts(said)
    given_nodes = g.subject_node.copy()
    score = score_keys(g, p)
    assert np.shares_memory(g.keys.subject_rest, score.gold.keys.subject_rest)
    aligned = score.gold.keys.subject_name
    # an untyped end named like a typed one is renamed by alignment: then both are kept
    assert np.array_equal(given_nodes, aligned) is not untyped
    assert np.shares_memory(g.subject_node, aligned) is not untyped
    assert np.array_equal(g.subject_node, given_nodes)
    # types as written are the effective ones where no end is untyped: held once then
    assert np.shares_memory(score.gold.subject_type, score.gold.keys.subject_type) is not untyped
    fresh = score_keys(FactColumns.of_gold(gold), FactColumns.of_facts(said))
    assert score.report().metrics == fresh.report().metrics
