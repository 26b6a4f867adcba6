"""The run config: every key, YAML and JSON, every problem listed at its line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from openodke.errors import InputError
from openodke.run import ConfigError, load_config, parse_config
from openodke.run.source import MAX_ALIASES, MAX_BYTES, read_source
from tests.run.conftest import PATTERN, write_config

FULL = """\
ontology: ontology.json
inputs:
  - {path: register.csv, loader: csv, tier: authoritative, columns: [name, founded]}
  - notes
pythonpath: [notes]
models:
  extract: {model: ollama/qwen2.5:7b, temperature: 0}
  ground: openai/gpt-4o-mini
  meter: true
stages:
  chunker: {use: sentence, max_words: 50}
  router: passthrough
  extractor: {use: hybrid, llm: {snippet_limit: 3}, pattern: {subject_type: Company}}
  grounder: {use: llm, widen: true, retry: {attempts: 2}}
  normalizer: {use: value, day_first: true}
  resolver: {use: native, threshold: 0.8}
  corroborator: {use: signature, half_life_days: 30}
  scorer: {use: evidence, prior: 0.3}
  gate: {use: verdict, refuse_not_found: true, schema: true}
  sink: [{use: jsonl, directory: out}]
inverses: true
coverage: false
reextract: {windows: 2}
budget: {usd: 1.5, calls: 100}
cache: .cache
calibration: []
"""


def test_every_key_is_read_and_paths_resolve_against_the_config_folder(folder: Path) -> None:
    config = load_config(write_config(folder, FULL))
    assert config.ontology == (folder / "ontology.json").resolve()
    assert [i.path for i in config.inputs] == [
        (folder / "register.csv").resolve(),
        (folder / "notes").resolve(),
    ]
    assert config.inputs[0].loader.use == "csv"
    assert config.inputs[0].loader.options == {
        "tier": "authoritative",
        "columns": ["name", "founded"],
    }
    assert config.inputs[1].loader.use == "directory"  # a folder without a loader
    assert config.pythonpath == ((folder / "notes").resolve(),)
    assert config.models.roles.extract.model == "ollama/qwen2.5:7b"
    assert config.models.roles.extract.temperature == 0
    assert config.models.roles.ground.model == "openai/gpt-4o-mini"
    assert config.models.roles.ground.max_tokens == 256
    assert config.models.meter is True
    stages = config.stages
    assert stages.chunker is not None and stages.chunker.options == {"max_words": 50}
    assert stages.extractor.use == "hybrid"
    assert stages.gate is not None and stages.gate.options["schema"] is True
    assert [s.use for s in stages.sink] == ["jsonl"]
    assert stages.extractor.line == 13
    assert (config.inverses, config.coverage) == (True, False)
    assert config.reextract is not None and config.reextract.windows == 2
    assert config.budget is not None and (config.budget.usd, config.budget.calls) == (1.5, 100)
    assert config.cache == (folder / ".cache").resolve()


def test_json_config_reads_the_same_and_places_problems_at_their_lines(folder: Path) -> None:
    data = {
        "ontology": "ontology.json",
        "inputs": ["register.csv"],
        "stages": {"extractor": PATTERN},
    }
    config = load_config(write_config(folder, json.dumps(data, indent=2), "odke.json"))
    assert config.stages.extractor.options["subject_type"] == "Company"
    data["stages"] = {"extractor": {**PATTERN, "confidance": 1}}
    path = write_config(folder, json.dumps(data, indent=2), "odke.json")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    (problem,) = caught.value.problems
    line = next(
        n for n, text in enumerate(path.read_text().splitlines(), 1) if "confidance" in text
    )
    assert problem.message == (
        f"{path}:{line}: stages.extractor.confidance: unknown option (did you mean 'confidence'?);"
        " its options: mappings, subject_type, confidence"
    )


def test_every_problem_is_listed_with_its_line_and_a_did_you_mean(folder: Path) -> None:
    text = """\
ontology: ontology.json
inputs:
  - {path: register.csv, tierr: curated}
  - page.html
stages:
  extractor: {use: llm, snipet_limit: 3}
  chunker: sentense
  sink: neo4j
  gate: {use: verdict, refuse_not_found: maybe}
bootstrap: true
modelz: {}
models:
  extract: {model: ollama/x, api_key: sk-secret-value}
  infer: ollama/y
budget: {usd: 1, tokens: 3}
reextract: {window: 2}
"""
    (folder / "page.html").write_text("<p>x</p>")
    path = write_config(folder, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    got = [p.message.removeprefix(f"{path}:") for p in caught.value.problems]
    assert got == [
        "3: inputs[0].tierr: unknown option (did you mean 'tier'?); its options: tier, "
        "encoding, modality, records, columns, delimiter",
        "4: html is not built",
        "6: stages.extractor.snipet_limit: unknown option (did you mean 'snippet_limit'?); its "
        "options: types, snippet_limit, confidence, repairs, retry, max_workers, structured",
        "7: stages.chunker: unknown chunker 'sentense' (did you mean 'sentence'?); built: "
        "sentence, passthrough (or a custom class, package.module:Name)",
        "8: neo4j is not built",
        "9: stages.gate.refuse_not_found: Input should be a valid boolean, unable to interpret "
        "input, got 'maybe'",
        "10: bootstrap is not built",
        "11: modelz: unknown key (did you mean 'models'?); expected one of ontology, inputs, "
        "pythonpath, models, stages, inverses, coverage, reextract, budget, prices, cache, "
        "calibration, batch",
        "13: models.extract: api_key is never read from a config: put the key in an environment "
        "variable and name that variable with api_key_env",
        "14: infer is not built",
        "15: budget.tokens is not built",
        "16: reextract.window: unknown option (did you mean 'windows'?); its options: windows",
    ]
    assert "sk-secret-value" not in str(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("inputs: [register.csv]\nstages: {extractor: pattern}\n", "1: ontology is required"),
        ("ontology: ontology.json\nstages: {extractor: pattern}\n", "1: inputs is required"),
        ("ontology: ontology.json\ninputs: [register.csv]\n", "1: stages is required"),
        (
            "ontology: ontology.json\ninputs: [register.csv]\nstages: {chunker: sentence}\n",
            "3: stages: stages.extractor is required (llm, pattern, hybrid or triples)",
        ),
        (  # a raw pydantic error, exit 1, before (issue 22)
            "ontology: ontology.json\ninputs: [register.csv]\nstages:\n  extractor: null\n",
            "4: stages.extractor: stages.extractor is required (llm, pattern, hybrid or triples)",
        ),
        (
            "ontology: schema.owl\ninputs: [register.csv]\nstages: {extractor: pattern}\n",
            "1: OWL ontology import is not built",
        ),
        (
            "ontology: ontology.json\ninputs: [missing.txt]\nstages: {extractor: pattern}\n",
            "2: inputs[0]: no such file or folder: {folder}/missing.txt",
        ),
        (
            "ontology: ontology.json\ninputs: [register.csv]\nstages: {extractor: pattern}\n"
            "stages: {extractor: llm}\n",
            "4: stages: given twice",
        ),
        (
            "ontology: ontology.json\ninputs: [register.csv]\nstages:\n  extractor: pattern\n"
            "  loader: csv\n",
            "5: stages.loader: the loader is set per input: inputs: [{path, loader}]",
        ),
    ],
)
def test_a_missing_or_bad_key_is_one_problem_at_its_line(
    folder: Path, text: str, problem: str
) -> None:
    path = write_config(folder, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    messages = [p.message.removeprefix(f"{path}:") for p in caught.value.problems]
    assert problem.replace("{folder}", str(folder.resolve())) in messages


@pytest.mark.parametrize("style", ["[", "{a: "])
def test_100_000_levels_of_nesting_are_refused_in_seconds(folder: Path, style: str) -> None:
    # 200 KB: the alias count ran the pure-Python parser over it for minutes (issue 22).
    closing = "]" if style == "[" else "}"
    path = write_config(folder, "stages: " + style * 100_000 + closing * 100_000 + "\n")
    started = time.monotonic()
    with pytest.raises(InputError, match=r":1: invalid YAML: .*nesting|nested"):
        read_source(path)
    assert time.monotonic() - started < 10


def test_an_alias_bomb_is_refused_before_it_expands(folder: Path) -> None:
    # Eleven levels of ten aliases each: 10^11 values once expanded.
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for level in range(1, 12):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    path = write_config(folder, "\n".join(lines) + "\n")
    with pytest.raises(InputError, match=f"more than {MAX_ALIASES} aliases"):
        read_source(path)
    few = "a0: &a0 [" + ", ".join(['"x"'] * 400) + "]\n"
    few += "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 6))
    with pytest.raises(InputError, match="expands to more than 100,000 values"):
        read_source(write_config(folder, few, "few.yaml"))


def test_a_file_past_the_size_limit_is_refused_unread(folder: Path) -> None:
    path = write_config(folder, "#" * (MAX_BYTES + 1))
    with pytest.raises(InputError, match="larger than 1,000,000 bytes"):
        load_config(path)


def test_parse_config_takes_a_mapping_and_a_base_dir(folder: Path) -> None:
    config = parse_config(
        {"ontology": "ontology.json", "inputs": "register.csv", "stages": {"extractor": PATTERN}},
        base_dir=folder,
    )
    assert config.inputs[0].loader.use == "csv"
    assert config.path is None and config.base_dir == folder.resolve()
    with pytest.raises(
        ConfigError, match=r"^run config: stages.extractor: a stage mapping needs `use: <name>`"
    ):
        parse_config(
            {"ontology": "ontology.json", "inputs": "register.csv", "stages": {"extractor": {}}},
            base_dir=folder,
        )


def test_a_custom_class_is_accepted_with_any_options_until_it_is_built(folder: Path) -> None:
    config = parse_config(
        {
            "ontology": "ontology.json",
            "inputs": ["register.csv"],
            "stages": {"extractor": PATTERN, "resolver": {"use": "mine.stages:Res", "k": 1}},
        },
        base_dir=folder,
    )
    assert config.stages.resolver is not None
    assert (config.stages.resolver.use, config.stages.resolver.options) == (
        "mine.stages:Res",
        {"k": 1},
    )


def test_naming_only_extract_grounds_on_it_with_a_small_max_tokens(folder: Path) -> None:
    config = parse_config(
        {
            "ontology": "ontology.json",
            "inputs": ["register.csv"],
            "models": {"extract": "ollama/qwen2.5:7b"},
            "stages": {"extractor": PATTERN},
        },
        base_dir=folder,
    )
    roles = config.models.roles
    assert (roles.extract.model, roles.extract.max_tokens) == ("ollama/qwen2.5:7b", 2048)
    assert (roles.ground.model, roles.ground.max_tokens) == ("ollama/qwen2.5:7b", 256)
