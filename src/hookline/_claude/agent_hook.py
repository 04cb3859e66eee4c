"""Claude Code ``agent`` hooks: a model that may read the project's files before it judges.

    {"type": "agent", "prompt": "Refuse edits that leave a TODO in src/. $ARGUMENTS",
     "model": "claude-haiku-4-5", "timeout": 60, "onFailure": "block"}

An agent hook is a prompt hook (``hookline._claude.prompt_hook``: the same ``$ARGUMENTS``, the
same ``{ok, reason}`` answer, the same meaning of ``ok: false`` on each event) whose model may
first look around with read-only tools (Read, Grep, Glob) for up to ``AGENT_TURNS`` model calls.
As in Claude Code it always behaves as ``"continueOnBlock": true`` (a denied PreToolUse call's
reason goes back to the model and the turn goes on), ``"impossible": true`` does not let a Stop
end (prompt hooks only), and it gets 60 seconds unless the handler says. A model that fails,
runs out of calls, overruns the timeout or answers anything but that JSON is a hook failure:
it fails open unless the handler says ``"onFailure": "block"``.

This layer cannot run agents: whoever loads the settings hands in an ``InvestigatorFactory``
that turns the handler's ``model`` value into an ``Investigator`` (``hookline._project`` makes a
read-only hookline ``Agent`` with no hooks of its own, so it never calls the hooks it serves).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

from hookline._claude.prompt_hook import JudgeHook

if TYPE_CHECKING:
    from hookline._events import HookEvent

#: Investigates: ``investigator(system, prompt, project_dir)`` is the text of the final answer
#: of a model that could read the files of ``project_dir`` (the session's project folder).
Investigator = Callable[[str, str, str], Awaitable[str]]
#: Makes the investigator for a handler's ``model`` value (None: the default model); raises a
#: ConfigError when that model cannot be had.
InvestigatorFactory = Callable[[str | None], Investigator]

#: Seconds an agent hook gets when it sets no ``timeout`` (Claude Code's default).
AGENT_TIMEOUT: Final = 60.0
#: Model calls an agent hook's investigation may make (Claude Code's 50 turns).
AGENT_TURNS: Final = 50

AGENT_SYSTEM: Final = (
    "You check one event of an AI agent's run against the rule the user gives you. You may "
    "read the project's files with the Read, Grep and Glob tools to find out whether the rule "
    "is met. When you know, answer with one JSON object and nothing else: "
    '{"ok": true} when the rule is met, or {"ok": false, "reason": "..."} when it is not, the '
    "reason saying what is wrong and what to do instead (the agent reads it)."
)


class AgentHook(JudgeHook):
    """Asks ``investigator`` about each event with ``prompt``, in the event's project folder."""

    handler = "agent"
    system = AGENT_SYSTEM
    takes_impossible = False

    def __init__(
        self, prompt: str, investigator: Investigator, *, model: str | None = None
    ) -> None:
        super().__init__(prompt, model=model, continue_on_block=True)
        self.investigator = investigator

    async def ask(self, question: str, event: HookEvent) -> str:
        return await self.investigator(self.system, question, event.project_dir)
