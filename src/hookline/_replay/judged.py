"""A recorded event judged by one policy, as ``hookline serve`` would judge it live.

The judge is the server's (``hookline._serve.judge.Judge``): a tool call goes through the tool
pipeline's check (its input check, the path deny rules, the PreToolUse hooks, the permission
layer with its rules, mode, Bash analysis and tiers, and where it asks the PermissionRequest
hooks); a prompt through its UserPromptSubmit hooks. No tool body runs and no model is called.
Command hooks run for real, unless they are left out (``skip_commands``); a hook that reads the
clock, the network or the files is its author's to make deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookline._decisions import HOOK_ORIGINS
from hookline._hooks.engine import HookRun
from hookline._serve.judge import Judge
from hookline._tools.permit import ApprovalAsked

if TYPE_CHECKING:
    from hookline._project import Project
    from hookline._replay.recorded import Recorded


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one policy decided for one event."""

    #: allow, deny, ask, defer, or none (nothing in the policy had a say: the host decides).
    permission: str
    reason: str | None = None
    #: Who decided: the hooks that carried the decision, else where it came from (rule, tier,
    #: mode, ...).
    by: str | None = None
    rewritten: dict[str, Any] | None = None
    context: tuple[str, ...] = ()
    #: What each shadow rule or hook that had a say would have decided: (hook, decision,
    #: reason).
    shadow: tuple[tuple[str, str, str | None], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "permission": self.permission,
            "reason": self.reason,
            "by": self.by,
            "rewritten": self.rewritten,
            "context": list(self.context),
            "shadow": [{"hook": h, "would": d, "reason": r} for h, d, r in self.shadow],
        }


class Replayer:
    """Judges recorded events with one project's policy; ``aclose`` when done."""

    def __init__(self, project: Project, *, skip_commands: bool = False) -> None:
        if skip_commands:
            for spec in list(project.hooks):
                if spec.runner.handler == "command":
                    project.hooks.discard(spec)
        self.judge = Judge(project)
        self._runs: list[HookRun] = []
        self._asked: list[ApprovalAsked] = []
        self.judge.engine.stream.subscribe(HookRun, self._runs.append)
        self.judge.engine.stream.subscribe(ApprovalAsked, self._asked.append)

    async def verdict(self, recorded: Recorded) -> Verdict:
        self._runs.clear()
        self._asked.clear()
        ruling = await self.judge.rule(recorded.payload(recorded.source.rsplit(":", 1)[0]))
        decision = ruling.decision
        permission: str = decision.permission or "none"
        by: str | None = ruling.origin
        live = [r for r in self._runs if not r.shadow]
        if decision.permission == "ask" and self._asked:  # who asked: a rule, a tier, a hook
            by = self._asked[-1].request.source or by
        elif by in HOOK_ORIGINS:
            hooks = [r.hook for r in live if r.answer.permission == decision.permission]
            by = ", ".join(dict.fromkeys(hooks)) or by
        if decision.permission is None and decision.continue_ is False:
            permission, by = "stop", ", ".join(r.hook for r in live if not r.answer.continue_)
        rewritten = decision.updated_input
        return Verdict(
            permission,
            decision.reason or decision.stop_reason,
            by,
            dict(rewritten) if rewritten is not None else None,
            tuple(decision.additional_context),
            tuple((r.hook, r.decision, r.reason) for r in self._runs if r.shadow and r.decision),
        )

    async def aclose(self) -> None:
        await self.judge.aclose()
