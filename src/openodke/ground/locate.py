"""The span locator: the narrowest one- or two-sentence window of a text that names both ends.

Rules (surface.md, "Grounding"):

- names match as whole words, with case, accents and punctuation ignored (``St. Petersburg`` is
  named by "St Petersburg");
- a capitalised name matches only capitalised text ("Apple" is not named by "apple"), and never
  inside a longer name: not when a capitalised word stands right beside it, joined by a space or a
  hyphen ("Paris" is not named by "Paris Hilton"); a sentence's first word, and a title before the
  name ("King Pandu", "President Barack Obama"), do not make a longer name;
- a date or a quantity is also found by value: the end ``1815-12-10`` is named by "10 December
  1815", ``99.9`` by "99.9%", ``1200`` by "1,200";
- the object must be named apart from the subject (the two occurrences may not overlap);
- an entity's label (else its key's name) and every alias count as its names.

Among the windows (each sentence, and each pair of neighbouring sentences) that hold a subject
and an object occurrence, the narrowest wins, the earliest on a tie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

from openodke.ground.text import Word, entity_names, sentence_bounds, words
from openodke.ground.values import (
    Found,
    date_names,
    find_dates,
    find_numbers,
    parse_date,
    parse_number,
)
from openodke.types import Fact

__all__ = ["TextView", "locate", "name_occurrences", "view_of"]

Occurrence = tuple[int, int]


@dataclass(frozen=True)
class TextView:
    """One text read once: its sentences, its words, and which words open a sentence; the dates,
    numbers and word positions are found the first time a name asks for them."""

    text: str
    sentences: tuple[tuple[int, int], ...]
    words: tuple[Word, ...]
    openers: frozenset[int]

    @cached_property
    def dates(self) -> list[Found]:
        """Every date in the text."""
        return find_dates(self.text)

    @cached_property
    def numbers(self) -> list[Found]:
        """Every number in the text."""
        return find_numbers(self.text)

    @cached_property
    def positions(self) -> dict[str, list[int]]:
        """Word key -> the indices of the words with that key."""
        found: dict[str, list[int]] = {}
        for index, word in enumerate(self.words):
            found.setdefault(word.key, []).append(index)
        return found

    @classmethod
    def of(cls, text: str) -> TextView:
        """Read ``text``: sentence bounds, words with offsets, sentence-opening word indices."""
        bounds = tuple(sentence_bounds(text))
        found = tuple(words(text))
        openers: set[int] = set()
        index = 0
        for start, _ in bounds:
            while index < len(found) and found[index].start < start:
                index += 1
            openers.add(index)
        return cls(text, bounds, found, frozenset(openers))


@lru_cache(maxsize=32)
def view_of(text: str) -> TextView:
    """``TextView.of(text)``, kept for the last few texts (facts of one document come together)."""
    return TextView.of(text)


# Titles and honorifics: capitalised before a name without making a longer one ("King Pandu",
# "President Barack Obama"), so they never hide the name they stand before.
_TITLES = frozenset(
    (  # noqa: SIM905 - a word list reads better as words
        "king queen prince princess emperor empress tsar czar sultan shah pharaoh lord lady sir "
        "dame saint st pope cardinal archbishop bishop father mother brother sister rabbi imam "
        "sheikh president vice senator congressman congresswoman governor mayor chancellor "
        "minister premier secretary ambassador judge justice general admiral colonel captain "
        "lieutenant major sergeant commander marshal duke duchess count countess baron baroness "
        "earl marquess viscount dr mr mrs ms miss prof professor rev reverend chairman chief"
    ).split()
)


def _joined(view: TextView, left: Word, right: Word) -> bool:
    """True when only spaces or a hyphen stand between two words: one name, not two."""
    gap = view.text[left.end : right.start]
    return gap.strip(" -\u2010\u2011") == "" and "\n" not in gap


def _word_matches(view: TextView, name: str) -> list[Occurrence]:
    wanted = words(name)
    if not wanted:
        return []
    keys = [w.key for w in wanted]
    capitalised = wanted[0].text[0].isupper()
    found: list[Occurrence] = []
    text_words = view.words
    size = len(keys)
    for i in view.positions.get(keys[0], ()):
        if i + size > len(text_words):
            continue
        if any(text_words[i + k].key != keys[k] for k in range(1, size)):
            continue
        run = text_words[i : i + size]
        if capitalised and not _capitalised_alone(view, run, wanted, i):
            continue
        found.append((run[0].start, run[-1].end))
    return found


def _capitalised_alone(view: TextView, run: tuple[Word, ...], wanted: list[Word], i: int) -> bool:
    """A capitalised name as capitalised text, with no capitalised word joined on either side."""
    for written, seen in zip(wanted, run, strict=True):
        if written.text[0].isupper() and not seen.text[0].isupper():
            return False
    text_words = view.words
    before = text_words[i - 1] if i > 0 else None
    if (
        before is not None
        and i not in view.openers
        and i - 1 not in view.openers
        and before.text[0].isupper()
        and before.key not in _TITLES
        and _joined(view, before, run[0])
    ):
        return False
    after_index = i + len(run)
    after = text_words[after_index] if after_index < len(text_words) else None
    return not (
        after is not None
        and after_index not in view.openers
        and after.text[0].isupper()
        and _joined(view, run[-1], after)
    )


def name_occurrences(view: TextView, name: str) -> list[Occurrence]:
    """Where ``name`` is named in the text: as words, and as a date or a quantity by value."""
    found = set(_word_matches(view, name))
    date = parse_date(name)
    if date is not None:
        found.update((f.start, f.end) for f in view.dates if date_names(f.value, date))  # type: ignore[arg-type]
    number = parse_number(name)
    if number is not None:
        found.update(
            (f.start, f.end)
            for f in view.numbers
            if math.isclose(f.value, number, rel_tol=1e-9)  # type: ignore[arg-type]
        )
    return sorted(found)


def _object_names(fact: Fact) -> tuple[str, ...]:
    if fact.object_entity is not None:
        return entity_names(fact.object_entity)
    written = fact.qualifiers.get("odke.source_form")
    value = fact.object_value
    forms = [str(written)] if isinstance(written, str) and written.strip() else []
    forms.append(str(value).lower() if isinstance(value, bool) else str(value))
    return tuple(dict.fromkeys(forms))


def _all(view: TextView, names: tuple[str, ...]) -> list[Occurrence]:
    found: set[Occurrence] = set()
    for name in names:
        found.update(name_occurrences(view, name))
    return sorted(found)


def locate(fact: Fact, text: str) -> tuple[int, int] | None:
    """The narrowest one- or two-sentence window naming both ends of ``fact``, else None."""
    view = view_of(text)
    subjects = _all(view, entity_names(fact.subject))
    objects = _all(view, _object_names(fact))
    if not subjects or not objects:
        return None
    best: tuple[int, int] | None = None
    bounds = view.sentences
    for i in range(len(bounds)):
        for j in (i, i + 1):
            if j >= len(bounds):
                continue
            start, end = bounds[i][0], bounds[j][1]
            if best is not None and end - start >= best[1] - best[0]:
                continue
            if _names_both(subjects, objects, start, end):
                best = (start, end)
    return best


def _names_both(
    subjects: list[Occurrence], objects: list[Occurrence], start: int, end: int
) -> bool:
    inside_s = [o for o in subjects if start <= o[0] and o[1] <= end]
    if not inside_s:
        return False
    inside_o = [o for o in objects if start <= o[0] and o[1] <= end]
    return any(s[1] <= o[0] or o[1] <= s[0] for s in inside_s for o in inside_o)
