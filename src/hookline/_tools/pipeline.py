"""The tool pipeline: prepare -> PreToolUse -> execute -> PostToolUse / PostToolUseFailure.

A refused call never reaches its tool's body: ToolBlocked fires with the reason, and the refusal
comes back as an error result the model can read. A tool that raises or overruns its timeout
becomes a failed result, never a crash. Every outcome is a ``ToolResult``. Just before a body
runs, the pipeline tells its stream (the engine's) a ``ToolStarted``: the audit log writes ahead
there, and an exception from a subscriber stops the call before the body.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from time import perf_counter
from typing import Any, Final, cast

import hookline._wording as wording
from hookline._decisions import NO_DECISION, UNCHANGED, Decision, Origin, Refusal
from hookline._errors import RecordError, ToolError, ToolInputError
from hookline._events import (
    PostToolUse,
    PostToolUseFailure,
    PreToolUse,
    Scope,
    ToolBlocked,
)
from hookline._hooks.engine import Dispatch, HookEngine, HookRun
from hookline._support.frozen import copy_json
from hookline._support.stream import Stream
from hookline._tools.approvals import Approval
from hookline._tools.base import Tool, Toolbox, ToolCall, ToolContext, ToolResult
from hookline._tools.limits import InputLimits
from hookline._tools.pending import PendingCall
from hookline._tools.permit import Outcome, Permit


@dataclass(frozen=True, slots=True)
class Grant:
    """What let a call run (or would have): the checked call and the started one carry it."""

    #: The merged PreToolUse decision.
    gate: Decision = NO_DECISION
    #: Who approved the call, when it was asked.
    approver: str | None = None
    #: Why the permission layer let it run, when it had a say.
    allowed: str | None = None
    #: Where the allow came from (``Outcome.origin``); None when nothing decided.
    origin: Origin | None = None


#: A call nothing had a say about.
NO_GRANT: Final = Grant()


@dataclass(frozen=True, slots=True)
class Checked:
    """A call after its PreToolUse check: the input to run, or the result that settled it."""

    call: ToolCall
    tool: Tool | None
    input: dict[str, Any]
    grant: Grant = NO_GRANT
    settled: ToolResult | None = None


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A call whose tool body is about to run: the input it runs with, and what let it run."""

    call: ToolCall
    input: dict[str, Any]
    grant: Grant = NO_GRANT

    @property
    def gate(self) -> Decision:
        return self.grant.gate

    @property
    def approver(self) -> str | None:
        return self.grant.approver

    @property
    def allowed(self) -> str | None:
        return self.grant.allowed

    @property
    def origin(self) -> Origin | None:
        return self.grant.origin


class ToolPipeline:
    """Runs tool calls through the hooks of an engine."""

    def __init__(
        self,
        tools: Toolbox,
        engine: HookEngine,
        permit: Permit | None = None,
        *,
        limits: InputLimits | None = None,
        stream: Stream | None = None,
    ) -> None:
        self.tools = tools
        self.engine = engine
        self.permit = permit or Permit(engine)
        #: The size and depth a tool input may have; over them, the call fails before any hook.
        self.limits = limits or InputLimits()
        #: Where it tells of each body about to run (``ToolStarted``): the engine's, unless given.
        self.stream = stream if stream is not None else engine.stream

    async def run(self, call: ToolCall, scope: Scope, ctx: ToolContext) -> ToolResult:
        """Run one call from the model and say what came of it."""
        return await self.finish(await self.check(call, scope, ctx), scope, ctx)

    async def check(
        self, call: ToolCall, scope: Scope, ctx: ToolContext, *, answer: Approval | None = None
    ) -> Checked:
        """The first half: prepare the input, ask the PreToolUse hooks and the permission layer.
        The calls of one batch are checked concurrently, as Claude Code does, then finished one
        by one. ``answer`` is a person's answer for this call, given on resume; one with an
        edited input is judged again as that input (``rejudge``)."""
        if answer is not None and answer.updated_input is not None:
            who = answer.approver or "approver"
            return await self.rejudge(call, answer.updated_input, scope, ctx, edited_by=who)
        return await self._judge(call, scope, ctx, answer)

    async def rejudge(
        self,
        call: ToolCall,
        edited: dict[str, Any],
        scope: Scope,
        ctx: ToolContext,
        *,
        edited_by: str,
    ) -> Checked:
        """An edited input, judged as if the model had asked for it: PreToolUse hooks (which
        may deny, defer or rewrite it), then the permission layer (rules, dangerous tier).
        Every edit comes here: ``sessions resume --edit``, an approver's or a PermissionRequest
        hook's ``updatedInput``. ``edited_by`` approved it, so an ask on it runs; a defer
        defers (the run pauses again, with the edit waiting); nothing asks twice, so an edit
        never comes back here."""
        again = self.limits.fit(ToolCall(call.id, call.name, edited))
        again = ToolCall(call.id, call.name, copy_json(again.input))
        checked = await self._judge(again, scope, ctx, edited_by=edited_by)
        if checked.grant.approver:
            return checked
        return replace(checked, grant=replace(checked.grant, approver=edited_by))

    async def _judge(
        self,
        call: ToolCall,
        scope: Scope,
        ctx: ToolContext,
        answer: Approval | None = None,
        *,
        edited_by: str | None = None,
    ) -> Checked:
        """Prepare, PreToolUse, the permission layer: what ``check`` and ``rejudge`` share."""
        if too_big := self.limits.problem(call.input, call.name):
            stand_in = self.limits.fit(call).input
            return Checked(call, None, stand_in, settled=_failed(call, stand_in, too_big))
        tool = self.tools.get(call.name)
        if tool is None:
            failed = _failed(call, call.input, wording.no_such_tool(call.name))
            return Checked(call, None, call.input, settled=failed)
        try:
            prepared = tool.prepare(copy_json(call.input), ctx)
        except ToolInputError as exc:
            return Checked(call, None, call.input, settled=_failed(call, call.input, str(exc)))
        pending = PendingCall(call, tool, prepared, scope, ctx, answer=answer, edited_by=edited_by)
        if refused := self.permit.refused_path(pending):  # before any hook
            return Checked(call, tool, prepared, settled=await self._blocked(call, refused, scope))
        pre = await self.engine.fire(
            scope, PreToolUse, tool_name=tool.name, tool_input=prepared, tool_use_id=call.id
        )
        return await self._permitted(pending.gated(NO_DECISION if pre is None else pre.decision))

    async def _permitted(self, pending: PendingCall) -> Checked:
        """After PreToolUse: the hooks' deny, else the permission step; an approved edit is
        judged again (``rejudge``)."""
        call, tool, prepared, gate = pending.call, pending.tool, pending.prepared, pending.gate
        rewritten = gate.updated_input
        if rewritten is not None and (too_big := self.limits.problem(rewritten, tool.name)):
            why = f"a PreToolUse hook rewrote the input to one it cannot take: {too_big}"
            return Checked(call, None, prepared, settled=_failed(call, prepared, why))
        if gate.permission == "deny":
            reason = gate.reason or f"{call.name} was refused by a PreToolUse hook"
            content = wording.denied("PreToolUse", call.name, reason)
            outcome = Outcome("deny", gate.origin, prepared, reason, content)
        else:
            outcome = await self.permit.decide(pending)
        if outcome.edit is not None:  # an approved edit (never of a rejudged call: see decide)
            who = outcome.approver or "approver"
            return await self.rejudge(call, outcome.edit, pending.scope, pending.ctx, edited_by=who)
        if outcome.permission == "allow":
            run_input = prepared if outcome.input is prepared else copy_json(outcome.input)
            grant = Grant(gate, outcome.approver, outcome.reason, outcome.origin)
            return Checked(call, tool, run_input, grant)
        blocked = await self._blocked(call, outcome, pending.scope)
        return Checked(call, tool, prepared, Grant(gate), _with_pre(blocked, gate, tool.name))

    async def finish(self, checked: Checked, scope: Scope, ctx: ToolContext) -> ToolResult:
        """The second half: run the tool body (unless the check settled the call) and the post
        hooks."""
        if checked.settled is not None:
            return checked.settled
        tool = cast(Tool, checked.tool)  # a call that is not settled has its tool
        ctx = self.permit.reading(ctx)  # Glob and Grep leave out what Read deny rules cover
        self.stream.tell(ToolStarted, checked.call, checked.input, checked.grant)
        result = await self._execute(tool, checked, scope, ctx)
        return _with_pre(result, checked.grant.gate, tool.name)

    async def _blocked(self, call: ToolCall, outcome: Outcome, scope: Scope) -> ToolResult:
        """A call that will not run now: ToolBlocked fires; the model reads why."""
        reason = outcome.reason or f"{call.name} was refused"
        refusal: Refusal = "defer" if outcome.permission == "defer" else "deny"
        await self.engine.fire(
            scope,
            ToolBlocked,
            tool_name=call.name,
            tool_input=outcome.input,
            tool_use_id=call.id,
            decision=refusal,
            reason=reason,
        )
        return ToolResult(
            call=call,
            status="deferred" if refusal == "defer" else "blocked",
            content=outcome.content or reason,
            input=outcome.input,
            reason=reason,
            approver=outcome.approver,
            permission=refusal,
            origin=outcome.origin,
        )

    async def _execute(
        self, tool: Tool, checked: Checked, scope: Scope, ctx: ToolContext
    ) -> ToolResult:
        """Run the body of an allowed call; its result says who allowed it and how."""
        call, tool_input = checked.call, checked.input
        start = perf_counter()
        try:
            output = await _timed(tool, tool_input, ctx)
        except RecordError:
            raise  # the run cannot keep its record: it stops, the call is no failed result
        except ToolError as exc:
            error = str(exc)
        except TimeoutError:
            error = f"{tool.name} timed out after {tool.timeout:g}s"
        except Exception as exc:  # a tool's bug becomes a failed result, never a crash
            error = f"{tool.name} failed: {type(exc).__name__}: {exc}"
        else:
            took, scope = perf_counter() - start, _where_now(scope, ctx)
            return await self._succeeded(tool, checked, output, scope, took)
        took, scope = perf_counter() - start, _where_now(scope, ctx)
        post = await self.engine.fire(
            scope,
            PostToolUseFailure,
            tool_name=tool.name,
            tool_input=tool_input,
            tool_use_id=call.id,
            error=error,
            duration_ms=int(took * 1000),
        )
        failed = _failed(call, tool_input, error, took, **_granted(checked.grant))
        return _after(failed, post, tool.name)

    async def _succeeded(
        self, tool: Tool, checked: Checked, output: Any, scope: Scope, took: float
    ) -> ToolResult:
        call, tool_input = checked.call, checked.input
        post = await self.engine.fire(
            scope,
            PostToolUse,
            tool_name=tool.name,
            tool_input=tool_input,
            tool_response=output,
            tool_use_id=call.id,
            duration_ms=int(took * 1000),
        )
        if post is not None and post.decision.updated_output is not UNCHANGED:
            output = copy_json(post.decision.updated_output)
        result = ToolResult(
            call=call,
            status="executed",
            content=_render(tool, output),
            input=tool_input,
            output=output,
            duration_ms=took * 1000,
            **_granted(checked.grant),
        )
        return _after(result, post, tool.name)


def _granted(let: Grant) -> dict[str, Any]:
    """What the result of a call ``let`` let run says of it: allowed, by whom and how."""
    return {"permission": "allow", "approver": let.approver, "origin": let.origin}


def _where_now(scope: Scope, ctx: ToolContext) -> Scope:
    """``scope`` with the folder the shell is in now (a ``cd`` in the call moved it)."""
    if ctx.shell is None or str(ctx.shell.cwd) == scope.cwd:
        return scope
    return replace(scope, cwd=str(ctx.shell.cwd))


async def _timed(tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
    if tool.timeout is None or not tool.suspends:
        return await tool.execute(tool_input, ctx)
    async with asyncio.timeout(tool.timeout):
        return await tool.execute(tool_input, ctx)


def _render(tool: Tool, output: Any) -> str:
    """The model's text for an output, which a hook may have replaced with another shape."""
    try:
        return tool.render(output)
    except Exception:
        return Tool.render(tool, output)


def _failed(
    call: ToolCall, tool_input: dict[str, Any], error: str, took: float = 0.0, **grant: Any
) -> ToolResult:
    return ToolResult(
        call=call,
        status="failed",
        content=error,
        input=tool_input,
        reason=error,
        duration_ms=took * 1000,
        **grant,
    )


def _after(result: ToolResult, post: Dispatch | None, tool: str) -> ToolResult:
    """Fold a post-event's outcome into the result: each block's feedback, context, stop
    (None: no hook listened)."""
    if post is None:
        return result
    decision, event = post.decision, post.event.name
    if decision.continue_ and not decision.additional_context and decision.permission != "deny":
        return result
    notes = [wording.post_block(event, tool, run) for run in post.live if _blocked_by(run)]
    notes += wording.contexts(event, tool, decision)
    return _with(result, notes, decision)


def _blocked_by(run: HookRun) -> bool:
    return run.kind != "observer" and run.answer.permission == "deny" and bool(run.answer.reason)


def _with_pre(result: ToolResult, gate: Decision, tool: str) -> ToolResult:
    """Fold the PreToolUse decision's context and stop into the result (context goes with
    every outcome but a deferral, as in Claude Code)."""
    if gate.continue_ and not gate.additional_context:
        return result
    notes = [] if result.status == "deferred" else wording.contexts("PreToolUse", tool, gate)
    return _with(result, notes, gate, first=True)


def _with(
    result: ToolResult, notes: list[str], decision: Decision, *, first: bool = False
) -> ToolResult:
    context = (*notes, *result.context) if first else (*result.context, *notes)
    stopped = result.stopped or not decision.continue_
    return replace(
        result,
        context=context,
        stopped=stopped,
        stop_reason=result.stop_reason or decision.stop_reason,
    )
