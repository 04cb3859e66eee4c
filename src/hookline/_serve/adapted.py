"""A ruling of a host whose hooks are not Claude Code's, as the app records and answers it.

Each such host has a module under ``hookline._serve`` (``gemini``, ``codex``, ``cursor``)
with the same face, ``Adapter``: its name on records, the answer that decides nothing (what a
broken glass answers), and ``rule``/``answered``, which read the host's payload as hookline's
event and word the ruling in the host's terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping

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
