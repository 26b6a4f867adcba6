"""The replay-server fixture for the grounding tests."""

from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name
