"""The numpy matcher against a plain-loop reference of surface.md's three passes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.eval.engine.matching import STATUS_NAMES, MatchKey, decode_key, encode_key, match_keys


def reference(gold_docs, gold_keys, pred_docs, pred_keys):
    """Surface.md's rules, one row at a time: per document exact, same subject, same object."""
    g_status = ["missing"] * len(gold_keys)
    seen = set()
    for i, pair in enumerate(zip(gold_docs, gold_keys, strict=True)):
        if pair in seen:
            g_status[i] = "duplicate"
        seen.add(pair)
    known = set(gold_docs)
    p_status, p_doc = ["spurious"] * len(pred_keys), [None] * len(pred_keys)
    seen = set()
    for j, docs in enumerate(pred_docs):
        if not docs:
            continue
        doc = next((d for d in docs if d in known), None)
        if doc is None:
            p_status[j] = "unscored"
        elif (doc, pred_keys[j]) in seen:
            p_status[j] = "duplicate"
        else:
            seen.add((doc, pred_keys[j]))
            p_doc[j] = doc

    def subject_group(k):
        k = decode_key(k)
        return (k.predicate, k.subject, k.subject_type, k.polarity, k.scoped)

    def object_group(k):
        k = decode_key(k)
        return (k.predicate, k.literal, k.object, k.object_type, k.polarity)

    def passes(candidates, same_doc):
        for name, group in (
            ("exact", lambda k: k),
            ("subject", subject_group),
            ("object", object_group),
        ):
            for j in candidates:
                if p_status[j] != "spurious":
                    continue
                for i in range(len(gold_keys)):
                    if g_status[i] != "missing":
                        continue
                    if same_doc and gold_docs[i] != p_doc[j]:
                        continue
                    if group(gold_keys[i]) == group(pred_keys[j]):
                        if name == "exact":
                            kind = "hit"
                        elif (
                            name == "subject"
                            and decode_key(gold_keys[i]).literal
                            and decode_key(pred_keys[j]).literal
                        ):
                            kind = "wrong_value"
                        else:
                            kind = "wrong_entity"
                        g_status[i] = p_status[j] = kind
                        break

    passes([j for j in range(len(pred_keys)) if p_doc[j] is not None], same_doc=True)
    uncited, seen_keys = [], set()
    for j, docs in enumerate(pred_docs):
        if not docs:
            if pred_keys[j] in seen_keys:
                p_status[j] = "duplicate"
            else:
                seen_keys.add(pred_keys[j])
                uncited.append(j)
    passes(uncited, same_doc=False)
    return g_status, p_status


def key(predicate, subject, obj, literal, polarity="asserted"):
    kind = "" if literal else "T"
    return encode_key(MatchKey(predicate, subject, "T", literal, obj, kind, polarity, ()))


rows = st.tuples(
    st.sampled_from(["p", "q"]),
    st.sampled_from(["a", "b"]),
    st.sampled_from(["x", "y", "z"]),
    st.booleans(),
    st.sampled_from(["asserted", "denied"]),
)


@settings(max_examples=300, deadline=None)
@given(
    gold=st.lists(st.tuples(st.sampled_from(["d1", "d2"]), rows), max_size=10),
    pred=st.lists(
        st.tuples(st.sampled_from([(), ("d1",), ("d2",), ("d3",), ("d3", "d2")]), rows),
        max_size=10,
    ),
)
def test_matcher_agrees_with_the_plain_loop_reference(gold, pred):
    gold_docs = [d for d, _ in gold]
    gold_keys = [key(*r) for _, r in gold]
    pred_docs = [d for d, _ in pred]
    pred_keys = [key(*r) for _, r in pred]
    m = match_keys(gold_docs, gold_keys, pred_docs, pred_keys)
    want_g, want_p = reference(gold_docs, gold_keys, pred_docs, pred_keys)
    got_g = [STATUS_NAMES[s] for s in m.gold_status]
    got_p = [STATUS_NAMES[s] for s in m.pred_status]
    # Pairings may differ in which equal row is taken, never in how many of each kind.
    assert sorted(got_g) == sorted(want_g)
    assert sorted(got_p) == sorted(want_p)
    for i, j in enumerate(m.gold_partner.tolist()):
        if j >= 0:
            assert m.pred_partner[j] == i and m.gold_status[i] == m.pred_status[j]


def test_encode_decode_round_trip():
    k = ("born", "Person:ada", "Person", True, "1815", "", "asserted", (("as_of", "'2020'"),))
    assert tuple(decode_key(encode_key(MatchKey(*k)))) == k


@settings(max_examples=200, deadline=None)
@given(
    table=st.lists(st.integers(-(2**63), 2**63 - 1), unique=True, max_size=40),
    queries=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=40),
    low=st.integers(0, 15),
)
def test_positions_agree_with_a_dict(table, queries, low):
    import numpy as np

    from openodke.eval.engine.matching import _positions

    # Half the hashes share their low bits, so slots collide and the binary search is used.
    table = [t if i % 2 else (t & ~15) | low for i, t in enumerate(table)]
    table = list(dict.fromkeys(table))
    queries = queries + table[::3]
    index = {h: i for i, h in enumerate(table)}
    got = _positions(np.array(table, dtype=np.int64), np.array(queries, dtype=np.int64))
    assert got.tolist() == [index.get(q, -2) for q in queries]


FORMS = ("{}", "{}.txt", "texts/{}.md")  # how labels, folders and tools name one document


@settings(max_examples=300, deadline=None)
@given(
    gold=st.lists(st.tuples(st.sampled_from(["d1", "d2"]), rows), max_size=10),
    pred=st.lists(
        st.tuples(st.sampled_from([(), ("d1",), ("d2",), ("d3",), ("d3", "d2")]), rows),
        max_size=10,
    ),
    labelled=st.lists(st.sampled_from(["d1", "d2", "d3"]), unique=True, max_size=3),
    gold_form=st.fixed_dictionaries({d: st.sampled_from(FORMS) for d in ("d1", "d2")}),
    labelled_form=st.fixed_dictionaries({d: st.sampled_from(FORMS) for d in ("d1", "d2", "d3")}),
    cited_forms=st.lists(st.sampled_from(FORMS), min_size=20, max_size=20),
)
def test_renaming_a_document_between_its_id_forms_never_changes_the_score(
    gold, pred, labelled, gold_form, labelled_form, cited_forms
):
    gold_docs = [d for d, _ in gold]
    gold_keys = [key(*r) for _, r in gold]
    pred_docs = [d for d, _ in pred]
    pred_keys = [key(*r) for _, r in pred]
    plain = match_keys(gold_docs, gold_keys, pred_docs, pred_keys, labelled)

    forms = iter(cited_forms)
    renamed = match_keys(
        [gold_form[d].format(d) for d in gold_docs],
        gold_keys,
        [tuple(next(forms).format(d) for d in docs) for docs in pred_docs],
        pred_keys,
        [labelled_form[d].format(d) for d in labelled],
    )
    assert len(renamed.documents) == len(plain.documents)
    for name in ("gold_status", "gold_doc", "pred_status", "pred_doc", "gold_partner"):
        assert getattr(renamed, name).tolist() == getattr(plain, name).tolist(), name


def test_a_labelled_document_named_by_its_file_is_the_gold_document_once():
    gold_keys = [key("p", "a", "x", False), key("p", "b", "y", False)]
    m = match_keys(
        ["d0", "d1"],
        gold_keys,
        [("d0.txt",), ("d1",), ("sub/d1.md",), ("d7",)],
        [gold_keys[0], gold_keys[1], key("q", "b", "z", False), key("p", "a", "x", False)],
        ["d0.txt", "d1.txt", "d2.txt"],
    )
    assert m.documents == ["d0", "d1", "d2.txt"]  # 3 units, not 5
    assert [STATUS_NAMES[s] for s in m.pred_status] == ["hit", "hit", "spurious", "unscored"]
    assert m.pred_doc.tolist() == [0, 1, 1, -1]
    # d0.txt and d1.txt joined from --documents; sub/d1.md cited, joined by stem; d0.txt cited
    # is the joined name, so by id
    assert m.joined == [("d0", "d0.txt"), ("d1", "d1.txt"), ("d1", "sub/d1.md")]


def test_scored_documents_reads_ids_as_the_matching_did():
    import numpy as np

    from openodke.eval.engine.key_table import DocColumn
    from openodke.eval.engine.matching import scored_documents

    cited = [("d0.txt",), ("x/d1.md",), ("zz",), (), ("zz", "d1.txt"), ("d2",)]
    k = key("p", "a", "x", False)
    m = match_keys(["d0", "d1"], [k, k], cited, [k] * len(cited), ["d0.txt", "d1.txt", "d2.md"])
    again = scored_documents(DocColumn.of_cited(cited), m.doc_ids)
    assert again.tolist() == [0, 1, -2, -1, 1, 2]
    assert np.array_equal(np.where(again == -2, -1, again), m.pred_doc)


@settings(max_examples=60, deadline=None)
@given(predicates=st.lists(st.sampled_from([f"p{k}" for k in range(40)]), min_size=1, max_size=60))
def test_predicate_ids_searched_either_way_alike(predicates):
    """Predicate ids by a search of the few names in the rows' own order, or with the rows
    sorted first (joins.search past its small-table bound): the same ids."""
    from openodke.eval.engine import joins
    from openodke.eval.stages.extract import score_facts
    from openodke.eval.stages.labels import GoldFact
    from openodke.types import Entity, Fact

    def fact(p: str) -> Fact:
        return Fact(subject=Entity(key="s"), predicate=p, object_entity=Entity(key="o"))

    rows = score_facts([GoldFact(doc_id="d", fact=fact(p)) for p in predicates], []).matching.rows
    ids, names = rows.predicate_ids()
    assert [names[i] for i in ids.tolist()] == predicates
    small = joins._SMALL
    try:
        joins._SMALL = 0  # the other way
        again, names_again = rows.predicate_ids()
    finally:
        joins._SMALL = small
    assert names_again == names and again.tolist() == ids.tolist()
