"""The calibration line beside every judged number (surface.md decision 2, DECISIONS #54).

A judge is a model plus a prompt (``id@version``). Its line is its calibration card's line
(:mod:`openodke.calibration`: the shipped cards and any a run config adds), else
``UNCALIBRATED``; a judge below the bar is printed, not trusted. This module is the one place
the judged sections look cards up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from openodke.calibration import UNCALIBRATED, calibration_entry, load_cards
from openodke.eval.report.models import CalibrationLine

__all__ = ["UNCALIBRATED", "judge_line", "trust_note"]


def judge_line(
    role: str, model: str, prompt: str, *, cards: Sequence[str | Path] = ()
) -> CalibrationLine:
    """The report's calibration entry for one judge: its card line, or ``UNCALIBRATED``.

    ``cards`` are extra card files or folders (a run config's ``calibration:`` key).
    """
    return CalibrationLine(**calibration_entry(role, model, prompt, load_cards(cards)))


def trust_note(line: CalibrationLine) -> str:
    """One line for a table's foot: the judge, its card line, and whether to trust it."""
    verdict = "meets the bar" if line.meets_bar else "below the bar: printed, not trusted"
    shown = line.line if line.line == UNCALIBRATED else line.line.split(": ", 1)[1]
    return f"judge {line.prompt} on {line.model}: {shown} ({verdict})"
