"""One hook event from a host, judged as hookline's own run would judge it: ``Judge.rule``.

The transport (``hookline._serve.app``) only reads bytes and writes the answer; everything
decided is decided here, with the pieces a ``hookline run`` uses. A tool call (PreToolUse) goes
through the tool pipeline's check (``ToolPipeline.check``): the tool's input check, the path
deny rules, the PreToolUse hooks, the permission layer (rules, mode, the Bash analysis, the
dangerous tier) and, where it asks, the PermissionRequest hooks. A host's PermissionRequest goes
through the permission step alone (``Permit.decide``): its PreToolUse hooks ran when the host
sent PreToolUse. Every other event is dispatched to its hooks.

What nobody here can answer is handed back to the host: an ask becomes ``ask`` (the host's own
prompt asks its user). Tools hookline does not have (the host's TodoWrite, its MCP tools) are
judged by the hooks and the rules only; the tiers' "needs approval" is left to the host.

With ``--asks inbox`` (``hookline._serve.asks``), a request of a host session is judged inside
a ``HostSession`` (``SESSION``): the grants given to that session are applied to the policy
(``SessionGrant.applied``, as a run's ``Permit.restore``), and an ask of the tiers (at
PreToolUse, or at a PermissionRequest handed back) offers a grant (``HostSession.offered``) a
person may approve for the rest of the session. Elsewhere no grant is offered or applied.

A refusing event (PreToolUse, PermissionRequest) fails closed: anything that goes wrong while
judging it (a payload it cannot read, a crash) is a deny that says what went wrong.
"""

from __future__ import annotations

import posixpath
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias

from hookline._decisions import NO_DECISION, Decision
from hookline._errors import ConfigError
from hookline._events import PermissionRequest, PreToolUse, Scope
from hookline._hooks.engine import HookEngine, HookRun
from hookline._hooks.resources import HookResources
from hookline._hooks.wire import answer_for, event_from_payload
from hookline._support.frozen import copy_json
from hookline._support.http_pool import HttpClients
from hookline._support.stream import Stream
from hookline._tools.approvals import Approval, ApprovalRequest, NoApprover, Unavailable
from hookline._tools.base import Tool, Toolbox, ToolCall, ToolContext, Workspace
from hookline._tools.builtin import builtin_tools
from hookline._tools.pending import PendingCall
from hookline._tools.permit import Permit
from hookline._tools.pipeline import Checked, ToolPipeline
from hookline.permissions import PermissionPolicy
from hookline.permissions._verdict import SESSION_SOURCE

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._decisions import Origin
    from hookline._events import HookEvent, PermissionMode
    from hookline._project import Project
    from hookline._tools.permit import Outcome
    from hookline.permissions._session import SessionGrant

#: Events whose deny refuses a tool call: an error judging them is a deny, never an allow.
REFUSING: Final = frozenset({PreToolUse.name, PermissionRequest.name})
#: A decision, and where it came from (None: nothing decided).
Judged: TypeAlias = "tuple[Decision, Origin | None]"
#: The id a PermissionRequest's call is judged under (the host sends none).
_NO_CALL_ID: Final = "permission-request"
#: The most folders (and folders in a mode) a judge keeps what it made for; past that, it
#: forgets them all and makes them again.
_KEPT_MOST: Final = 4096
#: The hook runs of the ruling being made: each request's task has a list of its own.
_RUNS: ContextVar[list[HookRun] | None] = ContextVar("hookline_served_runs", default=None)


@dataclass(eq=False, slots=True)
class HostSession:
    """The host session a request is judged in (``--asks inbox`` only): the grants given to
    it, and what the judging found: the grant its ask offers, whether a grant let it run."""

    grants: tuple[SessionGrant, ...] = ()
    #: The grant an ask of the tiers offers (the last call judged; None: none to offer).
    offered: SessionGrant | None = None
    #: A grant given to the session let the call run (a rule of it, or its acceptEdits).
    lifted: bool = False
    #: The policy's mode before the grants (an acceptEdits that was not the host's is theirs).
    base_mode: PermissionMode | None = None


#: The host session of the request being judged; None: no grants (not ``--asks inbox``).
SESSION: ContextVar[HostSession | None] = ContextVar("hookline_host_session", default=None)


@dataclass(frozen=True, slots=True)
class Ruling:
    """What was decided for one event, and the JSON answer the host reads."""

    event: str
    decision: Decision
    answer: dict[str, Any]
    #: Where the decision came from: a hook, a rule, the mode, a tier, ... (None: nowhere).
    origin: Origin | None = None
    session_id: str | None = None
    cwd: str | None = None
    tool: str | None = None
    tool_use_id: str | None = None
    #: Fields of the payload hookline's event has not (left out, on record).
    ignored: tuple[str, ...] = ()
    #: What went wrong while judging, when it failed closed.
    failure: str | None = None
    #: Which project policy was consulted beside the server's, or why none
    #: (``hookline._serve.projects.Consulted.fields``); None: none was looked for.
    project: Mapping[str, str] | None = None
    #: The hook runs that judged it (each with its decision, time and failure), for the audit.
    runs: tuple[HookRun, ...] = ()


class Rules(Protocol):
    """What rules on a host's event: a ``Judge``, or the server's and a project's together
    (``hookline._serve.floor.Floored``)."""

    async def rule(self, payload: Mapping[str, Any]) -> Ruling: ...


class HostPrompt(NoApprover):
    """The approver of a served call: nobody here answers; the host's own prompt will. Keeps
    the request, so an ask is told apart from a hook's defer."""

    def __init__(self) -> None:
        self.asked: ApprovalRequest | None = None

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        self.asked = request
        return Unavailable("the host asks its user")


class HostTool(Tool):
    """A tool of the host's that hookline does not have: judged by hooks and rules only."""

    def __init__(self, name: str) -> None:
        self.name = name


class Judge:
    """Judges host events with one project's hooks and permission policy."""

    def __init__(self, project: Project) -> None:
        self.project = project
        #: The pool HTTP hooks post through; ``aclose`` closes it.
        self.http = HttpClients()
        stream = Stream()
        stream.subscribe(HookRun, _collected)
        resources = HookResources(http=self.http)
        self.engine = HookEngine(project.hooks, resources=resources, stream=stream)
        self._tools = {tool.name: tool for tool in builtin_tools()}
        self._policies: dict[PermissionMode | None, PermissionPolicy] = {}
        #: Per host folder: the policy in a mode over that folder, and the folder as a tool's
        #: context has it (its real path): made once, not on every event.
        self._placed: dict[tuple[PermissionMode | None, str], PermissionPolicy] = {}
        self._folders: dict[str, tuple[Path, Workspace]] = {}

    async def rule(self, payload: Mapping[str, Any]) -> Ruling:
        """The ruling for one host payload, with the hook runs that made it; a ConfigError
        when it is not an event (or names one hookline does not run) and the event does not
        refuse anything."""
        runs: list[HookRun] = []
        token = _RUNS.set(runs)
        try:
            ruling = await self._rule(payload)
        finally:
            _RUNS.reset(token)
        return replace(ruling, runs=tuple(runs)) if runs else ruling

    async def _rule(self, payload: Mapping[str, Any]) -> Ruling:
        name = payload.get("hook_event_name")
        try:
            event, ignored = event_from_payload(payload)
            decision, origin = await self._decide(event)
        except Exception as exc:
            if name not in REFUSING:
                raise
            what = str(exc) if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"
            return failed_closed(str(name), payload, what)
        return _ruled(event, decision, origin, ignored)

    async def _decide(self, event: HookEvent) -> Judged:
        """The decision for ``event``, and where it came from (None: nothing decided)."""
        if isinstance(event, PreToolUse):
            return await self._tool_call(event)
        if isinstance(event, PermissionRequest):
            return await self._permission(event)
        decision = (await self.engine.dispatch(event)).decision
        return decision, decision.origin if decision.label else None

    async def _tool_call(self, event: PreToolUse) -> Judged:
        tool, call, scope, ctx = self._call(event, event.tool_use_id)
        asker = HostPrompt()
        permit = self._permit(event, asker)
        checked = await ToolPipeline(Toolbox([tool]), self.engine, permit).check(call, scope, ctx)
        judged = _checked_decision(checked, asker, stand_in=isinstance(tool, HostTool))
        session = SESSION.get()
        return judged if session is None else _judged_in(session, judged, asker, permit)

    async def _permission(self, event: PermissionRequest) -> Judged:
        tool, call, scope, ctx = self._call(event, _NO_CALL_ID)
        pending = PendingCall(call, tool, tool.prepare(copy_json(call.input), ctx), scope, ctx)
        asker = HostPrompt()
        permit = self._permit(event, asker)
        outcome = permit.refused_path(pending) or await permit.decide(pending)
        judged = _outcome_decision(outcome, asker)
        session = SESSION.get()
        return judged if session is None else _judged_in(session, judged, asker, permit)

    def _permit(self, event: PreToolUse | PermissionRequest, asker: HostPrompt) -> Permit:
        """The permission step for one call: the policy in the host's mode, over the host's
        project (where its protected folders and hookline's private state are, and what
        acceptEdits may change), not the server's folder; an ask nobody here answers is handed
        back (``asker`` keeps it), with no session grant: the host's prompt offers its own;
        in a ``HostSession``, its grants applied and an ask of the tiers offering one."""
        key = (event.permission_mode, event.cwd)
        policy = self._placed.get(key)
        if policy is None:
            project = (posixpath.normpath(event.cwd),)
            policy = replace(self.policy(event.permission_mode), workspace=project)
            _keep(self._placed, key, policy)
        session = SESSION.get()
        if session is None:
            return Permit(self.engine, policy=policy, approver=asker, defer_asks=True, grants=False)
        session.base_mode = policy.mode
        for grant in session.grants:
            policy = grant.applied(policy)
        return Permit(self.engine, policy=policy, approver=asker, defer_asks=True)

    def _call(
        self, event: PreToolUse | PermissionRequest, call_id: str
    ) -> tuple[Tool, ToolCall, Scope, ToolContext]:
        """The host's call as the pipeline takes one: the tool, the call, where it runs."""
        tool = self._tools.get(event.tool_name) or HostTool(event.tool_name)
        folder = self._folders.get(event.cwd)
        if folder is None:
            folder = (Path(event.cwd), Workspace.of(event.cwd))
            _keep(self._folders, event.cwd, folder)
        ctx = ToolContext(cwd=folder[0], workspace=folder[1], session_id=event.session_id)
        call = ToolCall(call_id, event.tool_name, copy_json(event.tool_input))
        return tool, call, _scope(event), ctx

    async def aclose(self) -> None:
        """Close the HTTP hooks' connections (on the loop that served)."""
        await self.http.aclose()

    def policy(self, mode: PermissionMode | None) -> PermissionPolicy:
        """The project's policy in the host's permission mode (None: the settings' own); a
        mode the settings refuse (bypassPermissions where it is disabled) keeps theirs."""
        known = self._policies.get(mode)
        if known is None:
            base = self.project.permissions
            try:
                made, _ = PermissionPolicy.from_settings(
                    self.project.settings, mode=mode, cwd=self.project.cwd
                )
            except ConfigError:
                made = base
            known = self._policies[mode] = replace(made, code_files=base.code_files)
        return known


def _keep(kept: dict[Any, Any], key: Any, value: Any) -> None:
    """``kept[key] = value``, forgetting everything first when ``kept`` is full."""
    if len(kept) >= _KEPT_MOST:
        kept.clear()
    kept[key] = value


def _collected(run: HookRun) -> None:
    """Keep ``run`` with the ruling its request is making (a background hook that ends after
    it is on no ruling)."""
    runs = _RUNS.get()
    if runs is not None:
        runs.append(run)


def _scope(event: HookEvent) -> Scope:
    """The session's scope, as the host's event gives it."""
    return Scope(
        session_id=event.session_id,
        transcript_path=event.transcript_path,
        cwd=event.cwd,
        permission_mode=event.permission_mode or "default",
        prompt_id=event.prompt_id,
        agent_id=event.agent_id,
        agent_type=event.agent_type,
    )


def _judged_in(session: HostSession, judged: Judged, asker: HostPrompt, permit: Permit) -> Judged:
    """``judged`` of a call in ``session``, which keeps what it found: the grant its ask
    offers, or that a grant given to the session let it run (an allow rule of the session's,
    whose reason says so, or an acceptEdits the host's mode was not: said here)."""
    decision, origin = judged
    session.offered = asker.asked.session_grant if asker.asked is not None else None
    session.lifted = False
    if decision.permission != "allow" or not session.grants:
        return judged
    if origin == "rule":
        session.lifted = SESSION_SOURCE in (decision.reason or "")
    elif origin == "mode" and permit.policy is not None:
        session.lifted = permit.policy.mode != session.base_mode
        if session.lifted:
            said = f"{decision.reason} ({SESSION_SOURCE}: {permit.policy.mode})"
            return replace(decision, reason=said), origin
    return judged


def _checked_decision(checked: Checked, asker: HostPrompt, *, stand_in: bool) -> Judged:
    """A PreToolUse check's outcome, and its origin (where a run's record of the call has it)."""
    settled = checked.settled
    origin = checked.grant.origin if settled is None else settled.origin
    return _checked_answer(checked, asker, stand_in=stand_in), origin


def _checked_answer(checked: Checked, asker: HostPrompt, *, stand_in: bool) -> Decision:
    """A PreToolUse check's outcome in the words the host reads; the hooks' context and stop
    go with it, as a run folds them into the call's result."""
    gate, settled = checked.grant.gate, checked.settled
    said = Decision(
        additional_context=gate.additional_context,
        continue_=gate.continue_,
        stop_reason=gate.stop_reason,
    )
    if settled is None:
        rewritten = checked.input if gate.updated_input is not None else None
        if checked.grant.origin is None:  # nothing had a say: the host's own flow decides
            return replace(said, updated_input=rewritten)
        return replace(
            said, permission="allow", reason=checked.grant.allowed, updated_input=rewritten
        )
    if settled.status != "deferred":  # blocked, or failed before any hook (its input)
        return replace(said, permission="deny", reason=settled.reason or settled.content)
    if asker.asked is None:  # a hook's defer
        return Decision("defer", settled.reason)
    # a hook's rewrite goes with an ask: the host asks about, and runs, the input as it was left
    rewritten = copy_json(settled.input) if gate.updated_input is not None else None
    if stand_in and asker.asked.source == "tier:mutating":  # the host's tool: its own prompt
        return replace(said, updated_input=rewritten)
    return replace(said, permission="ask", reason=asker.asked.reason, updated_input=rewritten)


def _outcome_decision(outcome: Outcome, asker: HostPrompt) -> Judged:
    """The permission step's outcome for a host's PermissionRequest: allow or deny, or nothing
    (the host's prompt asks; with the reason the permission step asked, if it did); and its
    origin."""
    if outcome.permission == "deny":
        return Decision("deny", outcome.reason or outcome.content), outcome.origin
    if outcome.permission == "allow" and outcome.origin is not None:
        return Decision("allow", outcome.reason, outcome.edit), outcome.origin
    return (NO_DECISION if asker.asked is None else Decision(reason=asker.asked.reason)), None


def _ruled(
    event: HookEvent, decision: Decision, origin: Origin | None, ignored: tuple[str, ...]
) -> Ruling:
    return Ruling(
        event.name,
        decision,
        answer_for(event.name, decision),
        origin=origin,
        session_id=event.session_id,
        cwd=event.cwd,
        tool=getattr(event, "tool_name", None),
        tool_use_id=getattr(event, "tool_use_id", None),
        ignored=ignored,
    )


def failed_closed(name: str, payload: Mapping[str, Any], what: str) -> Ruling:
    """A deny that says ``what`` went wrong while judging a refusing event."""
    reason = f"hookline serve could not judge this {name}, so it is refused: {what}"
    decision = Decision("deny", reason, origin="hook_failure")
    return Ruling(
        name,
        decision,
        answer_for(name, decision),
        origin="hook_failure",
        session_id=_text(payload.get("session_id")),
        cwd=_text(payload.get("cwd")),
        tool=_text(payload.get("tool_name")),
        tool_use_id=_text(payload.get("tool_use_id")),
        failure=what,
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
