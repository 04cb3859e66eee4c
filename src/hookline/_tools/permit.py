"""The permission step of the pipeline: from the PreToolUse decision to run, refuse or defer.

    hook deny ──────────────────────────────────────────────► refuse
    hook defer ─ an answer from a resume? ─ no ─────────────► defer
    permission layer (rules, mode, tiers) ─ deny ───────────► refuse
                                          ─ ask ─ PermissionRequest hooks ─┐
                                                  the approver(s) ─────────┤
                                                  an answer from a resume ─┴► run / refuse / defer
                                          ─ allow ──────────────────────► run

Each ``Outcome`` says what was decided in the permission words (allow, deny, defer) and where
it was decided (``origin``: a hook, a rule, a tier, the mode, an approver, nobody answering).
An approval with an edited input (an approver's, a PermissionRequest hook's, a resume's) is
checked against the tool's input schema here, then comes back as ``edit``: the pipeline judges
it again from PreToolUse on (``ToolPipeline.rejudge``), with ``edited_by`` saying who edited it.
The editor's approval answers an ask on the edited input, and a hook's defer of it defers (the
run pauses again). When PreToolUse hooks rewrite the edited input, the editor never saw what
would run: the approver is asked again, with the final input (``_ask_final``); it runs only if
approved as it is (another edit there is refused), so an edit never recurses.

An ask of the tiers (``tier:mutating``: no rule, mode or hook settled the call) carries a
``session_grant`` (``hookline.permissions._session``): what an allow for the rest of the
session would allow. The permit tells its stream (the engine's) of each request asked
(``ApprovalAsked``), each answer (``ApprovalAnswered``) and each grant (``SessionGranted``).
An approval with ``scope="session"`` applies it (``grant``) after the answer was told: its
allow rules join the policy's (where deny rules, the dangerous tier, ask rules, the protected
set and a hook's ask still come first), or its mode is set.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import hookline._wording as wording
from hookline._decisions import NO_DECISION, Answer, Decision, Origin
from hookline._errors import ToolInputError
from hookline._events import Notification, PermissionRequest, Scope
from hookline._file_tools import INPUT_CHECKED
from hookline._hooks.engine import HookEngine
from hookline._tools.approvals import (
    Approval,
    ApprovalRequest,
    Approver,
    NoApprover,
    request_approval,
)
from hookline._tools.base import ToolContext
from hookline._tools.pending import PendingCall

if TYPE_CHECKING:  # the permission layer is imported where there is one (or a hook asks)
    from hookline.permissions import PermissionPolicy, Verdict
    from hookline.permissions._call import CallContext
    from hookline.permissions._policy import PathCheck
    from hookline.permissions._session import SessionGrant
    from hookline.permissions._visibility import ReadFilter

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ApprovalAsked:
    """A stream record: a call needs approval; PermissionRequest hooks, then the approver,
    are asked."""

    request: ApprovalRequest


@dataclass(frozen=True, slots=True)
class ApprovalAnswered:
    """A stream record: someone (a hook, a person, an approver, a resume) answered."""

    request: ApprovalRequest
    answer: Approval


@dataclass(frozen=True, slots=True)
class SessionGranted:
    """A stream record: ``grant`` allows what it names for the rest of the session, and
    ``policy`` is the policy with it applied."""

    grant: SessionGrant
    policy: PermissionPolicy | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the permission step decided for one call, and where that came from."""

    permission: Answer
    #: Who decided, by kind; None when nothing did (no permission layer, no hook's answer).
    origin: Origin | None
    input: dict[str, Any]
    reason: str | None = None
    #: The text the model reads when the call does not run.
    content: str | None = None
    #: Who answered an ask ("hook:<name>", "terminal", "cli", ...), if anyone did.
    approver: str | None = None
    #: An approved edit (permission allow), to be judged again from PreToolUse on.
    edit: dict[str, Any] | None = None


class Permit:
    """Applies the permission layer and asks for approval where it says so."""

    def __init__(
        self,
        engine: HookEngine,
        *,
        policy: PermissionPolicy | None = None,
        approver: Approver | None = None,
        defer_asks: bool = False,
        grants: bool = True,
    ) -> None:
        self.engine = engine
        #: By folder: the Read deny rules Glob and Grep apply, and the body's path check.
        self._filters: dict[str, tuple[ReadFilter, PathCheck]] = {}
        #: The last context ``reading`` was given, and what it made of it.
        self._reading: tuple[ToolContext, ToolContext] | None = None
        self.policy = policy
        self.approver = approver or NoApprover()
        #: An ask nobody can answer now pauses the run, instead of refusing the call.
        self.defer_asks = defer_asks
        #: An ask of the tiers offers a session grant (off where nobody could take one up).
        self.grants = grants
        #: Where it tells of each request, answer and grant: the engine's stream.
        self.stream = engine.stream

    @property
    def policy(self) -> PermissionPolicy | None:
        return self._policy

    @policy.setter
    def policy(self, policy: PermissionPolicy | None) -> None:
        """A new policy (a mode or rules changed mid-session): what was built from the old
        one (the Read deny rules' filters for Grep and Glob, the bodies' path checks) is built
        again."""
        self._policy = policy
        self._filters.clear()
        self._reading = None

    async def decide(self, pending: PendingCall) -> Outcome:
        """Run, refuse or defer a call whose hooks have answered (``pending.gate``). An edit
        judged again (``pending.edited_by``) was approved by whoever made it, so an ask runs."""
        gate, answer, tool_input = pending.gate, pending.answer, pending.input
        if answer is not None and answer.permission == "deny":  # a person said no: it holds
            reason = answer.message or "denied by the person who answered"
            return self._answered(pending, pending.request(reason, "answer"), answer)
        if self.policy is None and gate.permission not in ("ask", "defer"):
            origin = gate.origin if gate.permission else None  # no permission layer: hooks only
            return Outcome("allow", origin, tool_input)
        if gate.permission == "defer":
            reason = gate.reason or "deferred by a hook"
            if answer is None:
                return Outcome("defer", gate.origin, tool_input, reason)
            return self._answered(pending, pending.request(reason, "PreToolUse"), answer)
        asked = pending.asked()
        verdict = self._verdict(asked, gate)
        if pending.edited_by is not None and verdict.permission in ("ask", "allow"):
            rewritten = gate.updated_input is not None and tool_input != pending.prepared
            if rewritten:  # hooks changed the edit: its editor did not see what would run
                return await self._ask_final(pending)
            if verdict.permission == "ask":
                return Outcome("allow", "approver", tool_input, approver=pending.edited_by)
        if verdict.permission == "ask":
            grant = self._grant_for(asked, verdict)
            request = pending.request(verdict.reason, verdict.source, grant)
            approval = answer or await self._ask(request, pending.scope)
            return self._answered(pending, request, approval)
        if verdict.permission in ("deny", "defer"):
            why = verdict.reason
            return Outcome(verdict.permission, verdict.origin, tool_input, why, why)
        return Outcome("allow", verdict.origin, tool_input, verdict.reason)

    def grant(self, grant: SessionGrant) -> None:
        """Allow what ``grant`` names for the rest of the session, and tell the stream (the
        agent keeps the grant with the session)."""
        self.restore((grant,))
        self.stream.tell(SessionGranted, grant, self.policy)

    def restore(self, grants: Sequence[SessionGrant]) -> None:
        """Apply grants given earlier in the session (a resumed session's), telling no one."""
        policy = self.policy
        if policy is not None:
            for grant in grants:
                policy = grant.applied(policy)
            self.policy = policy

    def refused_path(self, pending: PendingCall) -> Outcome | None:
        """A deny rule covering the path of a Read, Edit or Write: refused by the tool's own
        input check, before PreToolUse fires, as in Claude Code (``path_refusal``)."""
        policy = self.policy
        if policy is None or not policy.deny or pending.tool.name not in INPUT_CHECKED:
            return None  # nothing to look up (``path_refusal`` says the same)
        from hookline.permissions._policy import path_refusal

        verdict = path_refusal(policy, pending.asked())
        if verdict is None:
            return None
        content = wording.tool_use_error(wording.PATH_DENIED)
        return Outcome("deny", verdict.origin, pending.prepared, verdict.reason, content)

    def reading(self, ctx: ToolContext) -> ToolContext:
        """``ctx`` with the policy's Read deny rules, which Glob and Grep apply in a folder, and
        the path rules every file tool's body applies again at the moment of use."""
        if self.policy is None or ctx.read_filter is not None:
            return ctx
        cwd = str(ctx.project_dir)  # the files are absolute: the folder anchors ./ rules
        found = self._filters.get(cwd)
        if found is None:  # built once per folder and policy
            from hookline.permissions._policy import PathCheck
            from hookline.permissions._visibility import ReadFilter

            made = ReadFilter.of(self.policy, cwd=cwd), PathCheck(self.policy, cwd)
            found = self._filters[cwd] = made
        last = self._reading  # a session's calls share one context, while the shell stays put
        if last is None or last[0] is not ctx:
            ready = replace(ctx, read_filter=found[0], path_check=found[1])
            last = self._reading = (ctx, ready)
        return last[1]

    def _verdict(self, asked: CallContext, gate: Decision) -> Verdict:
        if self.policy is None:  # no permission layer: only a hook's ask comes here (decide)
            from hookline.permissions._policy import Verdict

            reason = gate.reason or f"{asked.tool_name} needs approval"
            return Verdict("ask", reason, "PreToolUse", gate.origin)
        return self.policy.verdict(asked, gate)

    def _grant_for(self, asked: CallContext, verdict: Verdict) -> SessionGrant | None:
        """What an allow for the rest of the session would allow: offered for an ask of the
        tiers only, which a rule or the mode can settle (no ask rule, protected path,
        dangerous-tier doubt, hook's ask or unknowable line asked)."""
        if not self.grants or self.policy is None or verdict.source != "tier:mutating":
            return None
        from hookline.permissions._session import grant_for

        return grant_for(self.policy, asked)

    async def _ask(self, request: ApprovalRequest, scope: Scope) -> Approval:
        """PermissionRequest hooks first; then the approver (``request_approval``: a deferral
        when nobody can answer now and the run may pause, else a deny saying why)."""
        self.stream.tell(ApprovalAsked, request)
        asked = await self.engine.fire(
            scope, PermissionRequest, tool_name=request.tool_name, tool_input=request.tool_input
        )
        decision = NO_DECISION if asked is None else asked.decision
        if asked is not None and decision.permission in ("allow", "deny"):
            who = f"hook:{asked.decided_by or 'PermissionRequest'}"
            if decision.permission == "deny":
                why = decision.reason or "denied by a PermissionRequest hook"
                return Approval("deny", why, None, who, decision.origin)
            return Approval("allow", None, decision.updated_input, who, decision.origin)
        if not isinstance(self.approver, NoApprover):  # someone is asked: tell Notification hooks
            await self._notify(request, scope)
        return await request_approval(self.approver, request, can_defer=self.defer_asks)

    async def _ask_final(self, pending: PendingCall) -> Outcome:
        """An edit that PreToolUse hooks then rewrote: whoever approved the edit did not see
        what would run, so they are asked again with the final input (the edit as the
        ``original_input``). Approving runs it; another edit is refused (an edit of an edit
        would never end), as is nobody answering."""
        edited_by, final = pending.edited_by, pending.input
        reason = f"a PreToolUse hook changed the input {edited_by} edited: approve what will run"
        request = pending.request(reason, "PreToolUse")
        approval = await self._ask(request, pending.scope)
        if approval.permission == "allow" and approval.updated_input is not None:
            why = "the input was edited again after hooks rewrote the edit; approve or deny it"
            return Outcome("deny", approval.origin, final, why, why, approval.approver or None)
        return self._answered(pending, request, approval)

    async def _notify(self, request: ApprovalRequest, scope: Scope) -> None:
        """Fire Notification (``permission_prompt``) before the approver is asked; its hooks run
        for their side effects (a desktop notice, a chat message), their answers are ignored."""
        if self.engine.listens(Notification.name):
            message = f"The agent needs your permission to use {request.tool_name}"
            notice = scope.event(
                Notification, message=message, notification_type="permission_prompt"
            )
            await self.engine.dispatch(notice)

    def _answered(
        self, pending: PendingCall, request: ApprovalRequest, approval: Approval
    ) -> Outcome:
        """The outcome of an answer. A deferral (nobody could answer now, or an approver holds
        the request) pauses the run; the rest are told to the stream first."""
        tool, tool_input = pending.tool, request.tool_input
        who, origin = approval.approver or None, approval.origin
        if approval.permission == "defer":
            return Outcome("defer", origin, tool_input, f"waiting for approval: {request.reason}")
        approval = _lasting(request, approval)
        self.stream.tell(ApprovalAnswered, request, approval)
        if approval.scope == "session" and request.session_grant is not None:
            self.grant(request.session_grant)
        if approval.permission == "deny":
            message = approval.message or f"{tool.name} was denied by {who or 'the approver'}"
            return Outcome("deny", origin, tool_input, message, message, who)
        if approval.updated_input is None:
            return Outcome("allow", origin, tool_input, approver=who)
        edited = dict(approval.updated_input)
        try:
            tool.prepare(dict(edited), pending.ctx)
        except ToolInputError as exc:
            why = f"the edited input does not fit {tool.name}: {exc}"
            return Outcome("deny", origin, tool_input, why, why, who)
        return Outcome("allow", origin, tool_input, approver=who, edit=edited)


def _lasting(request: ApprovalRequest, approval: Approval) -> Approval:
    """``approval``, allowing this call only when it cannot last the session: no grant was
    offered, or it edits the input (the grant was worked out for the input as asked)."""
    if approval.scope != "session":
        return approval
    if approval.permission == "allow" and not approval.updated_input and request.session_grant:
        return approval
    logger.warning(
        "%s answered %s for the session; allowed for this call only: %s",
        approval.approver or "the approver",
        request.tool_name,
        "no session scope was offered" if request.session_grant is None else "an edit or deny",
    )
    return replace(approval, scope="once")
