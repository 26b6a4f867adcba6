"""Chunkers: ``sentence`` (sentences packed up to ``max_words``) and ``passthrough`` (the whole text).

Sentences are cut by the diagnosis's rule (``openodke.eval.diagnosis.sentences.split_sentences``:
at ``.``, ``!`` or ``?`` before a space, and at line breaks), so the cross-sentence bucket and the
chunker agree on what a sentence is.
"""

from __future__ import annotations

from openodke.errors import InputError
from openodke.eval.diagnosis.sentences import split_sentences
from openodke.types import Chunk, Document

__all__ = ["PassthroughChunker", "SentenceChunker", "sentence_spans"]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of each sentence ``split_sentences`` finds, in order."""
    spans: list[tuple[int, int]] = []
    at = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, at)
        if start < 0:  # cannot happen: the split only removes separators
            raise AssertionError(f"sentence not found in order: {sentence[:40]!r}")
        end = start + len(sentence)
        spans.append((start, end))
        at = end
    return spans


class PassthroughChunker:
    """One chunk: the whole document (``passthrough``)."""

    name = "passthrough"

    def chunk(self, document: Document) -> list[Chunk]:
        """``[Chunk(0, len(text))]``."""
        text = document.text
        return [Chunk(doc_id=document.id, start=0, end=len(text), text=text, index=0)]


class SentenceChunker:
    """Whole sentences packed into chunks of at most ``max_words`` words (``sentence``).

    A chunk starts at its first sentence and ends at its last, so its text is the document's
    between them, separators included. A sentence longer than ``max_words`` is a chunk of its own
    (never cut mid-sentence). ``overlap`` repeats that many sentences from the end of one chunk at
    the start of the next; every chunk still adds at least one new sentence. A text with no
    sentence (blank) gives no chunk.
    """

    name = "sentence"

    def __init__(self, *, max_words: int = 200, overlap: int = 0) -> None:
        if max_words < 1:
            raise InputError(f"max_words: expected 1 or more, got {max_words}")
        if overlap < 0:
            raise InputError(f"overlap: expected 0 or more sentences, got {overlap}")
        self.max_words = max_words
        self.overlap = overlap

    def __repr__(self) -> str:
        return f"SentenceChunker(max_words={self.max_words}, overlap={self.overlap})"

    def chunk(self, document: Document) -> list[Chunk]:
        """The chunks, in order, indexed from 0."""
        text = document.text
        spans = sentence_spans(text)
        words = [len(text[s:e].split()) for s, e in spans]
        chunks: list[Chunk] = []
        first = 0
        while first < len(spans):
            last = first
            total = words[first]
            while last + 1 < len(spans) and total + words[last + 1] <= self.max_words:
                last += 1
                total += words[last]
            start, end = spans[first][0], spans[last][1]
            chunks.append(
                Chunk(
                    doc_id=document.id,
                    start=start,
                    end=end,
                    text=text[start:end],
                    index=len(chunks),
                )
            )
            if last + 1 >= len(spans):
                break
            first = max(first + 1, last + 1 - self.overlap)
        return chunks
