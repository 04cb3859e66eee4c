"""The token bucket and the refusals' record, on a clock the tests move."""

from __future__ import annotations

import pytest

from hookline._serve.rate import Buckets, Limits, Quiet, SharedBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("buckets", [Buckets, SharedBuckets])
def test_a_burst_passes_then_the_rate_refills_one_call_at_a_time(buckets: type[Buckets]) -> None:
    clock = Clock()
    limits = Limits(rate=2.0, burst=3, clock=clock, buckets=buckets())
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


def test_more_tokens_than_shared_slots_still_each_get_a_bucket_to_take_from() -> None:
    limits = Limits(rate=1.0, burst=1, clock=lambda: 7.0, buckets=SharedBuckets(slots=2))
    assert [limits.take(name) for name in ("a", "b")] == [True, True]
    assert [limits.take(name) for name in ("a", "b")] == [False, False]
    assert limits.take("c")  # the table is full: c takes over a slot
