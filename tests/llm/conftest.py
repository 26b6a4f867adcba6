"""The replay-server fixture for the model-layer tests (other test folders import it the same way)."""

from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name
