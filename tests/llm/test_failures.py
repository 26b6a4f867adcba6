"""The failure kinds, their tally and the one exit rule (DECISIONS #140)."""

from __future__ import annotations

import threading

import pytest

from openodke.errors import BudgetStop, CallsFailed, ProviderUnavailable, RunStop, exit_code_for
from openodke.llm.failures import (
    FailureKind,
    FailureTally,
    enforce_failures,
    failure_line,
    kinds_text,
    merge_kinds,
)


def test_tally_counts_by_kind_across_threads() -> None:
    tally = FailureTally()

    def work() -> None:
        for _ in range(100):
            tally.add(FailureKind.cut_off, "cut off at max_tokens (256)")
            tally.add(None)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert tally.total == 800
    assert tally.as_dict() == {"cut off at max_tokens": 400, "failed": 400}
    assert tally.first == "cut off at max_tokens (256)"


@pytest.mark.parametrize(
    ("failed", "total", "allow", "raises"),
    [
        (0, 200, None, False),
        (1, 200, None, True),  # any failure, nothing allowed
        (4, 200, 0.02, False),  # 4 <= 0.02 * 200
        (5, 200, 0.02, True),
        (47, 200, 0.25, False),
        (3, 0, None, False),  # nothing to check: nothing failed to check
    ],
)
def test_enforce_failures_by_share(
    failed: int, total: int, allow: float | None, raises: bool
) -> None:
    if not raises:
        enforce_failures(failed, total, allow=allow)
        return
    with pytest.raises(CallsFailed) as caught:
        enforce_failures(failed, total, allow=allow, kinds={"refused": failed}, unit="facts")
    assert str(caught.value).startswith(f"{failed} of {total} facts unchecked ({failed} refused)")
    assert exit_code_for(caught.value) == 1


def test_the_line_names_kinds_most_first_and_the_first_error() -> None:
    line = failure_line(
        12, 200, "documents", kinds={"refused": 2, "cut off at max_tokens": 10}, first="why"
    )
    assert line == "12 of 200 documents unchecked (10 cut off at max_tokens, 2 refused); first: why"
    assert kinds_text({"empty": 0}) == ""
    assert merge_kinds({"empty": 1}, None, {"empty": 2, "refused": 1}) == {"empty": 3, "refused": 1}


def test_run_stops_share_a_base_and_keep_their_exit_codes() -> None:
    assert isinstance(BudgetStop("x"), RunStop) and exit_code_for(BudgetStop("x")) == 3
    stop = ProviderUnavailable("HTTP 401")
    assert isinstance(stop, RunStop) and exit_code_for(stop) == 1
