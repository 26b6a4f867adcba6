"""Keys nowhere (issue 22 item 3): a run with a key in each place, and every file it writes grepped.

The places: an ``X-Api-Key`` header and a camelCase ``openaiApiKey`` in ``extra``, credentials in
the ``base_url``, the value of the ``api_key_env`` variable (sent as the bearer key, and echoed
back by the server in an answer and in its error text), and a key pasted into a wrong field of
the run config (the checker must not echo it).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.run.test_execute import SPAN_CONFIG
from tests.support.llm_server import Answer

HEADER_KEY = "hdr-key-5f1e2d3c4b5a6978"
CAMEL_KEY = "camel-key-0a9b8c7d6e5f4321"
URL_SECRET = "url-secret-13579bdf2468"
ENV_KEY = "sk-env-key-24680ace1357"
PASTED = "sk-pasted-key-ffeeddccbbaa"
ALL = (HEADER_KEY, CAMEL_KEY, URL_SECRET, ENV_KEY, PASTED)


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_a_run_with_a_key_in_each_place_writes_none_of_them(
    folder: Path, llm_server, odke, monkeypatch
) -> None:
    monkeypatch.setenv("GATEWAY_CREDENTIAL", ENV_KEY)
    good = Answer('{"verdict": "supported"}')
    server = llm_server("openai", [good])
    echo = '{"verdict": "supported", "key": "' + ENV_KEY + '"}'  # off schema, and a key
    server.fault("say", text=echo, match="Bolt Co", times=100)
    host = server.base_url.removeprefix("http://")
    config = {
        **SPAN_CONFIG,
        "models": {
            "ground": {
                "model": "openai/local",
                "base_url": f"http://user:{URL_SECRET}@{host}",
                "api_key_env": "GATEWAY_CREDENTIAL",
                "extra": {"headers": {"X-Api-Key": HEADER_KEY}, "openaiApiKey": CAMEL_KEY},
            }
        },
        "stages": {**SPAN_CONFIG["stages"], "grounder": {"use": "llm", "max_workers": 2}},
    }
    path = folder / "odke.json"
    path.write_text(json.dumps(config))
    before = {p for p in _files(folder)}
    result = odke("run", str(path))
    assert result.exit_code == 1, result.stderr  # the echoing fact failed: off schema
    assert "off schema" in result.stderr
    written = [p for p in _files(folder) if p not in before]
    names = {p.name for p in written}
    assert {"facts.jsonl", "manifest.json", "responses.sqlite"} <= names, names
    for output in written:
        data = output.read_bytes()
        for key in ALL:
            assert key.encode() not in data, (output, key)
    for key in ALL:
        assert key not in result.stdout + result.stderr, key
    manifest = json.loads((folder / "out" / "manifest.json").read_text())
    ground = manifest["config"]["models"]["ground"]
    assert ground["api_key_env"] == "GATEWAY_CREDENTIAL"
    assert ground["base_url"] == f"http://<redacted>@{host}"
    assert ground["extra"] == {
        "headers": {"X-Api-Key": "<redacted>"},
        "openaiApiKey": "<redacted>",
    }


def test_the_config_checker_never_echoes_a_value_pasted_into_a_wrong_field(
    folder: Path, odke
) -> None:
    config = {
        **SPAN_CONFIG,
        "models": {"ground": {"model": "openai/local", "temperature": PASTED}},
    }
    path = folder / "odke.json"
    path.write_text(json.dumps(config))
    result = odke("run", str(path))
    assert result.exit_code == 2
    assert PASTED not in result.stderr
    assert "a string of 26 characters (not shown)" in result.stderr
