"""Two checks on every predicted fact, cheap enough for a million rows: does it fit the ontology,
and does its cited document's text name both ends?

Both are reduced to bit flags per fact, computed by the same code on the Fact path and the fast
JSON path, and summed into the report row's ``conformance`` and ``hallucination``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from openodke.doc_ids import DocIds
from openodke.eval.engine.key_table import DocColumn
from openodke.eval.report.models import Conformance, Hallucination
from openodke.ontology import Ontology
from openodke.types import Document, Fact

__all__ = ["CHECKED", "CONFORMANT", "OBJECT_UNNAMED", "SUBJECT_UNNAMED", "FactChecks"]

CONFORMANT, SUBJECT_UNNAMED, OBJECT_UNNAMED, CHECKED = 1, 2, 4, 8


def _name(key: str, label: str | None) -> str:
    """What a text would call an entity: its label, else its key after ``Type:``."""
    return (label or key.split(":", 1)[-1]).casefold()


class FactChecks:
    """The ontology and the documents' texts, ready to check facts against.

    A fact's cited id finds its document by id, else by file stem when unique
    (:mod:`openodke.doc_ids`), each distinct id looked up once. ``renamed`` gives the type a
    type name means (``Identity.renamed``: the ``--type-map``), so conformance reads mapped types.
    """

    def __init__(
        self,
        ontology: Ontology | None,
        documents: Sequence[Document],
        renamed: Callable[[str], str | None] | None = None,
    ) -> None:
        self.ontology = ontology
        self._renamed = renamed  # --type-map: conformance reads the types it maps to
        self.texts = {d.id: d.text.casefold() for d in documents}
        self._ids = DocIds(self.texts)
        self._by_hash: dict[int, str | None] = {
            hash(doc): text for doc, text in self.texts.items()
        }  # as key_table
        self._fits: dict[tuple[str, str, str | None], bool] = {}

    def _text(self, doc_id: str) -> str | None:
        """The case-folded text of the document ``doc_id`` names, or None."""
        text = self.texts.get(doc_id)
        if text is None and self.texts:
            found = self._ids.by_stem(doc_id)
            text = None if found is None else self.texts[self._ids.names[found]]
        return text

    def _conformant(self, predicate: str, subject_type: str, object_type: str | None) -> bool:
        o = self.ontology
        assert o is not None
        if self._renamed is not None:
            subject_type = self._renamed(subject_type) or subject_type
            if object_type is not None:
                object_type = self._renamed(object_type) or object_type
        found = o.predicate(predicate)
        return bool(
            found is not None and o.covers(found, subject_type) and o.fits_range(found, object_type)
        )

    def flags(self, facts: Sequence[Any], cited: DocColumn) -> np.ndarray:
        """Bit flags per fact: Facts, or the fast loader's structs (the same attributes);
        ``cited`` the documents each cites (the first with a text is checked)."""
        n = len(facts)
        bits = np.zeros(n, dtype=np.int8)
        subjects = [f.subject for f in facts]
        objects = [f.object_entity for f in facts]
        if self.ontology is not None:
            keys = [
                (f.predicate, s.type, o.type if o is not None else None)
                for f, s, o in zip(facts, subjects, objects, strict=True)
            ]
            fits = self._fits
            for key in set(keys).difference(fits):
                fits[key] = self._conformant(*key)
            bits[np.fromiter(map(fits.__getitem__, keys), bool, n)] |= CONFORMANT
        by_hash = self._by_hash
        names = cited.names
        if self.texts:
            for h in set(cited.hashes[cited.present].tolist()).difference(by_hash):
                by_hash[h] = self._text(names[h])  # an id no document has: by stem, once
        found = [
            by_hash.get(h) if cites else None
            for h, cites in zip(cited.hashes.tolist(), cited.present.tolist(), strict=True)
        ]
        for j, docs in cited.more.items():
            found[j] = next((t for d in docs if (t := self._text(d)) is not None), None)
        checked = [(i, text) for i, text in enumerate(found) if text is not None]
        bits[[i for i, _ in checked]] |= CHECKED
        subject_unnamed = [
            i for i, text in checked if _name(subjects[i].key, subjects[i].label) not in text
        ]
        bits[subject_unnamed] |= SUBJECT_UNNAMED
        object_unnamed = [
            i
            for i, text in checked
            if (
                _name(o.key, o.label)
                if (o := objects[i]) is not None
                else str(facts[i].object_value).casefold()
            )
            not in text
        ]
        bits[object_unnamed] |= OBJECT_UNNAMED
        return bits

    def of_facts(self, facts: Sequence[Fact]) -> np.ndarray:
        """The flags of Facts."""
        return self.flags(facts, DocColumn.of_cited([f.doc_ids for f in facts]))

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
