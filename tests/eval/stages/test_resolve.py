"""The resolve evaluator: pairwise counts and B-cubed over labelled pairs."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke import EntityLink, LinkKind
from openodke.errors import InputError
from openodke.eval.stages.labels import LinkRow, PairLabel
from openodke.eval.stages.resolve import evaluate_resolution, links_from_clusters, load_links
from tests.eval import spec_stage_names


def test_spec_example(monkeypatch):
    spec_stage_names.provide(monkeypatch)
    # --- spec: resolve ---
    from openodke.eval import PairLabel, evaluate_resolution, links_from_clusters

    pairs = [
        PairLabel(a="acme", b="acme-inc", same=True),
        PairLabel(a="acme", b="acme-gmbh", same=False),
    ]
    merged_by_platform = links_from_clusters([["acme", "acme-inc", "acme-gmbh"]])
    report = evaluate_resolution(pairs, merged_by_platform)

    assert (report.metrics["pairwise_recall"], report.metrics["pairwise_precision"]) == (1.0, 0.5)
    # --- end spec ---


def same(a: str, b: str) -> PairLabel:
    return PairLabel(a=a, b=b, same=True)


def apart(a: str, b: str) -> PairLabel:
    return PairLabel(a=a, b=b, same=False)


# (pairs, links, similar_as_same, (tp, fp, fn, tn)). Working in each comment.
PAIRWISE = [
    # a–b, b–c same_as: a~c is joined through b (tp); a~d is never linked (tn).
    (
        [same("a", "c"), apart("a", "d")],
        [("a", "b", "same_as"), ("b", "c", "same_as")],
        False,
        (1, 0, 0, 1),
    ),
    # a different b joins nothing: labelled same, not joined (fn); precision has no joined pair.
    ([same("a", "b")], [("a", "b", "different")], False, (0, 0, 1, 0)),
    # similar is no decision by default (fn) ...
    ([same("a", "b")], [("a", "b", "similar")], False, (0, 0, 1, 0)),
    # ... and a join with similar_as_same (tp).
    ([same("a", "b")], [("a", "b", "similar")], True, (1, 0, 0, 0)),
    # one wrong merge x–y–z: x~y same (tp), x~z different but joined (fp), y~w same not linked (fn).
    (
        [same("x", "y"), apart("x", "z"), same("y", "w")],
        [("x", "y", "same_as"), ("y", "z", "same_as")],
        False,
        (1, 1, 1, 0),
    ),
]


@pytest.mark.parametrize(("pairs", "links", "similar", "counts"), PAIRWISE)
def test_pairwise_counts_on_hand_worked_cases(pairs, links, similar, counts):
    report = evaluate_resolution(pairs, links, similar_as_same=similar)
    tp, fp, fn, tn = counts
    assert tuple(report.metrics[k] for k in ("tp", "fp", "fn", "tn")) == counts
    assert report.metrics["pairwise_precision"] == (tp / (tp + fp) if tp + fp else None)
    assert report.metrics["pairwise_recall"] == (tp / (tp + fn) if tp + fn else None)
    assert report.metrics["pairwise_accuracy"] == (tp + tn) / len(pairs)


def test_link_rows_entity_links_and_tuples_are_all_links():
    pairs = [same("a", "b"), same("b", "c"), same("c", "d")]
    links = [
        LinkRow(a="a", b="b"),
        EntityLink(source_key="b", target_key="c", kind=LinkKind.same_as),
        ("c", "d"),
        EntityLink(source_key="d", target_key="e"),  # similar by default
        LinkRow(a="a", b="z", kind="different"),
    ]
    report = evaluate_resolution(pairs, links)
    assert report.metrics["tp"] == 3
    assert (report.metrics["links_same_as"], report.metrics["links_similar"]) == (3, 1)
    assert report.metrics["links_different"] == 1
    assert any("similar links, no decision" in n for n in report.notes)


def test_cluster_counts_are_over_the_labelled_keys():
    # gold: {a, b}, {c}; predicted: a–c joined, b alone → {a, c}, {b}.
    report = evaluate_resolution([same("a", "b"), apart("a", "c")], [("a", "c", "same_as")])
    assert (report.metrics["gold_clusters"], report.metrics["predicted_clusters"]) == (2, 2)
    # B-cubed by hand: a: C={a,c}, G={a,b}, overlap 1 → P 1/2, R 1/2; b: C={b}, G={a,b} → P 1, R 1/2;
    # c: C={a,c}, G={c} → P 1/2, R 1. Precision (1/2+1+1/2)/3 = 2/3; recall (1/2+1/2+1)/3 = 2/3.
    assert report.metrics["bcubed_precision"] == pytest.approx(2 / 3)
    assert report.metrics["bcubed_recall"] == pytest.approx(2 / 3)
    assert report.metrics["bcubed_f1"] == pytest.approx(2 / 3)


def test_labels_that_contradict_themselves_are_noted():
    report = evaluate_resolution([same("a", "b"), same("b", "c"), apart("a", "c")], [])
    assert any("contradict themselves" in n and "a/c" in n for n in report.notes)


@pytest.mark.parametrize(
    ("pairs", "links"),
    [([], []), ([], [("a", "b", "same_as")]), ([same("a", "b")], [])],
)
def test_degenerate_tables_give_none_not_nan(pairs, links):
    report = evaluate_resolution(pairs, links)
    json.dumps(report.model_dump(mode="json"), allow_nan=False)
    assert report.metrics["pairwise_precision"] is None
    assert report.notes
    if not pairs:
        assert report.metrics["bcubed_precision"] is None
        assert report.metrics["pairwise_recall"] is None
        assert report.notes[0] == "no labelled pair: every rate is undefined"
    else:
        assert report.metrics["pairwise_recall"] == 0.0
        assert "no links given" in report.notes[0]


# --- B-cubed and pairwise against a brute-force computation -----------------------------------


def components(keys, edges):
    """Connected components by breadth-first search: each key → the set it belongs to."""
    neighbours = {k: set() for k in keys}
    for a, b in edges:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    seen = {}
    for start in neighbours:
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            for nxt in neighbours[frontier.pop()]:
                if nxt not in group:
                    group.add(nxt)
                    frontier.append(nxt)
        for member in group:
            seen[member] = group
    return seen


KEY = st.sampled_from("abcdefg")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(KEY, KEY, st.booleans()), min_size=1, max_size=12),
    st.lists(
        st.tuples(KEY, KEY, st.sampled_from(["same_as", "similar", "different"])), max_size=12
    ),
)
def test_bcubed_and_pairwise_match_brute_force(pair_rows, link_rows):
    pairs = [PairLabel(a=a, b=b, same=s) for a, b, s in pair_rows]
    report = evaluate_resolution(pairs, link_rows)
    keys = list(dict.fromkeys(k for a, b, _ in pair_rows for k in (a, b)))
    gold = components(keys, [(a, b) for a, b, s in pair_rows if s])
    predicted_all = components(keys, [(a, b) for a, b, kind in link_rows if kind == "same_as"])
    predicted = {k: predicted_all[k] & set(keys) for k in keys}
    precision = sum(len(gold[k] & predicted[k]) / len(predicted[k]) for k in keys) / len(keys)
    recall = sum(len(gold[k] & predicted[k]) / len(gold[k]) for k in keys) / len(keys)
    assert report.metrics["bcubed_precision"] == pytest.approx(precision)
    assert report.metrics["bcubed_recall"] == pytest.approx(recall)
    joined = [b in predicted_all[a] for a, b, _ in pair_rows]
    assert report.metrics["tp"] == sum(
        j and s for j, (_, _, s) in zip(joined, pair_rows, strict=True)
    )
    assert report.metrics["fp"] == sum(
        j and not s for j, (_, _, s) in zip(joined, pair_rows, strict=True)
    )
    assert report.metrics["gold_clusters"] == len({frozenset(g) for g in gold.values()})
    assert report.metrics["predicted_clusters"] == len({frozenset(p) for p in predicted.values()})


# --- links_from_clusters and load_links -------------------------------------------------------


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        ([["a", "b", "c"]], [("a", "b"), ("b", "c")]),
        ([["a"], ["b", "b", "c"]], [("b", "c")]),  # a singleton makes no link; repeats collapse
        ([], []),
    ],
)
def test_links_from_clusters_chains_each_group(groups, expected):
    links = links_from_clusters(groups)
    assert [(link.a, link.b) for link in links] == expected
    assert all(link.kind == "same_as" for link in links)


def test_load_links_reads_link_rows_and_a_sinks_entity_links(tmp_path):
    path = tmp_path / "links.jsonl"
    entity_link = EntityLink(source_key="x", target_key="y", kind=LinkKind.same_as)
    path.write_text(
        '{"a": "a", "b": "b", "kind": "similar"}\n\n' + entity_link.model_dump_json() + "\n"
    )
    assert [(r.a, r.b, r.kind) for r in load_links(path)] == [
        ("a", "b", "similar"),
        ("x", "y", "same_as"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": "a", "b": "b", "kind": "merge"}\n', "links.jsonl:1: kind"),
        ('{"a": "a"}\n{"a": "a", "b": "b", "weight": 1}\n', "links.jsonl:1: b: missing"),
        ('{"source_key": "x", "target_key": "y", "oops": 1}\n', "links.jsonl:1: oops: unknown key"),
        ("[1, 2]\n", "links.jsonl:1: expected a JSON object"),
    ],
)
def test_load_links_names_the_bad_line(tmp_path, text, message):
    path = tmp_path / "links.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_links(path)
    assert message in str(caught.value)
