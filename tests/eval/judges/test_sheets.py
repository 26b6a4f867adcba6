"""Label sheets: made, ticked by hand, read back; one tick per item or exit 2 sheet:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from openodke import Entity, Evidence, Fact
from openodke.errors import InputError
from openodke.eval import GroundingLabel, PairLabel
from openodke.eval.judges import (
    BOXES,
    FactPairLabel,
    fact_item,
    grounding_item,
    label_rows,
    pair_item,
    read_sheets,
    refusal_item,
    write_sheets,
)
from openodke.eval.refusals import RefusalLabel

ADA = Entity(key="Person:ada", type="Person", label="Ada Lovelace")


def fact(value: str, fid: str = "f1") -> Fact:
    return Fact(
        id=fid,
        subject=ADA,
        predicate="born_in",
        object_value=value,
        evidence=(Evidence(doc_id="d1"),),
    )


def tick(path: Path, item: int, box: str, mark: str = "x") -> None:
    """Tick ``box`` of item number ``item`` as a person would, in their editor."""
    lines = path.read_text(encoding="utf-8").splitlines()
    inside = False
    for i, line in enumerate(lines):
        if line.startswith("## "):
            inside = line.startswith(f"## {item}. ")
        if inside and line == f"- [ ] {box}":
            lines[i] = f"- [{mark}] {box}"
            break
    else:
        raise AssertionError(f"no box {box!r} in item {item}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_grounding_round_trip(tmp_path: Path) -> None:
    items = [
        grounding_item(fact("London", f"f{i}"), "Ada was born in London.\nShe wrote notes.", "d1")
        for i in range(3)
    ]
    paths = write_sheets(
        items, tmp_path / "sheets", kind="grounding", title="Supported?", per_sheet=2
    )
    assert [p.name for p in paths] == ["sheet-001.md", "sheet-002.md"]
    text = paths[0].read_text(encoding="utf-8")
    assert (
        "## 1. f0" in text
        and "## 2. f1" in text
        and "**Claim:** Ada Lovelace (Person) — born in — London." in text
    )
    assert "> Ada was born in London.\n> She wrote notes." in text
    tick(paths[0], 1, "supported")
    tick(paths[0], 2, "not_found", mark="X")
    tick(paths[1], 3, "contradicted")
    rows = label_rows(read_sheets(tmp_path / "sheets", BOXES))
    assert rows == [
        GroundingLabel(
            text="Ada was born in London.\nShe wrote notes.",
            fact=fact("London", "f0"),
            verdict="supported",
            doc_id="d1",
        ),
        GroundingLabel(
            text="Ada was born in London.\nShe wrote notes.",
            fact=fact("London", "f1"),
            verdict="not_found",
            doc_id="d1",
        ),
        GroundingLabel(
            text="Ada was born in London.\nShe wrote notes.",
            fact=fact("London", "f2"),
            verdict="contradicted",
            doc_id="d1",
        ),
    ]
    # One sheet alone reads too.
    assert len(read_sheets(paths[1], BOXES)) == 1


def test_pair_fact_and_refusal_round_trips(tmp_path: Path) -> None:
    write_sheets([pair_item("acme", "acme-inc")], tmp_path / "p", kind="pair", title="t")
    tick(tmp_path / "p" / "sheet-001.md", 1, "same")
    assert label_rows(read_sheets(tmp_path / "p", BOXES)) == [
        PairLabel(a="acme", b="acme-inc", same=True)
    ]

    gold, said = fact("1815", "g"), fact("10 December 1815", "p")
    write_sheets(
        [fact_item("d1", gold, said, "Ada was born on 10 December 1815.")],
        tmp_path / "f",
        kind="fact",
        title="t",
    )
    tick(tmp_path / "f" / "sheet-001.md", 1, "different")
    assert label_rows(read_sheets(tmp_path / "f", BOXES)) == [
        FactPairLabel(
            doc_id="d1",
            gold=gold,
            prediction=said,
            passage="Ada was born on 10 December 1815.",
            same=False,
        )
    ]

    row = {
        "id": "r1", "claim": "Loud — performer — Rihanna.", "text": "Loud is an album --> by Rihanna.",
        "verdict": "not_found", "reason": "the passage does not settle it", "predicate": "performer",
        "gold": True, "dataset": "music", "extractor": "llm", "stratum": "music/llm/not_found", "stratum_size": 40,
    }  # fmt: skip
    write_sheets([refusal_item(row)], tmp_path / "r", kind="refusal", title="t")
    text = (tmp_path / "r" / "sheet-001.md").read_text(encoding="utf-8")
    assert "**Gold:** the gold has this fact" in text and "- [ ] gold wrong" in text
    tick(tmp_path / "r" / "sheet-001.md", 1, "gold wrong")
    assert label_rows(read_sheets(tmp_path / "r", BOXES)) == [
        RefusalLabel(**row, judgement="gold_wrong")
    ]


def make_two(tmp_path: Path) -> Path:
    items = [grounding_item(fact("London", f"f{i}"), "text", "d1") for i in range(2)]
    write_sheets(items, tmp_path / "s", kind="grounding", title="t")
    return tmp_path / "s" / "sheet-001.md"


def line_of(path: Path, text: str, occurrence: int = 1) -> int:
    hits = [
        n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line == text
    ]
    return hits[occurrence - 1]


def test_no_tick_and_two_ticks_are_each_named_by_sheet_and_line(tmp_path: Path) -> None:
    sheet = make_two(tmp_path)
    tick(sheet, 2, "supported")
    tick(sheet, 2, "not_found")
    with pytest.raises(InputError) as error:
        read_sheets(sheet, BOXES)
    assert error.value.exit_code == 2
    assert str(error.value).splitlines() == [
        f"{sheet}:{line_of(sheet, '## 1. f0')}: item 1 has no box ticked; tick exactly one",
        f"{sheet}:{line_of(sheet, '- [x] not_found')}: item 2 has 2 boxes ticked; tick exactly one",
        "(2 problems: fix each and read again)",
    ]


def test_a_lost_payload_an_odd_mark_and_an_unknown_box(tmp_path: Path) -> None:
    sheet = make_two(tmp_path)
    text = sheet.read_text(encoding="utf-8")
    first_payload = next(line for line in text.splitlines() if line.startswith("<!-- odke item"))
    text = text.replace(first_payload, "", 1).replace("- [ ] supported", "- [v] supported", 1)
    text = text.replace("- [ ] contradicted", "- [x] maybe", 1)
    sheet.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_sheets(sheet, BOXES)
    message = str(error.value)
    assert "tick with x, found [v]" in message
    assert "unknown box 'maybe'; boxes are supported, contradicted, not_found" in message
    assert "item 1 has lost its odke item line; make the sheets again" in message


def test_not_a_sheet_and_no_sheets(tmp_path: Path) -> None:
    other = tmp_path / "notes.md"
    other.write_text("# my notes\n", encoding="utf-8")
    with pytest.raises(InputError, match="notes.md:1: not a label sheet"):
        read_sheets(other, BOXES)
    with pytest.raises(InputError, match="holds no label sheets"):
        read_sheets(tmp_path, BOXES)


def test_sheets_never_overwrite_sheets(tmp_path: Path) -> None:
    make_two(tmp_path)
    with pytest.raises(InputError, match="already holds label sheets"):
        write_sheets([pair_item("a", "b")], tmp_path / "s", kind="pair", title="t")
    with pytest.raises(InputError, match="at least 1"):
        write_sheets([], tmp_path / "new", kind="pair", title="t", per_sheet=0)


def test_a_passage_cannot_forge_a_box_or_an_item(tmp_path: Path) -> None:
    forged = '- [x] supported\n## 9. fake\n<!-- odke item {"id": "x"} -->'
    write_sheets(
        [grounding_item(fact("London"), forged, "d1")], tmp_path / "s", kind="grounding", title="t"
    )
    sheet = tmp_path / "s" / "sheet-001.md"
    with pytest.raises(InputError, match="item 1 has no box ticked"):
        read_sheets(sheet, BOXES)
    tick(sheet, 1, "supported")
    (row,) = label_rows(read_sheets(sheet, BOXES))
    assert isinstance(row, GroundingLabel) and row.text == forged
