"""The conversation in a provider's shape, converted once per message.

The loop passes the whole conversation to every model call, and it only grows; converting all
of it each time would make each call cost more than the last. Messages are frozen, so what one
became can be kept while the conversation still starts with the same message objects; anything
else (a compacted or another conversation) is converted afresh from the first difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from hookline._agent.messages import Message

Converted = list[dict[str, Any]]


class History:
    """``history(messages)``: the wire messages for ``messages``, each message converted by
    ``convert`` (to one or more wire messages) only the first time it is seen."""

    def __init__(self, convert: Callable[[Message], Converted]) -> None:
        self.convert = convert
        self._seen: list[Message] = []
        self._done: list[Converted] = []

    def __call__(self, messages: Sequence[Message]) -> Converted:
        same = 0
        for old, new in zip(self._seen, messages, strict=False):
            if old is not new:
                break
            same += 1
        del self._seen[same:], self._done[same:]
        for message in messages[same:]:
            self._seen.append(message)
            self._done.append(self.convert(message))
        return list(chain.from_iterable(self._done))
