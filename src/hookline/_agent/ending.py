"""How a session ends: why (SessionEnd's ``reason``), and how long its SessionEnd hooks get.

Claude Code gives the SessionEnd hooks of a session one budget to share, not a timeout each:
1.5 s (``SessionEnd.facts.timeout``), raised to the highest ``timeout`` a SessionEnd hook
declares, at most 60 s (``facts.timeout_cap``); ``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS``
sets it outright (an unreadable value is ignored, as a timeout of nothing). A hook still
running when the budget is spent is stopped (``HookEngine.dispatch(..., budget=)``) and the
session closes anyway: a hook cannot hold the end of a session hostage.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final, cast, get_args

from hookline._errors import ConfigError
from hookline._events import SessionEnd, SessionEndReason

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._hooks.spec import HookSpec

#: Milliseconds, overriding the budget (Claude Code's variable).
BUDGET_ENV: Final = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"
REASONS: Final[tuple[str, ...]] = get_args(SessionEndReason)

logger = logging.getLogger(__name__)


def session_end_budget(hooks: Iterable[HookSpec], env: Mapping[str, str] | None = None) -> float:
    """Seconds the SessionEnd ``hooks`` share, as Claude Code counts them."""
    given = (os.environ if env is None else env).get(BUDGET_ENV)
    if given:
        try:
            millis = float(given)
        except ValueError:
            millis = -1.0
        if 0 < millis < float("inf"):
            return millis / 1000
        logger.warning("%s=%r is not a positive number of milliseconds: ignored", BUDGET_ENV, given)
    facts = SessionEnd.facts
    base, cap = facts.timeout or 0.0, facts.timeout_cap or float("inf")
    return min(cap, max([base, *(spec.timeout for spec in hooks)]))


def end_reason(reason: str) -> SessionEndReason:
    """``reason`` if Claude Code knows it as a SessionEnd reason; a ConfigError otherwise."""
    if reason not in REASONS:
        raise ConfigError(
            f"unknown session end reason {reason!r}",
            key="reason",
            fix=f"use one of: {', '.join(REASONS)}",
        )
    return cast("SessionEndReason", reason)


async def end(agent: Agent, reason: SessionEndReason) -> None:
    """Fire SessionEnd for the agent's session, if it started; its hooks share one budget."""
    session = agent.session
    if session.started:
        budget = session_end_budget(agent.registry.plan("SessionEnd").specs)
        await agent.engine.dispatch(session.scope.event(SessionEnd, reason=reason), budget=budget)
        session.started = False
