"""bench/serve_load.py's arithmetic (the send schedule, the percentiles, the summary) and its
``--help``; the load itself is a bench, never run here."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "serve_load.py"


@pytest.fixture(scope="module")
def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("serve_load", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["serve_load"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_calls_are_sent_evenly_at_the_rate(load: ModuleType) -> None:
    assert load.schedule(4, 5) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert load.schedule(1000, 0) == []
    with pytest.raises(ValueError):
        load.schedule(0, 10)


def test_a_run_is_bounded_by_count_and_by_time(load: ModuleType) -> None:
    assert load.calls_for(100, 3000, 10) == 1000  # ten seconds at 100/s
    assert load.calls_for(1000, 3000, 10) == 3000  # the count first
    assert load.calls_for(0.5, 3000, 1) == 1  # never no call at all


def test_percentiles_interpolate_between_ranks(load: ModuleType) -> None:
    ten = [float(n) for n in range(10, 0, -1)]  # order does not matter
    assert load.percentile(ten, 50) == 5.5
    assert load.percentile(ten, 0) == 1.0 and load.percentile(ten, 100) == 10.0
    assert math.isclose(load.percentile(ten, 99), 9.91)
    assert load.percentile([7.0], 99) == 7.0
    with pytest.raises(ValueError):
        load.percentile([], 50)


def test_the_summary_counts_failures_and_reports_milliseconds(load: ModuleType) -> None:
    result = load.summary(2, 100, [0.001, 0.002, 0.003], elapsed=0.5, errors=1)
    assert (result.workers, result.target, result.calls, result.errors) == (2, 100, 4, 1)
    assert result.per_second == 6.0  # answered calls over the time they took
    assert math.isclose(result.p50_ms, 2.0)
    assert "decisions/s" in load.table([result]).splitlines()[0]


def test_the_mix_is_claude_codes_pre_tool_use_with_distinct_ids(load: ModuleType) -> None:
    calls = [load.payload("/w", index) for index in range(20)]
    assert {call["tool_name"] for call in calls} == {"Bash", "Read", "Write"}
    assert len({call["tool_use_id"] for call in calls}) == 20
    assert all(call["hook_event_name"] == "PreToolUse" for call in calls)
    assert calls[1]["tool_input"] == {"file_path": "/w/src/app.py"}


def test_help_says_what_it_measures(load: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        load.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "decisions a second" in out and "--workers" in out and "--rates" in out
