"""Reports as HTML: one self-contained page (``odke report html``, ``--html PATH``) and the
notebook view (``EvalReport._repr_html_``). Imported only when HTML is asked for.

Rendering only: the numbers come from :mod:`openodke.eval.report.tables` and the report itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from openodke.eval.report.html.notebook import notebook_html
from openodke.eval.report.html.page import render_page

if TYPE_CHECKING:
    from openodke.eval.report.models import EvalReport
    from openodke.eval.stages.stage_report import StageReport
    from openodke.types import Document

__all__ = ["notebook_html", "render_html", "write_html"]


def render_html(
    report: EvalReport | StageReport,
    *,
    documents: Iterable[Document] | Mapping[str, str] | None = None,
) -> str:
    """The report as one self-contained HTML page. ``documents`` (Documents, or id → text) give
    each diagnosis example the text around it; only the examples' documents are kept."""
    return render_page(report, texts=_texts(report, documents))


def write_html(
    path: str | Path,
    report: EvalReport | StageReport,
    *,
    documents: Iterable[Document] | Mapping[str, str] | None = None,
) -> None:
    """Write :func:`render_html`'s page to ``path`` atomically."""
    from openodke.eval.engine.jsonl import atomic_write_text

    atomic_write_text(path, render_html(report, documents=documents))


def _texts(
    report: EvalReport | StageReport,
    documents: Iterable[Document] | Mapping[str, str] | None,
) -> dict[str, str]:
    """The texts of the documents the diagnosis examples name (by id, else by file stem)."""
    if documents is None:
        return {}
    from openodke.doc_ids import under_names

    wanted = {e.doc_id for d in getattr(report, "diagnosis", ()) for e in d.examples}
    by_id = dict(documents) if isinstance(documents, Mapping) else {d.id: d.text for d in documents}
    found = under_names(by_id, wanted)
    return {name: found[name] for name in wanted if name in found}
