"""Answer parsing: the structured answer first, then a bare word; prose leaves the fact unchecked."""

from __future__ import annotations

import pytest

from openodke.ground import read_paper_answer, read_span_answer
from openodke.llm import parse_reply
from openodke.types import GroundingVerdict as V


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"verdict": "supported"}', V.supported),
        ('{"verdict": "contradicted"}', V.contradicted),
        ('{"verdict": "not_found"}', V.not_found),
        ('{"Verdict": "Not Found"}', V.not_found),
        ('```json\n{"verdict": "supported"}\n```', V.supported),
        ('Sure: {"verdict": "contradicted"} is my answer.', V.contradicted),
        ('"supported"', V.supported),
        ("supported", V.supported),
        ("Supported.", V.supported),
        ("  **CONTRADICTED**  ", V.contradicted),
        ("not found", V.not_found),
        ("Not-found!", V.not_found),
        ("NOT_FOUND", V.not_found),
        # Prose, other words, and structured answers that say something else: unreadable.
        ("The passage supports the claim.", None),
        ("It is supported by the passage", None),
        ("yes", None),
        ("", None),
        ('{"verdict": "maybe"}', None),
        ('{"answer": true}', None),
        ("[1, 2]", None),
    ],
)
def test_span_answers(text: str, expected: V | None) -> None:
    assert read_span_answer(parse_reply(text), text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("True", V.supported),
        ("False", V.not_found),
        ("true", V.supported),
        ("FALSE.", V.not_found),
        ("'True'", V.supported),
        ('{"answer": true}', V.supported),
        ('{"answer": "False"}', V.not_found),
        ("The triple is true.", None),
        ("supported", None),
        ("Yes", None),
        ("1", None),
    ],
)
def test_paper_answers(text: str, expected: V | None) -> None:
    assert read_paper_answer(parse_reply(text), text) == expected
