"""The span locator's rules, one case each, worked by hand (offsets counted in the comments)."""

from __future__ import annotations

import pytest

from openodke import Entity, Fact
from openodke.ground import locate
from openodke.ground.locate import name_occurrences, view_of
from openodke.ground.text import sentence_bounds, sentences_around


def edge(subject: str, obj: str, *, aliases: tuple[str, ...] = ()) -> Fact:
    return Fact(
        subject=Entity(
            key=f"Person:{subject.lower()}", type="Person", label=subject, aliases=aliases
        ),
        predicate="p",
        object_entity=Entity(key=f"Place:{obj.lower()}", type="Place", label=obj),
    )


def prop(subject: str, value: object, **qualifiers: object) -> Fact:
    return Fact(
        subject=Entity(key=f"Person:{subject.lower()}", type="Person", label=subject),
        predicate="p",
        object_value=value,  # type: ignore[arg-type]
        qualifiers=qualifiers,
    )


def window(fact: Fact, text: str) -> str | None:
    found = locate(fact, text)
    return None if found is None else text[found[0] : found[1]]


def test_sentences_end_at_stops_not_at_initials_or_titles() -> None:
    text = "Dr. Ada met J. R. Tolkien in the U.S. Army camp. They talked!  Then left.\nDone"
    pieces = [text[s:e] for s, e in sentence_bounds(text)]
    assert pieces == [
        "Dr. Ada met J. R. Tolkien in the U.S. Army camp.",
        "They talked!",
        "Then left.",
        "Done",
    ]


def test_the_narrowest_one_sentence_window_wins() -> None:
    text = "Ada lived in London. Ada was born in London. Later Ada and Bob moved."
    assert window(edge("Ada", "London"), text) == "Ada lived in London."  # earliest of two ties


def test_two_sentences_when_no_one_sentence_names_both() -> None:
    text = "Intro. Ada Lovelace wrote notes. She was born in London. End."
    assert window(edge("Ada Lovelace", "London"), text) == (
        "Ada Lovelace wrote notes. She was born in London."
    )


def test_three_sentences_apart_is_not_found() -> None:
    text = "Ada wrote. Then more. She lived in London."
    assert locate(edge("Ada", "London"), text) is None


def test_case_accents_and_punctuation_are_ignored() -> None:
    text = "The poet José Martí was from Havana. He went to St Petersburg."
    assert window(edge("Jose Marti", "Havana"), text) == "The poet José Martí was from Havana."
    assert window(edge("JOSÉ MARTÍ", "St. Petersburg"), text) == text


def test_whole_words_only() -> None:
    assert locate(edge("Ada", "Lond"), "Ada lived in London.") is None
    assert locate(edge("Ad", "London"), "Ada lived in London.") is None


def test_a_capitalised_name_needs_capitalised_text() -> None:
    text = "Jobs ate an apple in Cupertino."
    assert locate(edge("Jobs", "Apple"), text) is None
    assert window(edge("Jobs", "apple"), text) == text  # a lower-case name matches either


def test_never_inside_a_longer_name() -> None:
    # "Paris" inside "Paris Hilton" and "York" inside "New York" are other names.
    assert locate(edge("Ada", "Paris"), "Ada met Paris Hilton.") is None
    assert locate(edge("Ada", "York"), "Ada moved to New York.") is None
    # A sentence's first word is capitalised anyway; punctuation separates names.
    assert window(edge("Ada", "Paris"), "In Paris, Ada sang.") == "In Paris, Ada sang."
    assert (
        window(edge("Ada", "Paris"), "Ada sang in Paris, France.") == "Ada sang in Paris, France."
    )


def test_the_object_is_named_apart_from_the_subject() -> None:
    # The only "York" is inside the subject's own name.
    fact = Fact(
        subject=Entity(key="Org:york university", type="Org", label="York University"),
        predicate="located_in",
        object_entity=Entity(key="Place:york", type="Place", label="York"),
    )
    assert locate(fact, "York University opened a lab.") is None
    assert window(fact, "York University is in York.") == "York University is in York."


def test_aliases_count_as_names() -> None:
    text = "Lovelace was born in London."
    assert window(edge("Ada Lovelace", "London", aliases=("Lovelace",)), text) == text


@pytest.mark.parametrize(
    ("value", "text", "found"),
    [
        ("1815-12-10", "Intro. Ada was born on 10 December 1815 in London.", True),
        ("1815-12-10", "Intro. Ada was born on December 10, 1815.", True),
        ("1815-12-10", "Intro. Ada was born in 1815.", False),  # the text gives less
        ("1815", "Intro. Ada was born on 10 December 1815.", True),  # the end gives less
        ("December 1815", "Ada was born 10 Dec 1815.", True),
        (99.9, "Ada promised 99.9% uptime.", True),
        ("1,200", "Ada hired 1200 people.", True),
        (1200, "Ada hired 1,200 people.", True),
        (12, "Ada hired 120 people.", False),
    ],
)
def test_dates_and_quantities_by_value(value: object, text: str, found: bool) -> None:
    assert (locate(prop("Ada", value), text) is not None) is found


def test_a_source_form_is_searched_too() -> None:
    fact = prop("Ada", "unix", **{"odke.source_form": "Unix"})
    assert window(fact, "Ada wrote Unix tools.") == "Ada wrote Unix tools."


def test_name_occurrences_give_offsets() -> None:
    view = view_of("Ada and ADA and ada.")
    assert name_occurrences(view, "Ada") == [(0, 3), (8, 11)]  # "ada" is not capitalised
    assert name_occurrences(view, "ada") == [(0, 3), (8, 11), (16, 19)]


def test_sentences_around_a_span() -> None:
    text = "One two. Three four five. Six."
    bounds = sentence_bounds(text)  # (0, 8), (9, 25), (26, 30)
    assert sentences_around(bounds, 15, 19) == (9, 25)  # "four" → its sentence
    assert sentences_around(bounds, 4, 14) == (0, 25)  # crossing two sentences
    assert sentences_around(bounds, 9, 25) == (9, 25)


def test_a_title_before_a_name_is_not_a_longer_name() -> None:
    text = "Kunti was the first wife of King Pandu in the Kuru Kingdom."
    assert window(edge("Kunti", "Pandu"), text) == text
    assert window(edge("Ada", "Barack Obama"), "Ada met President Barack Obama.") is not None
    assert locate(edge("Ada", "Obama"), "Ada met Barack Obama.") is None  # a longer name


def test_tokenised_text_keeps_an_abbreviation_in_its_sentence() -> None:
    text = "William Frist Sr . ( born 1952 ) is a physician . He served ."
    assert [text[s:e] for s, e in sentence_bounds(text)] == [
        "William Frist Sr . ( born 1952 ) is a physician .",
        "He served .",
    ]
