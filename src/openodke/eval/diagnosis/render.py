"""The diagnosis as ``odke eval pipeline`` prints it: the spec's table, examples, false positives."""

from __future__ import annotations

from openodke.eval.diagnosis.models import render_diagnosis

__all__ = ["render_diagnosis"]
