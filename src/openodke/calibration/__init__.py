"""Calibration cards and the bar a judge must meet before its verdicts refuse facts (#54).

``load_cards`` reads the shipped cards and any a run config adds; ``find_card`` picks a judge's
(model + prompt, latest ``measured_at``); ``meets_bar`` and ``card_line`` say whether to trust it
and how to print it.
"""

from openodke.calibration.bar import (
    BAR_LOW,
    BAR_N,
    UNCALIBRATED,
    calibration_entry,
    card_line,
    meets_bar,
)
from openodke.calibration.cards import (
    Agreement,
    CalibrationCard,
    Judge,
    find_card,
    load_cards,
    package_cards,
    read_cards,
)

__all__ = [
    "BAR_LOW",
    "BAR_N",
    "UNCALIBRATED",
    "Agreement",
    "CalibrationCard",
    "Judge",
    "calibration_entry",
    "card_line",
    "find_card",
    "load_cards",
    "meets_bar",
    "package_cards",
    "read_cards",
]
