"""A ruling of a host whose hooks are not Claude Code's, as the app records and answers it.

Each such host has a module under ``hookline._serve`` (``gemini``, ``codex``, ``cursor``)
with the same face, ``Adapter``: its name on records, the answer that decides nothing (what a
broken glass answers), and ``rule``/``answered``, which read the host's payload as hookline's
event and word the ruling in the host's terms.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from hookline._errors import ConfigError
from hookline._events import PreToolUse
from hookline._serve.judge import failed_closed

if TYPE_CHECKING:
    from hookline._serve.judge import Rules, Ruling


@dataclass(frozen=True, slots=True)
class Adapted:
    """A ruling of a host's hook: ``ruling.answer`` is the host's; ``event`` is what was
    judged (hookline's names: what the record shows)."""

    ruling: Ruling
    event: Mapping[str, Any]


class Adapter(Protocol):
    """What the app needs of a host module."""

    HOST: str
    NO_ANSWER: Mapping[str, Any]

    async def rule(self, judge: Rules, payload: Mapping[str, Any]) -> Adapted | None: ...

    def answered(self, ruling: Ruling, payload: Mapping[str, Any]) -> Ruling: ...


async def rule_mapped(
    judge: Rules,
    payload: Mapping[str, Any],
    read: Callable[[Mapping[str, Any]], dict[str, Any] | None],
    refusing: Collection[str],
    answered: Callable[[Ruling, Mapping[str, Any]], Ruling],
) -> Adapted | None:
    """The ruling of a host's ``payload`` that ``read`` turns into hookline's event (None: an
    event hookline does not judge): judged, then ``answered`` in the host's words. A payload
    of one of the host's ``refusing`` events that cannot be read is a deny saying why; of any
    other, the ConfigError."""
    try:
        event = read(payload)
    except ConfigError as exc:
        if payload.get("hook_event_name") not in refusing:
            raise
        return Adapted(
            answered(failed_closed(PreToolUse.name, payload, str(exc)), payload), payload
        )
    if event is None:
        return None
    return Adapted(answered(await judge.rule(event), payload), event)
