"""A report's tables: per-predicate ranges against scipy's Beta quantiles, the worst first, and
the same tables as DataFrames, CSV and parquet."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta

from openodke.errors import InputError
from openodke.eval import read_items
from openodke.eval.report.export import load_any_report, to_pandas, write_tables
from openodke.eval.report.tables import predicate_ranges, predicates_table, report_tables
from openodke.eval.stages.stage_report import StageReport
from tests.conftest import run_odke

TP = np.array([0, 1, 10, 100, 3, 40, 7])
FP = np.array([1, 0, 3, 50, 0, 2000, 7])
FN = np.array([1, 1, 2, 20, 7, 10, 0])


def test_precision_and_recall_ranges_are_the_jeffreys_intervals() -> None:
    got = predicate_ranges(TP, FP, FN)
    for name, other in (("precision", FP), ("recall", FN)):
        low = beta.ppf(0.025, TP + 0.5, other + 0.5)
        high = beta.ppf(0.975, TP + 0.5, other + 0.5)
        # Brown, Cai & DasGupta (2001): 0 when nothing is right, 1 when nothing is wrong
        low = np.where(TP == 0, 0.0, low)
        high = np.where(other == 0, 1.0, high)
        # 10,000 Dirichlet draws read a 2.5% quantile to about ±0.01
        assert np.allclose(got[f"{name}_low"], low, atol=0.02)
        assert np.allclose(got[f"{name}_high"], high, atol=0.02)


def test_f1_range_holds_the_point_and_matches_a_large_draw() -> None:
    got = predicate_ranges(TP, FP, FN)
    f1 = 2 * TP / (2 * TP + FP + FN)
    assert np.all(got["f1_low"] <= f1 + 1e-12) and np.all(f1 <= got["f1_high"] + 1e-12)
    # the same Dirichlet, 200,000 draws of another seed: the ends agree to Monte Carlo error
    rng = np.random.default_rng(99)
    g = rng.standard_gamma(np.stack([TP + 0.5, FP + 0.5, FN + 0.5], -1), size=(200_000, 7, 3))
    ref = 2 * g[..., 0] / (2 * g[..., 0] + g[..., 1] + g[..., 2])
    low, high = np.quantile(ref, [0.025, 0.975], axis=0)
    low, high = np.where(TP == 0, 0.0, low), np.where(FP + FN == 0, 1.0, high)
    assert np.allclose(got["f1_low"], low, atol=0.02)
    assert np.allclose(got["f1_high"], high, atol=0.02)


def test_ranges_are_seeded_order_free_and_undefined_without_a_denominator() -> None:
    a = predicate_ranges(TP, FP, FN)
    b = predicate_ranges(TP[::-1], FP[::-1], FN[::-1])
    assert all(np.array_equal(a[k], b[k][::-1]) for k in a)
    none = predicate_ranges(np.array([0, 0]), np.array([0, 3]), np.array([2, 0]))
    assert np.isnan(none["precision_low"][0]) and np.isnan(none["recall_high"][1])


def _stage() -> StageReport:
    row = {"precision": None, "recall": None, "f1": None}
    return StageReport(
        stage="extract",
        n=9,
        breakdown={
            "good": {**row, "f1": 1.0, "tp": 3, "fp": 0, "fn": 0, "support": 3},
            "bad": {**row, "f1": 0.0, "tp": 0, "fp": 1, "fn": 2, "support": 2},
            "half": {**row, "f1": 0.5, "tp": 2, "fp": 2, "fn": 2, "support": 4},
            "invented": {**row, "f1": 0.0, "tp": 0, "fp": 5, "fn": 0, "support": 0},
            "undefined": {**row, "tp": 0, "fp": 0, "fn": 0, "support": 0},
        },
    )


def test_predicates_come_worst_first_and_the_predicted_only_last() -> None:
    names = [r["predicate"] for r in predicates_table(_stage())]
    assert names == ["bad", "half", "good", "invented", "undefined"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(__file__).resolve().parents[3] / "examples" / "triples"
    out = tmp_path_factory.mktemp("saved") / "report.json"
    ran = run_odke(
        "eval",
        "pipeline",
        "--labels",
        str(root / "gold.jsonl"),
        "--documents",
        str(root / "texts"),
        "--cmd",
        f"python {root / 'pipeline.py'} {{in}} {{out}}",
        "--report",
        str(out),
        "--items",
        str(out.with_name("items.jsonl")),
    )
    assert ran.exit_code == 0, ran.stderr
    return out


def test_to_pandas_gives_rows_predicates_diagnosis_and_fixes(saved: Path) -> None:
    frames = load_any_report(saved).to_pandas()
    assert sorted(frames) == ["diagnosis", "fixes", "predicates", "rows"]
    rows = frames["rows"]
    assert rows.loc[0, "row"] == "pipeline" and round(rows.loc[0, "f1"], 3) == 0.8
    assert list(frames["predicates"]["predicate"])[0] == "born_in"
    lost = frames["diagnosis"].set_index("bucket")
    assert lost.loc["entity_missing", "count"] == 2


def test_read_items_as_a_frame(saved: Path) -> None:
    frame = read_items(saved.with_name("items.jsonl"), as_frame=True)
    assert list(frame.columns) == ["id", "tp", "fp", "fn"]
    assert frame["tp"].sum() == 10 and frame["fn"].sum() == 2
    assert isinstance(read_items(saved.with_name("items.jsonl")), list)  # compare's rows


def test_csv_and_parquet_hold_the_same_tables(saved: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    tables = report_tables(load_any_report(saved))
    written = write_tables(load_any_report(saved), tmp_path, "r", "csv")
    assert [p.name for p in written] == [f"r.{name}.csv" for name in tables]
    with open(tmp_path / "r.predicates.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["predicate"] for r in rows] == [r["predicate"] for r in tables["predicates"]]
    write_tables(load_any_report(saved), tmp_path, "r", "parquet")
    back = pq.read_table(tmp_path / "r.rows.parquet").to_pylist()
    assert back == tables["rows"]


def test_parquet_without_pyarrow_is_a_clear_error(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(
        InputError, match=r"parquet needs pyarrow: pip install 'openodke\[parquet\]'"
    ):
        write_tables(load_any_report(saved), tmp_path / "out", "r", "parquet")
    assert not (tmp_path / "out").exists()


def test_pandas_missing_is_a_clear_error(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(InputError, match=r"pip install 'openodke\[pandas\]'"):
        to_pandas(load_any_report(saved))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "not a report odke writes"),
        ('{"stage": "extract"}', "n: Field required"),
        ('{"schema_version": "9.0"}', "schema_version 9.0"),
    ],
)
def test_what_is_not_a_report_is_refused(content: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_any_report(path)


def test_a_stage_json_with_its_diagnosis_reads_as_a_report(saved: Path, tmp_path: Path) -> None:
    data = json.loads(saved.read_text())
    stage = dict(data["stages"][0], diagnosis=data["diagnosis"], fixes=data["fixes"])
    path = tmp_path / "stage.json"
    path.write_text(json.dumps(stage))
    report = load_any_report(path)
    assert len(report.diagnosis) == len(data["diagnosis"])  # type: ignore[union-attr]
