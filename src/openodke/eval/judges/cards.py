"""The calibration line beside every judged number (surface.md decision 2, DECISIONS #54).

A judge is a model plus a prompt (``id@version``). Its line is its calibration card's line when a
card exists, else ``UNCALIBRATED``; a judge below the bar is printed, not trusted. Cards live in
``openodke.calibration``; until that package is installed every judge reads ``UNCALIBRATED``, and
this module is the one place that looks them up.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openodke.eval.report.models import CalibrationLine

__all__ = ["UNCALIBRATED", "judge_line", "trust_note"]

UNCALIBRATED = "UNCALIBRATED"


def _calibration() -> Any:
    """``openodke.calibration`` when it is installed, else None."""
    try:
        return importlib.import_module("openodke.calibration")
    except ModuleNotFoundError as error:
        if error.name in ("openodke.calibration", "openodke"):
            return None
        raise


def judge_line(
    role: str, model: str, prompt: str, *, cards: Sequence[str | Path] = ()
) -> CalibrationLine:
    """The report's calibration entry for one judge: its card line, or ``UNCALIBRATED``.

    ``cards`` are extra card files or folders (a run config's ``calibration:`` key).
    """
    module = _calibration()
    if module is not None and hasattr(module, "card_for"):
        card = module.card_for(model, prompt, extra=list(cards))
        if card is not None:
            return CalibrationLine(
                role=role,
                model=model,
                prompt=prompt,
                line=module.card_line(card),
                meets_bar=bool(module.meets_bar(card)),
            )
    return CalibrationLine(
        role=role, model=model, prompt=prompt, line=UNCALIBRATED, meets_bar=False
    )


def trust_note(line: CalibrationLine) -> str:
    """One line for a table's foot: the judge, its card line, and whether to trust it."""
    verdict = "meets the bar" if line.meets_bar else "below the bar: printed, not trusted"
    return f"judge {line.prompt} on {line.model}: {line.line} ({verdict})"
