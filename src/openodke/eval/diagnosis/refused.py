"""What the gate refused, as columns (:class:`Refused`): read by the precision side's buckets
(``precision``) and by the examples (``explain``), in its own module so neither imports the
other."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from openodke.eval.diagnosis.names import Ends
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.joins import first_of_each, mix
from openodke.eval.engine.matching import scored_documents

if TYPE_CHECKING:
    from openodke.types import Fact

__all__ = ["Refused"]


class Refused:
    """What the gate refused, as columns: each fact, the gate's reason, and the document it is
    scored in (-1: it cites none; -2: it cites only unlabelled documents)."""

    def __init__(self, view: DiagnosisView, refused: list[tuple[Fact, str | None]]) -> None:
        self.facts = refused
        # One row per document a refused fact cites, as the predictions are scored.
        self.columns = FactColumns.of_facts([f for f, _ in refused]).per_document()
        self.ends = Ends(self.columns)
        self.doc = scored_documents(self.columns.docs, view.score.matching.doc_ids)
        c, aligner = self.columns, view.score.aligner
        # compared as the predictions were (types, prefixes, documents: DECISIONS 121-128)
        keys = c.keys if aligner is None else aligner.keys(c.keys, c.docs, c.types, c)
        self.key = keys.key

    def __len__(self) -> int:
        return len(self.facts)

    def reason(self, r: int) -> str | None:
        """The gate's reason for the refused fact of row ``r``."""
        return self.facts[int(self.columns.fact_of(np.asarray(r)))][1]

    def first_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Codes of (document, key) in the order each first appears, with that first row;
        facts citing only unlabelled documents are left out."""
        rows = np.flatnonzero(self.doc != -2)
        codes = mix(self.doc[rows], self.key[rows])
        order = np.argsort(codes, kind="stable")
        firsts = np.sort(order[first_of_each(codes[order])])
        return codes[firsts], rows[firsts]
