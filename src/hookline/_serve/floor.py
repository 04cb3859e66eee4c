"""The server's policy as the floor, a trusted project's as a tightening: ``Floored.rule``.

    rules = Floored(active.judge, projects, HOOKLINE_ONLY)   # one request's
    ruling = await rules.rule(payload)

Each event is judged by the server's judge, as without a project; when its project is
consulted (``hookline._serve.projects``), by the project's judge too, and the two answers are
merged by hookline's precedence (deny > defer > ask > allow: ``hookline._decisions.merge``),
the project only tightening (``tightening``):

- the project's allow counts for nothing: an allow is the server's to give;
- its asks and denies count when its hooks or its permission rules give them; of its tiers
  and its mode (hookline's own, which the server's judge applies under the server's
  settings) only a tier's deny counts, so a project never asks what the server's settings let
  run, yet its ``dangerous`` entries hold;
- its contexts add up, and its stop stops;
- an input its PreToolUse hooks rewrite is what the server's judge then rules on (the project
  is asked first), so what runs has passed the server's policy as it will run;
- a project whose settings cannot be read leaves the server's policy alone to decide, and a
  tool call (PreToolUse, PermissionRequest) is refused saying so: its rules may have been
  the ones to refuse it.

Every ruling says which project policy was consulted, or why none (``Ruling.project``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from hookline._decisions import PRECEDENCE, Decision, merge
from hookline._events import PreToolUse
from hookline._hooks.wire import answer_for
from hookline._serve.judge import REFUSING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._decisions import Origin
    from hookline._serve.judge import Judge, Ruling
    from hookline._serve.projects import Consulted, Projects

#: Where a project's ask or deny counts from: its hooks and its permission rules.
_OWN: Final[frozenset[Origin]] = frozenset(
    {"hook", "json", "exit_code_2", "stdout", "hook_failure", "rule"}
)


class Floored:
    """Rules with the server's judge, tightened by the event's project (if consulted)."""

    def __init__(self, server: Judge, projects: Projects, part: str) -> None:
        self.server, self.projects, self.part = server, projects, part

    async def rule(self, payload: Mapping[str, Any]) -> Ruling:
        """The ruling for ``payload``: the server's, tightened by its project's."""
        cwd = payload.get("cwd")
        where = cwd if isinstance(cwd, str) else None
        said = self.projects.placed(where, self.part)
        if said.why is not None:  # not consulted (the usual event): the server's alone
            ruling = await self.server.rule(payload)
            return replace(ruling, project=said.fields())
        async with self.projects.consulted(where, self.part, said) as (said, judge):
            if judge is not None:
                ruling = await self._both(payload, judge)
            elif said.error is not None:
                ruling = unread(await self.server.rule(payload), said)
            else:
                ruling = await self.server.rule(payload)
        return replace(ruling, project=said.fields())

    async def _both(self, payload: Mapping[str, Any], project: Judge) -> Ruling:
        """The project rules first; the server then rules on the call as it would run."""
        theirs = await project.rule(payload)
        rewritten = _rewrite(theirs)
        asked = payload if rewritten is None else {**payload, "tool_input": rewritten}
        ours = await self.server.rule(asked)
        decision = floored(ours.decision, theirs.decision, rewritten=rewritten)
        won = (
            PRECEDENCE[tightening(theirs.decision).permission]
            > PRECEDENCE[ours.decision.permission]
        )
        failure = ours.failure or (theirs.failure and f"the project's policy: {theirs.failure}")
        return replace(
            ours,
            decision=decision,
            answer=answer_for(ours.event, decision),
            origin=theirs.origin if won else ours.origin,
            failure=failure or None,
            runs=theirs.runs + ours.runs,
        )


def floored(server: Decision, project: Decision, *, rewritten: dict[str, Any] | None) -> Decision:
    """``server`` tightened by ``project``; ``rewritten``: the input the project's hooks
    rewrote (``server`` was ruled on it), the call's input unless the server rewrote it again
    or refused it."""
    merged = merge([server, tightening(project)])
    refused = merged.permission in ("deny", "defer")
    if rewritten is not None and merged.updated_input is None and not refused:
        return replace(merged, updated_input=rewritten)
    return merged


def tightening(project: Decision) -> Decision:
    """What of a project's answer counts beside the server's: its deny, defer or ask from its
    hooks and rules (a deny from its tiers too), its contexts and its stop; never an allow,
    never its rewrite (the server rules on that)."""
    permission = project.permission
    own = project.origin in _OWN or (permission == "deny" and project.origin == "tier")
    if permission == "allow" or not own:
        permission = None
    if permission is None:
        return replace(project, permission=None, reason=None, updated_input=None)
    return replace(project, updated_input=None)


def unread(ruling: Ruling, said: Consulted) -> Ruling:
    """``ruling`` when the project's settings could not be read: a tool call is refused."""
    if ruling.event not in REFUSING:
        return ruling
    reason = (
        f"hookline serve could not read the settings of the project {said.folder}, so this "
        f"{ruling.event} is refused: {said.error}"
    )
    decision = merge([ruling.decision, Decision("deny", reason, origin="hook_failure")])
    return replace(
        ruling,
        decision=decision,
        answer=answer_for(ruling.event, decision),
        origin="hook_failure",
        failure=f"the project's settings: {said.error}",
    )


def _rewrite(ruling: Ruling) -> dict[str, Any] | None:
    """The input a project's PreToolUse hooks rewrote, unless it refused the call."""
    decision = ruling.decision
    if ruling.event != PreToolUse.name or decision.permission in ("deny", "defer"):
        return None
    return decision.updated_input
