"""The example's own stages, loaded through the run config's ``pythonpath``.

``RecordRouter`` sends prose to the model and keeps records away from it: a chunk most of whose
lines are ``Label: value`` lines (a CSV record, a fact sheet) is skipped, since the pattern half of
the hybrid extractor reads those lines whole. ``LegalFormResolver`` links two entities of one type
whose names differ only by a legal form (``Corvana Systems`` and ``Corvana Systems Ltd``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

from openodke.protocols import RouteVerdict
from openodke.stages.pattern import read_lines
from openodke.stages.resolve import entities_of
from openodke.types import EntityLink, Fact, LinkKind

_HEADING = re.compile(r"^\s*#")
_LEGAL_FORMS = {"ltd", "limited", "inc", "plc", "gmbh", "llc", "co", "ab", "as"}


class RecordRouter:
    """Skips record-like chunks (half or more of their lines are ``Label: value``)."""

    def route(self, text: str) -> RouteVerdict:
        """``skip`` for a record or fact sheet, ``extract`` for prose."""
        lines = [line for line in text.splitlines() if line.strip() and not _HEADING.match(line)]
        labelled = len(read_lines(text))
        if lines and labelled * 2 >= len(lines):
            return RouteVerdict(action="skip", label="record", reason="Label: value lines")
        return RouteVerdict(action="extract", label="prose")


def _core(name: str) -> str:
    words = re.sub(r"[^\w\s]", " ", name.casefold()).split()
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words.pop()
    return " ".join(words)


class LegalFormResolver:
    """Proposes ``same_as`` between same-type entities whose names differ by a legal form only."""

    def __init__(self, score: float = 1.0) -> None:
        self.score = score

    def resolve(self, facts: Sequence[Fact]) -> list[EntityLink]:
        """One link per such pair, sorted by key."""
        links = []
        for a, b in combinations(entities_of(facts), 2):
            if a.type != b.type or a.key == b.key:
                continue
            if _core(a.label or a.key) == _core(b.label or b.key):
                source, target = sorted((a.key, b.key))
                links.append(
                    EntityLink(
                        source_key=source,
                        target_key=target,
                        kind=LinkKind.same_as,
                        score=self.score,
                        reason="names differ only by a legal form",
                    )
                )
        return sorted(links, key=lambda link: (link.source_key, link.target_key))
