"""Break-glass: enforcement switched to ask-only for a bounded time, so a fail-closed install
can never lock a person out of their own session.

The hooks ``hookline install`` writes fail closed: while the server cannot answer (stopped, or
a policy that refuses everything) the host blocks every call. ``hookline break-glass`` is the
way out, run by the person at their own terminal:

- it writes ``break-glass.json`` in the server's state folder: until when, who, why. While it
  holds, the server answers every tool call with ``ask`` (the host's own prompt asks its user,
  for each call), and leaves every other event to the host: nothing is denied, and nothing is
  allowed that a person did not allow. Each answer is on record as given under break-glass;
- when no server answers on the port, it stands in for one until the time is up, answering
  the same way, so the host's hooks reach something; then it stops, and calls are blocked
  again until the server is back.

The time is bounded (at most ``MAX_MINUTES``) and read on every event, so an ended or expired
glass is enforcement again at the next call, whoever forgot it. The start and the end are on
record. A glass file that cannot be read, or is not one, counts as no glass: enforcement stays.
A model that runs ``hookline break-glass`` through Bash gains nothing a person did not give:
the line is a program the read-only tier cannot prove harmless, so it is asked for, and under a
glass every call is asked for anyway.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from hookline._decisions import NO_DECISION, Decision
from hookline._errors import ConfigError
from hookline._hooks.wire import answer_for
from hookline._serve.judge import Ruling
from hookline._support.private import replace_private
from hookline.storage._base import AuditEntry

GLASS_FILE: Final = "break-glass.json"
#: The longest a glass may hold; enforcement is the rule, the glass the exception.
MAX_MINUTES: Final = 240
#: The ``kind`` of the records of a glass broken and mended.
KIND: Final = "break_glass"


@dataclass(frozen=True)
class Glass:
    """A broken glass: enforcement is ask-only until ``until`` (seconds since the epoch)."""

    until: float
    by: str
    reason: str

    def holds(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) < self.until

    def answer(self, event_name: str) -> dict[str, Any]:
        """What the host reads for ``event_name`` while the glass holds: ``ask`` for a tool
        call, nothing (the host's own way) for every other event."""
        why = f"hookline break-glass until {self.ends}: every call is asked ({self.reason})"
        return answer_for(event_name, Decision.ask(why))

    @property
    def ends(self) -> str:
        return time.strftime("%H:%M", time.localtime(self.until))

    def ruling(self, payload: dict[str, Any], *, answer: dict[str, Any] | None = None) -> Ruling:
        """The ruling of an event the stand-in answers: nothing judged, the glass's answer
        (``answer``: the host's own, for a host that has no ask)."""
        name = str(payload.get("hook_event_name"))

        def text(key: str) -> str | None:
            value = payload.get(key)
            return value if isinstance(value, str) else None

        return Ruling(
            name,
            NO_DECISION,
            self.answer(name) if answer is None else answer,
            session_id=text("session_id"),
            cwd=text("cwd"),
            tool=text("tool_name"),
            tool_use_id=text("tool_use_id"),
        )

    def record(self, what: str) -> AuditEntry:
        """The audit record of the glass broken (``what``: broken) or mended (mended)."""
        data = {"by": self.by, "reason": self.reason, "until": self.until}
        return AuditEntry(kind=KIND, decision=what, data=data)


def glass_path(state_dir: Path) -> Path:
    return state_dir / GLASS_FILE


def holding(state_dir: Path | str) -> Glass | None:
    """The glass that holds now in ``state_dir``; None when there is none, it is over, or its
    file is not one (enforcement stays). Looked at on every call: the usual answer, no file,
    costs one ``access(2)``, no exception."""
    path = os.path.join(state_dir, GLASS_FILE)
    if not os.access(path, os.F_OK):  # what could not be read would be no glass all the same
        return None
    glass = _read(path)
    return glass if glass is not None and glass.holds() else None


def _read(path: str | Path) -> Glass | None:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.loads(file.read())
        return Glass(float(data["until"]), str(data["by"]), str(data["reason"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def break_glass(state_dir: Path, minutes: float, reason: str) -> Glass:
    """Enforcement ask-only for ``minutes`` from now; the glass written (0600)."""
    if not 0 < minutes <= MAX_MINUTES:
        raise ConfigError(
            f"{minutes:g} minutes is not between 0 and {MAX_MINUTES}",
            key="--minutes",
            fix="break the glass for as long as you need, then again if need be",
        )
    glass = Glass(time.time() + minutes * 60, _who(), reason)
    state_dir.mkdir(parents=True, exist_ok=True)
    replace_private(glass_path(state_dir), json.dumps(asdict(glass)).encode())
    return glass


def mend(state_dir: Path) -> Glass | None:
    """End the glass now (over or not); the one there was, if any."""
    glass = _read(glass_path(state_dir))
    glass_path(state_dir).unlink(missing_ok=True)
    return glass


def _who() -> str:
    try:
        return os.getlogin()
    except OSError:
        return os.environ.get("USER") or os.environ.get("USERNAME") or str(os.getuid())
