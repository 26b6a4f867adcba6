"""``odke label make|read``: the real command, its output and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from openodke import Entity, Evidence, Fact
from tests.conftest import run_odke

ADA = Entity(key="Person:ada", type="Person", label="Ada Lovelace")


def fact(value: str, fid: str) -> Fact:
    return Fact(
        id=fid,
        subject=ADA,
        predicate="born_in",
        object_value=value,
        evidence=(Evidence(doc_id="ada.txt"),),
    )


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def tick_all(folder: Path, box: str) -> None:
    for sheet in sorted(folder.glob("sheet-*.md")):
        sheet.write_text(
            sheet.read_text(encoding="utf-8").replace(f"- [ ] {box}", f"- [x] {box}"),
            encoding="utf-8",
        )


def test_make_then_read_grounding(tmp_path: Path) -> None:
    rows = write(
        tmp_path / "to-check.jsonl",
        [
            {
                "text": "Ada was born in London.",
                "fact": fact("London", f"f{i}").model_dump(mode="json"),
            }
            for i in range(5)
        ],
    )
    made = run_odke(
        "label", "make", "grounding", str(rows), "-o", str(tmp_path / "sheets"), "--per-sheet", "2"
    )
    assert made.exit_code == 0, made.stderr
    assert (
        made.stdout == f"5 item(s) in 3 sheet(s) in {tmp_path / 'sheets'}: tick one box per item\n"
    )
    tick_all(tmp_path / "sheets", "supported")
    read = run_odke("label", "read", str(tmp_path / "sheets"), "-o", str(tmp_path / "labels.jsonl"))
    assert read.exit_code == 0, read.stderr
    assert (
        read.stdout == f"5 label row(s) to {tmp_path / 'labels.jsonl'} (grounding: supported 5)\n"
    )
    labels = [json.loads(line) for line in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert [row["verdict"] for row in labels] == ["supported"] * 5
    assert [row["fact"]["id"] for row in labels] == [f"f{i}" for i in range(5)]


def test_facts_with_documents_make_grounding_sheets(tmp_path: Path) -> None:
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "ada.txt").write_text("Ada was born in London.", encoding="utf-8")
    rows = write(tmp_path / "facts.jsonl", [fact("London", "f1").model_dump(mode="json")])
    missing = run_odke("label", "make", "grounding", str(rows), "-o", str(tmp_path / "s"))
    assert missing.exit_code == 2 and "needs --documents" in missing.stderr
    made = run_odke(
        "label",
        "make",
        "grounding",
        str(rows),
        "-o",
        str(tmp_path / "s"),
        "--documents",
        str(tmp_path / "texts"),
    )
    assert made.exit_code == 0, made.stderr
    assert "> Ada was born in London." in (tmp_path / "s" / "sheet-001.md").read_text(
        encoding="utf-8"
    )


def test_pairs_and_facts(tmp_path: Path) -> None:
    pairs = write(
        tmp_path / "pairs.jsonl",
        [{"a": "acme", "b": "acme-inc"}, {"source_key": "x", "target_key": "y", "kind": "similar"}],
    )
    assert run_odke("label", "make", "pair", str(pairs), "-o", str(tmp_path / "p")).exit_code == 0
    tick_all(tmp_path / "p", "different")
    read = run_odke("label", "read", str(tmp_path / "p"), "-o", str(tmp_path / "p.jsonl"), "--json")
    assert json.loads(read.stdout)["ticks"] == {"pair: different": 2}
    lenient = write(
        tmp_path / "lenient.jsonl",
        [
            {
                "doc_id": "ada.txt",
                "gold": fact("1815", "g").model_dump(mode="json"),
                "prediction": fact("10 Dec 1815", "p").model_dump(mode="json"),
                "passage": "born 10 Dec 1815",
                "same": True,
            }
        ],
    )
    assert run_odke("label", "make", "fact", str(lenient), "-o", str(tmp_path / "f")).exit_code == 0
    tick_all(tmp_path / "f", "same")
    assert (
        run_odke("label", "read", str(tmp_path / "f"), "-o", str(tmp_path / "f.jsonl")).exit_code
        == 0
    )
    assert json.loads((tmp_path / "f.jsonl").read_text())["same"] is True


def test_an_item_without_a_tick_exits_2_naming_sheet_and_line(tmp_path: Path) -> None:
    pairs = write(tmp_path / "pairs.jsonl", [{"a": "a", "b": "b"}, {"a": "c", "b": "d"}])
    run_odke("label", "make", "pair", str(pairs), "-o", str(tmp_path / "p"))
    sheet = tmp_path / "p" / "sheet-001.md"
    sheet.write_text(sheet.read_text().replace("- [ ] same", "- [x] same", 1), encoding="utf-8")
    read = run_odke("label", "read", str(tmp_path / "p"), "-o", str(tmp_path / "out.jsonl"))
    assert read.exit_code == 2
    line = next(
        n for n, text in enumerate(sheet.read_text().splitlines(), 1) if text.startswith("## 2. ")
    )
    assert read.stderr == f"error: {sheet}:{line}: item 2 has no box ticked; tick exactly one\n"
    assert not (tmp_path / "out.jsonl").exists()


def test_bad_input_exits_2(tmp_path: Path) -> None:
    rows = write(tmp_path / "rows.jsonl", [{"a": 1}])
    assert run_odke("label", "make", "colour", str(rows), "-o", str(tmp_path / "x")).exit_code == 2
    bad = run_odke("label", "make", "pair", str(rows), "-o", str(tmp_path / "x"))
    assert bad.exit_code == 2 and f"{rows}:1:" in bad.stderr
    assert (
        run_odke(
            "label", "read", str(tmp_path / "nothing"), "-o", str(tmp_path / "o.jsonl")
        ).exit_code
        == 2
    )
