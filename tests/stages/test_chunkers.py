"""Chunkers: sentences packed up to max_words, with overlap; passthrough is the whole text."""

from __future__ import annotations

import pytest

from openodke import Document
from openodke.errors import InputError
from openodke.stages import PassthroughChunker, SentenceChunker, sentence_spans

# Four sentences of 3, 2, 4 and 1 words.
TEXT = "Ada wrote notes. She travelled. Babbage built the engine!\nDone."


def test_sentence_spans_are_offsets_of_the_splitters_sentences():
    assert [TEXT[s:e] for s, e in sentence_spans(TEXT)] == [
        "Ada wrote notes.",
        "She travelled.",
        "Babbage built the engine!",
        "Done.",
    ]


@pytest.mark.parametrize(
    ("max_words", "overlap", "expected"),
    [
        # 3 + 2 = 5 fits; + 4 = 9 does not; 4 + 1 = 5 fits.
        (5, 0, ["Ada wrote notes. She travelled.", "Babbage built the engine!\nDone."]),
        # 3 alone (3 + 2 > 4); 2 alone (2 + 4 > 4); 4 alone; 1 alone.
        (4, 0, ["Ada wrote notes.", "She travelled.", "Babbage built the engine!", "Done."]),
        (100, 0, [TEXT]),
        # A sentence longer than max_words is a chunk of its own, never cut.
        (2, 0, ["Ada wrote notes.", "She travelled.", "Babbage built the engine!", "Done."]),
        # Overlap 1: the next chunk starts with the previous chunk's last sentence.
        (
            6,
            1,
            [
                "Ada wrote notes. She travelled.",  # 3 + 2 = 5; + 4 > 6
                "She travelled. Babbage built the engine!",  # 2 + 4 = 6
                "Babbage built the engine!\nDone.",  # 4 + 1 = 5
            ],
        ),
        # Overlap larger than a chunk still moves on by one sentence.
        (
            5,
            9,
            [
                "Ada wrote notes. She travelled.",
                "She travelled.",
                "Babbage built the engine!\nDone.",
            ],
        ),
    ],
)
def test_sentence_chunker_packs_whole_sentences(max_words, overlap, expected):
    doc = Document(id="d", text=TEXT)
    chunks = SentenceChunker(max_words=max_words, overlap=overlap).chunk(doc)
    assert [c.text for c in chunks] == expected
    assert [c.index for c in chunks] == list(range(len(expected)))
    for chunk in chunks:
        assert chunk.text == doc.text[chunk.start : chunk.end] and chunk.doc_id == "d"


def test_a_blank_text_has_no_chunks_and_passthrough_is_the_whole_text():
    assert SentenceChunker().chunk(Document(id="d", text="  \n ")) == []
    (whole,) = PassthroughChunker().chunk(Document(id="d", text=TEXT))
    assert (whole.start, whole.end, whole.text, whole.index) == (0, len(TEXT), TEXT, 0)


@pytest.mark.parametrize(
    ("options", "message"), [({"max_words": 0}, "max_words"), ({"overlap": -1}, "overlap")]
)
def test_bad_options(options, message):
    with pytest.raises(InputError, match=message):
        SentenceChunker(**options)
