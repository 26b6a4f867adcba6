"""Label sheets a person fills: Markdown items with tick boxes, made from rows and read back."""

from openodke.labels.kinds import (
    BOXES,
    KINDS,
    FactPairLabel,
    fact_item,
    grounding_item,
    label_rows,
    pair_item,
    refusal_item,
)
from openodke.labels.sheets import SheetItem, Ticked, read_sheets, sheet_files, write_sheets

__all__ = [
    "BOXES",
    "KINDS",
    "FactPairLabel",
    "SheetItem",
    "Ticked",
    "fact_item",
    "grounding_item",
    "label_rows",
    "pair_item",
    "read_sheets",
    "refusal_item",
    "sheet_files",
    "write_sheets",
]
