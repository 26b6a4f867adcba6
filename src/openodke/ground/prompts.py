"""The grounding prompts, registered as ``id@version``, and how a claim is written into them.

Any change to a prompt's text must bump its version (a test pins each version's text by hash), so
a prompt id in a report or a cache key always names the same words. Two claim formats:

- **span** (``ground.span@1``): ``Claim: <Subject> (<Type>) — <predicate words> — <object>
  (<Type>).`` then the passage; a literal object has no type, an untyped end (``Thing``) shows
  none, denied polarity reads ``It is NOT the case that: ...``, partial polarity ``It is partly
  the case that: ...``; identity qualifiers follow the predicate words as ``(key: value)``. The
  answer is ``{"verdict": "supported" | "contradicted" | "not_found"}``.
- **paper** (``ground.paper@1``): the triple ``<subject, predicate(qualifier: value), object>``
  against the whole document, answered ``True`` or ``False``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from openodke.ground.text import entity_names
from openodke.types import Entity, Fact, Polarity

__all__ = [
    "CLAIM_FORMATS",
    "PAPER",
    "PROMPTS",
    "SPAN",
    "ClaimFormat",
    "Prompt",
    "predicate_words",
    "render_paper_claim",
    "render_span_claim",
]

ClaimFormat = Literal["span", "paper"]
CLAIM_FORMATS: tuple[str, ...] = ("span", "paper")

_UNTYPED = "Thing"


@dataclass(frozen=True)
class Prompt:
    """A registered prompt: its id, version, claim format, system text and user template."""

    id: str
    version: int
    claim_format: ClaimFormat
    system: str
    template: str
    schema: dict[str, Any] | None

    @property
    def key(self) -> str:
        """``id@version``: how reports, caches and calibration cards name the prompt."""
        return f"{self.id}@{self.version}"

    def messages(self, claim: str, passage: str) -> list[dict[str, str]]:
        """The chat messages asking about ``claim`` against ``passage``, each tagged with the key."""
        return [
            {"role": "system", "content": self.system, "prompt": self.key},
            {
                "role": "user",
                "content": self.template.format(claim=claim, passage=passage),
                "prompt": self.key,
            },
        ]


SPAN = Prompt(
    id="ground.span",
    version=1,
    claim_format="span",
    system=(
        "You check one claim against one passage. Judge only by what the passage says, not by "
        "what you know.\n"
        'Answer with JSON, {"verdict": "supported"}, {"verdict": "contradicted"} or '
        '{"verdict": "not_found"}:\n'
        "- supported: the passage states the claim, or says something that plainly means it;\n"
        "- contradicted: the passage states something that cannot be true if the claim is;\n"
        "- not_found: the passage does neither."
    ),
    template="Claim: {claim}\n\nPassage:\n{passage}",
    schema={
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["supported", "contradicted", "not_found"]}
        },
        "required": ["verdict"],
        "additionalProperties": False,
    },
)

PAPER = Prompt(
    id="ground.paper",
    version=1,
    claim_format="paper",
    system=(
        "You verify triples extracted from a document. A triple is true when the document "
        "states it. Answer with one word: True or False."
    ),
    template="Document:\n{passage}\n\nTriple: {claim}\n\nIs the triple true according to the document?",
    schema=None,
)

PROMPTS: dict[str, Prompt] = {prompt.key: prompt for prompt in (SPAN, PAPER)}
"""Every grounding prompt by ``id@version``."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def predicate_words(predicate: str) -> str:
    """A predicate as words: ``educated_at`` → "educated at", ``birthPlace`` → "birth place"."""
    spaced = _CAMEL.sub(" ", predicate).replace("_", " ").replace("-", " ")
    return " ".join(word if word.isupper() else word.lower() for word in spaced.split())


def _name(entity: Entity) -> str:
    names = entity_names(entity)
    return names[0] if names else entity.key


def _typed(entity: Entity) -> str:
    name = _name(entity)
    return name if entity.type == _UNTYPED else f"{name} ({entity.type})"


def _value(fact: Fact) -> str:
    written = fact.qualifiers.get("odke.source_form")
    if isinstance(written, str) and written.strip():
        return written
    value = fact.object_value
    return str(value).lower() if isinstance(value, bool) else str(value)


def _qualifiers(fact: Fact) -> str:
    shown = [(k, fact.qualifiers[k]) for k in sorted(fact.identity_keys) if k in fact.qualifiers]
    return ", ".join(f"{k}: {v}" for k, v in shown)


def render_span_claim(fact: Fact) -> str:
    """The span format's claim line, without the ``Claim:`` label (see the module docstring)."""
    words = predicate_words(fact.predicate)
    qualifiers = _qualifiers(fact)
    if qualifiers:
        words = f"{words} ({qualifiers})"
    obj = _typed(fact.object_entity) if fact.object_entity is not None else _value(fact)
    claim = f"{_typed(fact.subject)} — {words} — {obj}."
    if fact.polarity is Polarity.denied:
        return f"It is NOT the case that: {claim}"
    if fact.polarity is Polarity.partial:
        return f"It is partly the case that: {claim}"
    return claim


def render_paper_claim(fact: Fact) -> str:
    """The paper format's triple: ``<subject, predicate(qualifier: value), object>``."""
    predicate = fact.predicate
    qualifiers = _qualifiers(fact)
    if qualifiers:
        predicate = f"{predicate}({qualifiers})"
    obj = _name(fact.object_entity) if fact.object_entity is not None else _value(fact)
    triple = f"<{_name(fact.subject)}, {predicate}, {obj}>"
    if fact.polarity is Polarity.denied:
        return f"NOT {triple}"
    return triple
