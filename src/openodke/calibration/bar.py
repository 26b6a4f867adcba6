"""The calibration bar (DECISIONS #54): which judges' verdicts are trusted, and the card line.

A judge **meets the bar** when its card has ``n >= 100`` and ``agreement.low >= 0.90``. A judge
with no card is ``UNCALIBRATED`` and below the bar: its scores are printed, not trusted. Every
report lists every judge a run called with its card line, or ``UNCALIBRATED``::

    ground.span@1 on ollama/qwen2.5:7b: agreement 0.93 [0.90, 0.95] (Wilson 95%), kappa 0.84,
    n 400, G/gate, 2025-06-01

(one line; wrapped here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openodke.calibration.cards import CalibrationCard, find_card

__all__ = [
    "BAR_LOW",
    "BAR_N",
    "UNCALIBRATED",
    "calibration_entry",
    "card_line",
    "meets_bar",
]

UNCALIBRATED = "UNCALIBRATED"
"""The line of a judge with no card."""

BAR_N = 100
"""The fewest labelled items a card needs to meet the bar."""

BAR_LOW = 0.90
"""The lowest Wilson 95% lower bound of agreement that meets the bar."""


def meets_bar(card: CalibrationCard | None) -> bool:
    """True when ``card`` exists, has ``n >= 100`` and ``agreement.low >= 0.90``."""
    return card is not None and card.n >= BAR_N and card.agreement.low >= BAR_LOW


def card_line(card: CalibrationCard | None) -> str:
    """The card as one line (see the module docstring), or ``UNCALIBRATED`` for None."""
    if card is None:
        return UNCALIBRATED
    a = card.agreement
    kappa = "—" if card.kappa is None else f"{card.kappa:.2f}"
    return (
        f"{card.judge.prompt} on {card.judge.model}: agreement {a.value:.2f} "
        f"[{a.low:.2f}, {a.high:.2f}] (Wilson 95%), kappa {kappa}, n {card.n}, "
        f"{card.label_set}/{card.split}, {card.measured_at.date().isoformat()}"
    )


def calibration_entry(
    role: str, model: str, prompt: str, cards: Sequence[CalibrationCard]
) -> dict[str, Any]:
    """The report's ``calibration[]`` row for one judge: ``role``, ``model``, ``prompt``,
    ``line`` (its card line or ``UNCALIBRATED``) and ``meets_bar``."""
    card = find_card(cards, model, prompt)
    return {
        "role": role,
        "model": model,
        "prompt": prompt,
        "line": card_line(card),
        "meets_bar": meets_bar(card),
    }
