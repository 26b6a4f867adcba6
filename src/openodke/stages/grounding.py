"""The run config's grounders: ``span`` (the free checks alone) and ``llm`` (a model behind them).

Both are ``openodke.ground.CheckedGrounder``s, so the free checks (the span check; with an ontology
the schema checks) always run first and a fact they settle is never sent to the model. The
``llm`` grounder's options are ``LLMGrounder``'s: ``max_workers``, ``retry``, ``context``,
``verdicts``, ``claim_format``, ``locate``, ``widen``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from openodke.ground import CheckedGrounder, LLMGrounder
from openodke.llm import LLMClient, ModelRoles
from openodke.ontology import Ontology

__all__ = ["ModelGrounder", "SpanGrounder"]


class SpanGrounder(CheckedGrounder):
    """The free checks alone (``span``): offsets and quotes against the text, and the schema."""

    name = "span"

    def __init__(self, ontology: Ontology | None = None) -> None:
        super().__init__(None, ontology)


class ModelGrounder(CheckedGrounder):
    """The free checks, then ``LLMGrounder`` on what they leave open (``llm``).

    ``client`` None builds the live client for the ``ground`` role (checked before any call).
    """

    name = "llm"

    def __init__(
        self,
        ontology: Ontology | None = None,
        *,
        client: LLMClient | None = None,
        roles: ModelRoles | None = None,
        claim_format: Literal["span", "paper"] = "span",
        context: Literal["document"] | None = None,
        verdicts: Literal["binary"] | None = None,
        locate: bool = False,
        widen: bool = False,
        max_workers: int = 8,
        retry: Mapping[str, Any] | None = None,
        progress: bool | None = None,
    ) -> None:
        inner = LLMGrounder(
            roles,
            client=client,
            claim_format=claim_format,
            context=context,
            verdicts=verdicts,
            locate=locate,
            widen=widen,
            max_workers=max_workers,
            retry=retry,
            progress=progress,
        )
        super().__init__(inner, ontology)
