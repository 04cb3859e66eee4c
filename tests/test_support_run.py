"""``hookline._support.run``: asyncio.run whose cost does not grow with the result."""

from __future__ import annotations

import pytest

from hookline._support.run import run


class Watched:
    """A result that notes each time its text is made (a big result's text is costly)."""

    def __init__(self) -> None:
        self.shown = 0

    def __repr__(self) -> str:
        self.shown += 1
        return "Watched()"


async def give(value: object) -> object:
    return value


def test_the_result_comes_back_and_its_text_is_never_made() -> None:
    result = Watched()
    assert run(give(result)) is result
    assert result.shown == 0  # asyncio.run on Python 3.11 makes it twice, on the way out


def test_what_the_coroutine_raises_is_raised() -> None:
    async def fail() -> None:
        raise LookupError("gone")

    with pytest.raises(LookupError, match="gone"):
        run(fail())
