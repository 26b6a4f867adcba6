"""The spec page's cost example, verbatim from its ground section on.

The page imports CostMeter from ``openodke.eval``; until the lead re-exports it there, the one
import line is read from ``openodke.llm``, where it lives. Nothing else is changed.
"""

from __future__ import annotations

import contextlib
import io

import openodke.eval

EXAMPLE = """
from openodke import Entity, Evidence, Fact, GroundingVerdict, Span
from openodke.eval import GroundingLabel

ada = Entity(key="ada", type="Person")
text = "Ada Lovelace was born in London in 1815."
passage = (Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=len(text))),)


def labelled(id, predicate, value, verdict):
    fact = Fact(id=id, subject=ada, predicate=predicate, object_value=value, evidence=passage)
    return GroundingLabel(text=text, fact=fact, verdict=verdict)


labels = [
    labelled("g1", "born", 1815, "supported"),
    labelled("g2", "birthplace", "London", "supported"),
    labelled("g3", "born", 1816, "contradicted"),
    labelled("g4", "died", 1852, "not_found"),
]

from openodke.eval import CostMeter
from openodke.ground import LLMGrounder
from openodke.llm import ModelRoles, ScriptedClient

meter = CostMeter()
client = meter.client(ScriptedClient([{"verdict": "supported"}] * len(labels)), stage="ground")
grounder = LLMGrounder(ModelRoles.single("ollama/qwen2.5:3b"), client=client)
for row in labels:
    grounder.ground(row.fact, row.as_document())

cost = meter.report(documents=1)
assert cost.stages["ground"].calls == 4
assert cost.total.cost_usd is None  # a scripted client reports no price, and none is invented
print(cost.per_1k_documents()["total"]["calls"])
"""


def test_the_cost_example_runs_and_prints_what_the_page_shows() -> None:
    code = EXAMPLE
    if not hasattr(openodke.eval, "CostMeter"):
        code = code.replace(
            "from openodke.eval import CostMeter", "from openodke.llm import CostMeter"
        )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "cost-example", "exec"), {})
    assert out.getvalue().splitlines() == ["4000.0"]
