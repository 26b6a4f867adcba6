"""The judges' public names: importable from where the spec and the package say."""

from __future__ import annotations

import importlib

import pytest


def test_the_spec_imports_the_lenient_score_from_equivalence() -> None:
    from openodke.eval.equivalence import FactJudge, candidate, lenient, surface_pair

    assert callable(lenient) and callable(candidate) and callable(surface_pair)
    assert FactJudge.prompt == "fact_equiv@1" and callable(FactJudge.equivalent)


@pytest.mark.parametrize("name", ["openodke.eval.judges", "openodke.eval.equivalence"])
def test_all_is_sorted_unique_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    names = module.__all__
    assert len(set(names)) == len(names)
    assert all(hasattr(module, n) for n in names)
    # isort order, as the other packages: CONSTANTS, Classes, functions.
    rank = [(0 if n.isupper() else 1 if n[:1].isupper() else 2, n) for n in names]
    assert rank == sorted(rank)
