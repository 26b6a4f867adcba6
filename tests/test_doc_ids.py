"""Document ids join by id, else by file stem when exactly one document has it."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.doc_ids import DocIds, join_ids, source_stem, under_names

FOLDER = ["d0.txt", "d1.md", "sub/d3.md", "a/dup.txt", "b/dup.txt", "notes.v2.json", "r.csv#L2"]


@pytest.mark.parametrize(
    ("reference", "found"),
    [
        ("d0.txt", "d0.txt"),  # the id itself
        ("d0", "d0.txt"),  # the label's bare name: the file's stem
        ("other/d0.txt", "d0.txt"),  # another folder, the same stem
        ("d0.md", "d0.txt"),  # another extension kind
        ("D0", "d0.txt"),  # by stem in another letter case (issue 17)
        ("D0.TXT", "d0.txt"),  # by id in another letter case
        ("d1", "d1.md"),
        ("d3", "sub/d3.md"),  # an id with folders
        ("x/y/d3.txt", "sub/d3.md"),
        ("dup", None),  # two documents share the stem: it joins neither
        ("c/dup.txt", None),
        ("a/dup.txt", "a/dup.txt"),  # the id still joins
        ("notes.v2", "notes.v2.json"),  # the reference is the stem itself
        ("notes", None),  # only the last suffix is dropped
        ("r.csv#L2", "r.csv#L2"),
        ("corpus/r.csv#L2", "r.csv#L2"),  # the same record of the same file
        ("r.csv#L3", None),  # another record of that file: never its sibling
        ("r", "r.csv#L2"),  # the file, of which one record is labelled
        ("nowhere", None),
        ("", None),
    ],
)
def test_find_by_id_else_unique_stem(reference, found):
    ids = DocIds(FOLDER)
    at = ids.find(reference)
    assert (FOLDER[at] if at is not None else None) == found


def test_an_exact_id_wins_over_a_stem():
    ids = DocIds(["d0", "d0.txt"])
    assert (ids.find("d0"), ids.find("d0.txt")) == (0, 1)
    assert ids.find("x/d0.md") is None  # both have the stem: ambiguous


def test_an_alias_names_its_document_and_does_not_make_its_stem_ambiguous():
    ids = DocIds(["d0", "d1"], aliases={"d0.txt": 0})
    assert (ids.exact("d0.txt"), ids.exact("d0.md"), ids.find("d0.md")) == (0, None, 0)
    assert ids.joined == [("d0", "d0.txt")]
    assert "d0.txt" in ids and "d0.md" not in ids and len(ids) == 2


def test_join_ids_joins_each_document_to_the_gold_id_of_its_stem():
    ids = join_ids(["d1", "d0", "sub/d2.md"], ["d0.txt", "d1.txt", "d2.txt", "d9.txt"])
    assert ids.names == ["d1", "d0", "sub/d2.md", "d9.txt"]  # gold's order, then the rest
    assert ids.joined == [("d0", "d0.txt"), ("d1", "d1.txt"), ("sub/d2.md", "d2.txt")]


@pytest.mark.parametrize(
    ("gold", "documents", "names"),
    [
        # two files for one label: neither is its only match
        (["d0"], ["d0.txt", "d0.md"], ["d0", "d0.txt", "d0.md"]),
        # two labels for one file: the file is neither's only match
        (["a/d0", "b/d0"], ["d0.txt"], ["a/d0", "b/d0", "d0.txt"]),
        # the label's own id is there: its stem-mate is another document
        (["d0"], ["d0", "d0.txt"], ["d0", "d0.txt"]),
        (["d0", "d0.txt"], ["d0.txt"], ["d0", "d0.txt"]),
    ],
)
def test_join_ids_never_joins_an_ambiguous_stem(gold, documents, names):
    ids = join_ids(gold, documents)
    assert (ids.names, ids.joined) == (names, [])


def test_join_ids_takes_back_its_own_result():
    first = join_ids(["d0", "d1"], ["d0.txt", "d1.txt"])
    assert join_ids(["d0", "d1"], first) is first
    again = join_ids(["d0", "d1", "d2"], first)  # a gold id it lacks is added at the end
    assert (again.names, again.joined) == (["d0", "d1", "d2"], first.joined)


def test_under_names_keys_texts_also_by_the_labels_names():
    texts = {"d0.txt": "zero", "d1.txt": "one", "a/dup.txt": "a", "b/dup.txt": "b"}
    got = under_names(texts, ["d0", "d1.txt", "texts/d1.md", "dup", "d9"])
    assert got == {**texts, "d0": "zero", "texts/d1.md": "one"}  # dup: two files have the stem
    assert len(texts) == 4  # not changed


def test_the_diagnosis_texts_join_gold_ids_by_the_same_rule():
    from openodke.eval.diagnosis.texts import TextAnswers

    texts = {"d0.txt": "zero", "a/dup.txt": "a", "b/dup.txt": "b"}
    answers = TextAnswers(texts)
    assert [answers.has(d) for d in ("d0.txt", "d0", "sub/d0.md", "dup", "d9")] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert answers.texts == under_names(texts, ["d0", "sub/d0.md", "dup", "d9"])
    assert answers.indexed("d0") == answers.indexed("d0.txt") and "d0" not in texts


def test_source_stem_is_the_harness_rule():
    from openodke.interop.match import source_stem as harness_stem

    assert harness_stem is source_stem


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab./\\#L1~", max_size=14))
def test_source_stem_is_the_stem_pathlib_gives(reference):
    # The harness's rule as first written: record suffix off, then PurePosixPath's stem.
    path = re.sub(r"(#L\d+)?(~\d+)?$", "", reference.replace("\\", "/"))
    assert source_stem(reference) == (PurePosixPath(path).stem if path else "")
