"""The token bucket and the refusals' record, on a clock the tests move."""

from __future__ import annotations

from hookline._serve.rate import Limits, Quiet


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_passes_then_the_rate_refills_one_call_at_a_time() -> None:
    clock = Clock()
    limits = Limits(rate=2.0, burst=3, clock=clock)
    assert [limits.take("a") for _ in range(4)] == [True, True, True, False]
    assert limits.take("b")  # a bucket per token
    assert limits.wait("a") == 1
    clock.now += 0.5  # one call's worth at 2 a second
    assert [limits.take("a") for _ in range(2)] == [True, False]
    clock.now += 100  # never more than the burst
    assert [limits.take("a") for _ in range(4)] == [True, True, True, False]


def test_a_rate_of_zero_limits_nothing() -> None:
    limits = Limits(rate=0, burst=1, clock=Clock())
    assert all(limits.take("a") for _ in range(1000))


def test_refusals_are_recorded_once_per_key_every_few_seconds_with_the_count_left_off() -> None:
    clock = Clock()
    quiet = Quiet(every=5.0, clock=clock)
    assert quiet.due("k") == 0
    assert [quiet.due("k") for _ in range(3)] == [None, None, None]
    assert quiet.due("other") == 0
    clock.now += 5
    assert quiet.due("k") == 3
    assert quiet.due("k") is None
