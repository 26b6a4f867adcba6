"""The ``pattern`` extractor: ``Label: value`` lines (a fact sheet, a rendered CSV record) as facts.

Each line ``Label: value`` (a Markdown bullet and ``**bold**`` around the label allowed) whose label
is in ``mappings`` (label -> predicate, labels compared case-folded with ``_`` as a space) becomes
one fact about the document's subject. Without ``mappings`` a label is looked up among the
ontology's predicate names, aliases and labels. The subject is named, in this order, by the values
of its type's ``keys`` predicates (joined by a space), by the document's title, by a line labelled
``name``, else by the first matched line's value. Its type is ``subject_type``, else the domain of
the first matched predicate when it has exactly one type, else ``Thing``. A ``multi`` predicate's
value is split at ``;``. Each fact cites its line: the span runs from the label to the value's end.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openodke.errors import InputError
from openodke.ontology import Ontology
from openodke.ontology.model import Predicate, lookup_form
from openodke.stages.base import ExtractionResult
from openodke.stages.facts import cited_evidence, make_fact
from openodke.types import Chunk, Document, Fact

__all__ = ["PatternExtractor", "read_lines"]

_LINE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?P<label>[^:\n]*?[^:\s][^:\n]*?)[ \t]*:(?P<gap>[ \t]*)(?P<value>[^\n]*?)[ \t\r]*$",
    re.MULTILINE,
)
_MARKUP = "*_` "


@dataclass(frozen=True)
class _Line:
    label: str
    value: str
    start: int  # where the label starts
    end: int  # where the value ends
    value_start: int


def read_lines(text: str) -> list[_Line]:
    """Every ``Label: value`` line with a non-empty label and value, markup stripped."""
    lines = []
    for match in _LINE.finditer(text):
        label = match.group("label").strip(_MARKUP)
        raw_value = match.group("value")
        value = raw_value.strip(_MARKUP)
        if not label or not value or raw_value.startswith("//"):  # a URL, not a label
            continue
        value_start = match.start("value") + (len(raw_value) - len(raw_value.lstrip(_MARKUP)))
        value_end = value_start + len(value)
        lines.append(_Line(label, value, match.start("label"), value_end, value_start))
    return lines


class PatternExtractor:
    """Reads ``Label: value`` lines (``pattern``); see the module docstring for the rules.

    Options: ``mappings`` (label -> predicate), ``subject_type``, ``confidence`` (0.8: a labelled
    line is rarely misread). Needs ``mappings`` or an ontology.
    """

    name = "pattern"

    def __init__(
        self,
        ontology: Ontology | None = None,
        *,
        mappings: Mapping[str, str] | None = None,
        subject_type: str | None = None,
        confidence: float = 0.8,
    ) -> None:
        if mappings is None and ontology is None:
            raise InputError("pattern: set mappings (label -> predicate) or give an ontology")
        if not 0.0 <= confidence <= 1.0:
            raise InputError(f"confidence: expected 0 to 1, got {confidence}")
        self.ontology = ontology
        self.mappings = {lookup_form(k): v for k, v in (mappings or {}).items()}
        self.subject_type = subject_type
        if ontology is not None and subject_type is not None:
            found = ontology.entity_type(subject_type)
            if found is None:
                raise InputError(f"subject_type: {subject_type!r} is not a type of the ontology")
            self.subject_type = found.name
        self.confidence = confidence

    def __repr__(self) -> str:
        return (
            f"PatternExtractor(mappings={len(self.mappings)}, subject_type={self.subject_type!r})"
        )

    def _predicate(self, label: str) -> Predicate | str | None:
        form = lookup_form(label)
        if self.mappings:
            target = self.mappings.get(form)
            if target is None:
                return None
            if self.ontology is not None:
                return self.ontology.predicate(target) or target
            return target
        return self.ontology.predicate(label) if self.ontology is not None else None

    def _subject_type(self, first: Predicate | str) -> str:
        if self.subject_type is not None:
            return self.subject_type
        if isinstance(first, Predicate) and len(first.domain) == 1:
            return first.domain[0]
        return "Thing"

    def _subject_name(
        self, document: Document, type_name: str, matched: Sequence[tuple[_Line, Predicate | str]]
    ) -> str:
        keys: tuple[str, ...] = ()
        if self.ontology is not None:
            found = self.ontology.entity_type(type_name)
            keys = found.keys if found is not None else ()
        by_name = {(p.name if isinstance(p, Predicate) else p): line.value for line, p in matched}
        parts = [by_name[k] for k in keys if k in by_name]
        if parts and len(parts) == len(keys):
            return " ".join(parts)
        if document.title:
            return document.title
        for line, _ in matched:
            if lookup_form(line.label) == "name":
                return line.value
        return matched[0][0].value

    def extract(self, document: Document) -> list[Fact]:
        """The facts the document's ``Label: value`` lines state."""
        matched = [
            (line, p) for line in read_lines(document.text) if (p := self._predicate(line.label))
        ]
        if not matched:
            return []
        type_name = self._subject_type(matched[0][1])
        subject = self._subject_name(document, type_name, matched)
        facts = []
        for line, predicate in matched:
            evidence = cited_evidence(document, line.start, line.end)
            multi = isinstance(predicate, Predicate) and predicate.cardinality == "multi"
            values = [v.strip() for v in line.value.split(";")] if multi else [line.value]
            for value in values:
                if not value:
                    continue
                facts.append(
                    make_fact(
                        subject_type=type_name,
                        subject_name=subject,
                        predicate=predicate,
                        value=value,
                        evidence=evidence,
                        ontology=self.ontology,
                        extractor=self.name,
                        confidence=self.confidence,
                    )
                )
        return facts

    def extract_batch(self, items: Sequence[tuple[Document, Sequence[Chunk]]]) -> ExtractionResult:
        """Every document's facts; chunks are ignored (a line never spans two, and the subject is
        named once per document)."""
        result = ExtractionResult()
        for document, _chunks in items:
            result.facts.extend(self.extract(document))
        result.stats = {"documents": len(items), "facts": len(result.facts)}
        return result
