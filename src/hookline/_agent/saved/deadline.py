"""How long a deferred call may wait for a person's answer, and what it gets after that.

    Agent(model, defer_deadline=2 * 86400)     # seconds
    hookline run --defer-deadline 2d           # or {"hookline": {"deferDeadline": "2d"}}

No deadline unless one is configured: a paused session waits for its answer as long as the
store keeps it. With one, the batch that defers stamps each deferred result with the deadline
(when it deferred, on the runtime's clock, plus the duration: an absolute time, the same for the
batch), the ``deferred`` audit record names it, and the pause saves it with the turn
(``Turn.deadline``, in the sealed state). The claim (``hookline._agent.saved.pause.claim``), the
one step every answer goes through (``Agent.resume``, ``hookline sessions resume``, the inbox and
its signed links), compares it with the time of the claim: after it, each waiting call gets the
expiry answer (``expiry``: a deny the model reads, answered by ``deadline``) instead of the
person's, and the claim's compare-and-set gives it exactly once. A deny is the only expiry
answer: asking again would only wait again, past the deadline that was set to end the wait.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hookline._errors import ConfigError
from hookline._tools.approvals import Approval

if TYPE_CHECKING:
    from hookline._agent.saved.state import Turn

#: Who answers a call whose deadline passed (``Approval.approver``, the audit's
#: ``answered_by``).
EXPIRED_BY: Final = "deadline"
#: Seconds in each unit a duration may be written in.
UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: The longest deadline taken: ten years (longer is no deadline: leave it unset).
LONGEST: Final = 3650 * 86400
#: How a duration is written: a number, then a unit (none: seconds).
_DURATION: Final = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd]?)")
#: What a duration may look like, for the fix of a mistake.
EXAMPLES: Final = '"2d", "12h", "30m", "90s" or a number of seconds'


def seconds(
    value: object, *, key: str, file: str | None = None, text: bool = True, fix: str = ""
) -> float:
    """The duration ``value`` gives, in seconds: a positive number of seconds, or (``text``) a
    text such as ``2d`` (``s``, ``m``, ``h``, ``d``); a ConfigError naming ``file`` and ``key``
    else, with ``fix`` (by default, how a duration is written)."""
    found: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        found = float(value)
    elif text and isinstance(value, str) and (match := _DURATION.fullmatch(value.strip().lower())):
        found = float(match[1]) * UNITS[match[2] or "s"]
    if found is None or not math.isfinite(found) or not 0 < found <= LONGEST:
        raise ConfigError(
            f"{value!r} is not {'a duration' if text else 'a number of seconds'} longer than 0 "
            "and at most 3650 days",
            file=file,
            key=key,
            fix=fix or f"write {EXAMPLES}; leave it unset for no deadline",
        )
    return found


def shorter(*durations: float | None) -> float | None:
    """The shortest of the deadlines set (None: none is): a deadline only ends a wait sooner,
    in a deny, so no layer of configuration lengthens another's."""
    given = [d for d in durations if d is not None]
    return min(given) if given else None


def expired(deadline: float | None, now: float) -> bool:
    """Whether a pause with ``deadline`` is past it at ``now`` (no deadline: never)."""
    return deadline is not None and now >= deadline


def expiry(deadline: float) -> Approval:
    """The answer a call that waited past ``deadline`` gets: a deny saying so, for the model."""
    message = (
        f"This call waited past its deadline ({when(deadline)}) for a person's answer, so it "
        "was not run: a deferred call nobody answers in time is denied. Go on without it, or "
        "ask for it again if it is still needed."
    )
    return Approval("deny", message, None, EXPIRED_BY, "unanswered")


def when(at: float) -> str:
    """``at`` for people and the model, in UTC to the second."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


@dataclass(frozen=True, slots=True)
class Expired:
    """A claim after the pause's deadline: each waiting call's expiry answer, and what people
    answered that it replaced (for the record)."""

    deadline: float
    #: When the claim found it past (the resume's clock).
    at: float
    answers: dict[str, Approval]
    refused: dict[str, Approval]


def expire(turn: Turn, given: Mapping[str, Approval], now: float) -> Expired | None:
    """The expiry of a paused ``turn`` claimed at ``now``: its waiting calls' expiry answers
    instead of ``given``; None before its deadline, or when it has none."""
    if turn.deadline is None or not expired(turn.deadline, now):
        return None
    answer = expiry(turn.deadline)
    answers = {call.id: answer for call in turn.waiting}
    return Expired(turn.deadline, now, answers, dict(given))
