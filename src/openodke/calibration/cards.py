"""Calibration cards: how well a judge (a model with a prompt) agrees with human labels.

A card is one JSON record (surface.md decision 2, DECISIONS #54)::

    {"judge": {"model": "ollama/qwen2.5:7b", "prompt": "ground.span@1"}, "label_set": "G",
     "split": "gate", "n": 400, "agreement": {"value": 0.93, "low": 0.90, "high": 0.95},
     "kappa": 0.84, "measured_at": "2025-06-01T00:00:00Z"}

Cards ship in ``openodke/calibration/cards/*.json`` and more come from a run config's
``calibration:`` list (card files, or folders of them). A file holds one card, or a JSON list of
cards. A judge is ``model`` plus ``prompt`` exactly; when several cards match, the latest
``measured_at`` counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from openodke.errors import InputError
from openodke.safeio import read_json

__all__ = [
    "Agreement",
    "CalibrationCard",
    "Judge",
    "find_card",
    "load_cards",
    "package_cards",
    "read_cards",
]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Judge(_Strict):
    """Who judged: the model (``<provider>/<model>``) and the prompt (``id@version``)."""

    model: str = Field(min_length=1, description="The judge's model, `<provider>/<model>`.")
    prompt: str = Field(
        pattern=r"^\S+@\d+$", description="The prompt it was asked with, `id@version`."
    )


class Agreement(_Strict):
    """The judge's accuracy against the label set, with its Wilson 95% interval."""

    value: float = Field(ge=0.0, le=1.0, description="Share of labels the judge agreed with.")
    low: float = Field(ge=0.0, le=1.0, description="Lower end of the Wilson 95% interval.")
    high: float = Field(ge=0.0, le=1.0, description="Upper end of the Wilson 95% interval.")

    @model_validator(mode="after")
    def _ordered(self) -> Agreement:
        if not self.low <= self.value <= self.high:
            raise ValueError(
                f"expected low <= value <= high, got {self.low}, {self.value}, {self.high}"
            )
        return self


class CalibrationCard(_Strict):
    """One measurement of one judge on one label set (see the module docstring)."""

    judge: Judge
    label_set: Literal["G", "R", "F"] = Field(
        description="G: grounding verdicts; R: entity pairs; F: fact equivalence."
    )
    split: Literal["dev", "gate"] = Field(description="The labels it was measured on.")
    n: int = Field(ge=1, description="Labelled items the judge answered.")
    agreement: Agreement
    kappa: float | None = Field(
        ge=-1.0, le=1.0, description="Cohen's kappa; null when undefined (one class only)."
    )
    measured_at: AwareDatetime = Field(description="When it was measured, with its time zone.")


def _read_file(path: Path) -> list[CalibrationCard]:
    where = str(path)
    data: Any = read_json(path, what="a JSON calibration card")
    rows = data if isinstance(data, list) else [data]
    cards: list[CalibrationCard] = []
    for index, row in enumerate(rows):
        try:
            cards.append(CalibrationCard.model_validate(row))
        except ValidationError as error:
            first = error.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "card"
            at = f"[{index}]." if isinstance(data, list) else ""
            raise InputError(f"{at}{loc}: {first['msg']}", path=where) from None
    return cards


def read_cards(path: str | Path) -> list[CalibrationCard]:
    """The cards in one file, or in every ``*.json`` file of a folder (sorted by name)."""
    root = Path(path)
    if root.is_dir():
        return [card for file in sorted(root.glob("*.json")) for card in _read_file(file)]
    if not root.exists():
        raise InputError("no such calibration card file or folder", path=str(root))
    return _read_file(root)


def package_cards() -> list[CalibrationCard]:
    """The cards shipped in ``openodke/calibration/cards/``."""
    folder = resources.files("openodke.calibration").joinpath("cards")
    cards: list[CalibrationCard] = []
    if not folder.is_dir():  # an install that packed no card leaves no folder
        return cards
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            with resources.as_file(entry) as path:
                cards += _read_file(Path(path))
    return cards


def load_cards(extra: Iterable[str | Path] = (), *, shipped: bool = True) -> list[CalibrationCard]:
    """The package's cards (unless ``shipped=False``), then those in ``extra`` files or folders."""
    cards = package_cards() if shipped else []
    for path in extra:
        cards += read_cards(path)
    return cards


def find_card(cards: Sequence[CalibrationCard], model: str, prompt: str) -> CalibrationCard | None:
    """The card of the judge ``model`` + ``prompt`` (exact), the latest ``measured_at``; or None."""
    matching = [c for c in cards if c.judge.model == model and c.judge.prompt == prompt]
    return max(matching, key=lambda c: c.measured_at) if matching else None
