"""load_jsonl reads each line straight from its bytes and goes the careful way (json.loads, then
the model) only for a line that refuses: the same rows, the same errors."""

from __future__ import annotations

import json
import random

import pytest

from openodke import Entity, Evidence, Fact
from openodke.errors import InputError
from openodke.eval import GoldFact
from openodke.eval.engine.jsonl import iter_json_lines, load_jsonl
from openodke.types import Polarity


def _careful(path, model):
    """The line-by-line reader load_jsonl replaced: json.loads, then model_validate."""
    return [model.model_validate(value) for _, value in iter_json_lines(path)]


def _facts(seed: int) -> list[Fact]:
    rng = random.Random(seed)
    out = []
    for k in range(60):
        fact = Fact(
            id=f"f{k}",
            subject=Entity(key=f"s{rng.randrange(5)}", type="Person", aliases=("x",) * (k % 2)),
            predicate=rng.choice(["born", "lives in"]),
            polarity=rng.choice(list(Polarity)),
            qualifiers={"year": rng.randrange(3)},
            identity_keys=("year",) * (k % 3 == 0),
            evidence=(Evidence(doc_id=f"d{rng.randrange(3)}"),),
            **(
                {"object_value": rng.choice([1815, "1815", 2.5, True, " x "])}
                if rng.random() < 0.5
                else {"object_entity": Entity(key="c", label="C")}
            ),
        )
        out.append(fact)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_rows_equal_the_careful_readers(tmp_path, seed):
    facts = _facts(seed)
    path = tmp_path / "facts.jsonl"
    lines = [f.model_dump_json() for f in facts]
    lines.insert(3, "")  # blank lines and CRLF ends are tolerated
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\n").encode())
    assert load_jsonl(path, Fact) == _careful(path, Fact) == facts


def test_a_line_only_the_careful_parser_reads_is_read(tmp_path):
    # NaN is not JSON; json.loads reads it, and the row was always accepted: it still is.
    row = {"subject": {"key": "a"}, "predicate": "p", "object_value": 1}
    path = tmp_path / "f.jsonl"
    path.write_text(json.dumps(row)[:-1] + ', "confidence": NaN}\n')
    (fact,) = load_jsonl(path, Fact)
    assert fact.confidence != fact.confidence  # NaN


def test_fresh_ids_differ_and_are_uuid4(tmp_path):
    import uuid

    path = tmp_path / "gold.jsonl"
    row = '{"doc_id": "d", "fact": {"subject": {"key": "a"}, "predicate": "p", "object_value": 1}}'
    path.write_text((row + "\n") * 600)
    ids = [g.fact.id for g in load_jsonl(path, GoldFact)]
    assert len(set(ids)) == 600
    assert all(uuid.UUID(hex=i).version == 4 and uuid.UUID(hex=i).hex == i for i in ids)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"doc_id": "d"}\n', "g.jsonl:1: fact: missing required field"),
        (b"\n\n[1, 2]\n", "g.jsonl:3: expected a JSON object, got list"),
        (b'{"doc_id": "d", "fact": 5, "x": 1}\n', "g.jsonl:1: x: unknown key (and 1 more)"),
        (b"ok\n", "g.jsonl:1: invalid JSON: Expecting value at column 1"),
        (b'{"doc_id": "\xff"}\n', "g.jsonl:1: not UTF-8 (byte 0xff at column 13)"),
        (b"\r\n  \n", "g.jsonl: empty file: expected one JSON object per line"),
    ],
)
def test_errors_name_the_line_and_field(tmp_path, content, message):
    path = tmp_path / "g.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        load_jsonl(path, GoldFact)
    assert str(caught.value).endswith(message)
