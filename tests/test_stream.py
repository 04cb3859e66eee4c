"""The typed stream: records reach the subscribers of their kind, in order; nothing is built
for a kind nobody subscribed to."""

from __future__ import annotations

from dataclasses import dataclass

from hookline._support.stream import Stream


@dataclass(frozen=True)
class Said:
    text: str


@dataclass(frozen=True)
class Other:
    n: int


class Counted:
    """A record that counts how often it is built."""

    built = 0

    def __init__(self, text: str) -> None:
        Counted.built += 1
        self.text = text


def test_records_reach_the_subscribers_of_their_kind_in_order_until_stopped():
    stream, heard = Stream(), []
    stop_first = stream.subscribe(Said, lambda r: heard.append(("first", r.text)))
    stream.subscribe(Said, lambda r: heard.append(("second", r.text)))
    stream.subscribe(Other, lambda r: heard.append(("other", r.n)))
    stream.emit(Said("a"))
    stream.tell(Other, 1)
    stop_first()
    stop_first()  # a second stop does nothing
    stream.emit(Said("b"))
    assert heard == [("first", "a"), ("second", "a"), ("other", 1), ("second", "b")]


def test_a_kind_nobody_wants_is_never_built():
    stream = Stream()
    Counted.built = 0
    assert not stream.wants(Counted)
    stream.tell(Counted, "unheard")
    assert Counted.built == 0
    heard: list[str] = []
    stop = stream.subscribe(Counted, lambda r: heard.append(r.text))
    assert stream.wants(Counted)
    stream.tell(Counted, "heard")
    stop()
    stream.tell(Counted, "unheard again")
    assert (Counted.built, heard, stream.wants(Counted)) == (1, ["heard"], False)


def test_a_subscriber_may_name_the_records_it_wants_built() -> None:
    """``hears``: a plain subscriber wants every record of its kind; one with ``record_names``
    only those it names; with no subscriber, none."""

    class Named:
        record_names = frozenset({"wanted"})

        def __call__(self, record: object) -> None:
            pass

    stream = Stream()
    assert not stream.hears(int, "wanted")
    stop = stream.subscribe(int, Named())
    assert stream.hears(int, "wanted") and not stream.hears(int, "other")
    stream.subscribe(int, lambda record: None)
    assert stream.hears(int, "other")
    stop()
    assert stream.hears(int, "other") and not stream.hears(str, "wanted")
