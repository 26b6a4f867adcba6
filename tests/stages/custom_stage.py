"""A custom stage for the registry tests, loaded as ``tests.stages.custom_stage:Shout``."""

from __future__ import annotations

from collections.abc import Sequence

from openodke import Fact


class Shout:
    """A normalizer that upper-cases string values (``times`` times an exclamation mark)."""

    def __init__(self, times: int = 1, ontology=None) -> None:
        self.times = times
        self.ontology = ontology

    def normalize(self, facts: Sequence[Fact]) -> list[Fact]:
        return [
            f.model_copy(update={"object_value": f.object_value.upper() + "!" * self.times})
            if isinstance(f.object_value, str)
            else f
            for f in facts
        ]


def plain(facts):
    """A function stage: no options."""
    return list(facts)
