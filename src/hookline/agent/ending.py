"""How a session ends: why (SessionEnd's ``reason``), and how long its SessionEnd hooks get.

Claude Code gives the SessionEnd hooks of a session one budget to share, not a timeout each:
1.5 s (``SessionEnd.facts.timeout``), raised to the highest ``timeout`` a SessionEnd hook
declares, at most 60 s (``facts.timeout_cap``); ``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS``
sets it outright (an unreadable value is ignored, as a timeout of nothing). A hook still
running when the budget is spent is stopped (``HookEngine.dispatch(..., budget=)``) and the
session closes anyway: a hook cannot hold the end of a session hostage.

Closing a session (``close``, for ``Agent.close`` and ``Agent.clear``): SessionEnd, then async
command hooks are stopped and other background hooks waited for, what the session holds open is
let go, and the observers are told; the agent that owns the shared parts closes them too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final, cast, get_args

from hookline.agent.told import Closed
from hookline.errors import ConfigError
from hookline.events import SessionEnd, SessionEndReason

if TYPE_CHECKING:
    from hookline.agent.conversation import Conversation, Seat
    from hookline.agent.session import Session
    from hookline.hooks.engine import HookEngine
    from hookline.hooks.spec import HookSpec

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


async def end(engine: HookEngine, session: Session, reason: SessionEndReason) -> None:
    """Fire SessionEnd for ``session``, if it started; its hooks share one budget."""
    if session.started:
        budget = session_end_budget(engine.registry.plan("SessionEnd").specs)
        await engine.dispatch(session.scope.event(SessionEnd, reason=reason), budget=budget)
        session.started = False


async def close(seat: Seat, talk: Conversation, reason: SessionEndReason, *, owner: bool) -> None:
    """End ``talk``'s session: SessionEnd, async command hooks stopped (cancelled) and the other
    background hooks waited for, what the session holds open let go, the observers told (the
    audit writes what waits). The ``owner`` of the shared parts closes them: its MCP servers,
    the runtime it made, its model's connections and the store it opened."""
    await talk.idle.stop()
    await end(seat.engine, talk.session, reason)
    await seat.engine.stop_background()
    await seat.engine.drain()
    if owner:
        await _close_parts(seat)
    _let_go(talk.session)
    try:
        seat.stream.tell(Closed, talk.session)  # before the store closes: the audit writes
    finally:
        if owner:
            seat.shared.store.close()  # opened again on next use


async def _close_parts(seat: Seat) -> None:
    """Close the MCP servers, the runtime the agent made and its model's connections."""
    shared = seat.shared
    if shared.mcp is not None:
        shared.lent.mcp = None
        await shared.mcp.close()  # after SessionEnd: its mcp_tool hooks still had the servers
    if shared.owns_runtime:
        await shared.runtime.aclose()  # a runtime given is closed by its owner
    aclose = getattr(seat.model, "aclose", None)
    if aclose is not None:
        await aclose()  # so are a remote model's (``hookline.agent.model``)


def _let_go(session: Session) -> None:
    """Close what a session holds open: its transcript, what its Bash commands left running,
    and its sandbox (whose proxy and temp folder are made again on next use)."""
    session.transcript.close()
    session.leftovers.close()
    if session.sandbox is not None:
        session.sandbox.close()
