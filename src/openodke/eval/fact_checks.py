"""Two checks on every predicted fact, cheap enough for a million rows: does it fit the ontology,
and does its cited document's text name both ends?

Both are reduced to bit flags per fact, computed by the same code on the Fact path and the fast
JSON path, and summed into the report row's ``conformance`` and ``hallucination``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from openodke.eval.report_models import Conformance, Hallucination
from openodke.ontology import Ontology
from openodke.types import Document, Fact

__all__ = ["CHECKED", "CONFORMANT", "OBJECT_UNNAMED", "SUBJECT_UNNAMED", "FactChecks"]

CONFORMANT, SUBJECT_UNNAMED, OBJECT_UNNAMED, CHECKED = 1, 2, 4, 8


def _name(key: str, label: str | None) -> str:
    """What a text would call an entity: its label, else its key after ``Type:``."""
    return (label or key.split(":", 1)[-1]).casefold()


class FactChecks:
    """The ontology and the documents' texts, ready to check facts against."""

    def __init__(self, ontology: Ontology | None, documents: Sequence[Document]) -> None:
        self.ontology = ontology
        self.texts = {d.id: d.text.casefold() for d in documents}
        self._fits: dict[tuple[str, str, str | None], bool] = {}

    def _conformant(self, predicate: str, subject_type: str, object_type: str | None) -> bool:
        key = (predicate, subject_type, object_type)
        fits = self._fits.get(key)
        if fits is None:
            o = self.ontology
            assert o is not None
            found = o.predicate(predicate)
            fits = bool(
                found is not None
                and o.covers(found, subject_type)
                and o.fits_range(found, object_type)
            )
            self._fits[key] = fits
        return fits

    def flags(
        self,
        predicate: str,
        subject: tuple[str, str, str | None],
        obj: tuple[str, str, str | None] | None,
        value: object,
        docs: Sequence[str],
    ) -> int:
        """Bit flags for one fact; ``subject``/``obj`` are (key, type, label), obj None for a
        literal ``value``; ``docs`` the documents it cites."""
        bits = 0
        if self.ontology is not None and self._conformant(
            predicate, subject[1], obj[1] if obj is not None else None
        ):
            bits |= CONFORMANT
        text = next((self.texts[d] for d in docs if d in self.texts), None)
        if text is not None:
            bits |= CHECKED
            if _name(subject[0], subject[2]) not in text:
                bits |= SUBJECT_UNNAMED
            named = _name(obj[0], obj[2]) if obj is not None else str(value).casefold()
            if named not in text:
                bits |= OBJECT_UNNAMED
        return bits

    def of_fact(self, fact: Fact) -> int:
        """The flags of a Fact."""
        s, o = fact.subject, fact.object_entity
        return self.flags(
            fact.predicate,
            (s.key, s.type, s.label),
            (o.key, o.type, o.label) if o is not None else None,
            fact.object_value,
            fact.doc_ids,
        )

    def summarise(self, flags: np.ndarray) -> tuple[Conformance | None, Hallucination]:
        """The report row's conformance (None without an ontology) and hallucination."""
        n = len(flags)
        conformance = None
        if self.ontology is not None:
            fitting = int(np.count_nonzero(flags & CONFORMANT))
            conformance = Conformance(
                rate=fitting / n if n else None,
                conformant=fitting,
                facts=n,
                checks=["predicate", "domain", "range"],
            )
        checked = flags[(flags & CHECKED) != 0]
        m = len(checked)
        subject = int(np.count_nonzero(checked & SUBJECT_UNNAMED))
        obj = int(np.count_nonzero(checked & OBJECT_UNNAMED))
        either = int(np.count_nonzero(checked & (SUBJECT_UNNAMED | OBJECT_UNNAMED)))
        hallucination = Hallucination(
            definition="an end whose name the cited document's text does not contain (case-folded)",
            hallucinated=either,
            facts=m,
            rate=either / m if m else None,
            subject=subject / m if m else None,
            object=obj / m if m else None,
        )
        return conformance, hallucination
