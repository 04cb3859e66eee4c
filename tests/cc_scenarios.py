"""Claude Code scenarios run by hookline: a project whose ``.claude/settings.json`` configures
real command hooks, the built-in tools, and a scripted model, as the real CLI was run for the
observations of docs/compatibility.md ("Claude Code, as observed"; payloads in
``tests/reaction_hooks/payloads/``).

``run_scenario(root, hooks, turns)`` writes the settings, runs one prompt and returns an
``Outcome``: the result, the scripted model (what each call was shown), the lines the tested
hooks logged (``tests/reaction_hooks/hook.py``) and the payloads a plain ``cat`` recorder
received on every other event.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookline import Agent, HookRegistry, Message, RunResult, ScriptedModel
from hookline._agent.messages import TextBlock, ToolResultBlock
from hookline._claude.session_env import env_file_for
from hookline._claude.settings import load_settings
from hookline._wording import REMINDER_CLOSE, REMINDER_OPEN
from reaction_hooks.hook import LOG_NAME

HOOK_SCRIPT = Path(__file__).parent / "reaction_hooks" / "hook.py"
PROMPT = "Please print hello with bash."
FINAL = "FINAL-TEXT"
#: The default Bash command creates this file, so a test can tell whether the tool ran.
MARKER = "MARKER-RAN.txt"
#: Where the recorder appends the payload of every event it hears, one JSON line each.
OBSERVED = ".observed.jsonl"
RECORDER = f'cat >> "$CLAUDE_PROJECT_DIR/{OBSERVED}"'
#: The events a recorder listens to, unless the scenario configures hooks of its own there.
OBSERVED_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "SessionEnd",
)


# -- building settings and scripts ------------------------------------------------------------


def command(mode: str, label: str | None = None) -> str:
    """The settings command for ``hook.py MODE [LABEL]``: the ``<cmd>`` the model may read."""
    return " ".join(["python3", shlex.quote(str(HOOK_SCRIPT)), mode, *([label] if label else [])])


def handler(mode: str, *, label: str | None = None, timeout: float | None = None) -> dict[str, Any]:
    """One ``{"type": "command", ...}`` handler running ``hook.py``."""
    entry: dict[str, Any] = {"type": "command", "command": command(mode, label)}
    if timeout is not None:
        entry["timeout"] = timeout
    return entry


def recorder() -> dict[str, Any]:
    """The handler that appends each payload it receives to OBSERVED (``Outcome.observed``)."""
    return {"type": "command", "command": RECORDER}


def group(*handlers: dict[str, Any] | str, matcher: str | None = None) -> dict[str, Any]:
    """A matcher group; a plain string is a hook.py mode."""
    made = [handler(h) if isinstance(h, str) else h for h in handlers]
    return {"hooks": made} if matcher is None else {"matcher": matcher, "hooks": made}


def bash(cmd: str, *, call_id: str = "toolu_1", description: str = "Print hello") -> dict[str, Any]:
    return {"id": call_id, "name": "Bash", "input": {"command": cmd, "description": description}}


def calls(*tool_calls: dict[str, Any]) -> dict[str, Any]:
    """One model turn asking for these tool calls (several: one batch)."""
    return {"tool_calls": list(tool_calls)}


def say(text: str = FINAL) -> dict[str, Any]:
    return {"text": text}


#: The experiments' usual scenario: one Bash call, then FINAL-TEXT; the call leaves MARKER behind.
ECHO = [calls(bash(f"touch {MARKER} && echo hello")), say()]
#: A Bash call that prints how many hook.py log lines of ``{kind}`` there were when it ran, so a
#: test can tell what the hooks had done by then without reading a clock.
COUNT_LOG = 'grep -c \'"kind": "{kind}"\' ' + LOG_NAME + " || true"


# -- running ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one scenario did, and what its model was shown."""

    project: Path
    model: ScriptedModel
    result: RunResult

    @property
    def ran(self) -> bool:
        """Whether the default Bash command ran (it creates MARKER)."""
        return (self.project / MARKER).exists()

    def hook_log(self, mode: str | None = None, *, kind: str = "start") -> list[dict[str, Any]]:
        """The lines hook.py wrote (of one ``kind``), for every mode or one."""
        return [
            entry
            for entry in _json_lines(self.project / LOG_NAME)
            if entry["kind"] == kind and (mode is None or entry["mode"] == mode)
        ]

    def observed(self, event: str) -> list[dict[str, Any]]:
        """The payloads the recorder received for ``event``, in order."""
        return [p for p in _json_lines(self.project / OBSERVED) if p["hook_event_name"] == event]

    def shown(self, call: int) -> list[Message]:
        """The messages model call ``call`` (0-based) was shown."""
        return self.model.shown(call)

    def added_for(self, call: int) -> Message:
        """The last message call ``call`` was shown: what the step before it added."""
        return self.model.shown(call)[-1]

    def failures(self, event: str) -> list[str | None]:
        """The failure kind of each hook run of ``event`` (None: it answered)."""
        return [run.failure for run in self.result.hook_runs if run.event == event]


def run_scenario(
    root: Path,
    hooks: Mapping[str, Sequence[dict[str, Any]]],
    turns: Sequence[dict[str, Any]] = ECHO,
    *,
    prompt: str = PROMPT,
    observe: bool = True,
    options: Mapping[str, Any] | None = None,
    then: Callable[[Agent], Awaitable[object]] | None = None,
) -> Outcome:
    """Run ``prompt`` in a fresh project under ``root`` whose settings hold ``hooks`` (plus a
    recorder on every observed event that ``hooks`` leaves alone); ``options`` go to the
    agent, ``then(agent)`` is awaited after the run, before the session closes."""
    project, home, managed = (root / name for name in ("project", "home", "managed"))
    for folder in (project / ".claude", home, managed):
        folder.mkdir(parents=True)
    configured = {event: list(groups) for event, groups in hooks.items()}
    if observe:
        for event in OBSERVED_EVENTS:
            configured.setdefault(event, [group(recorder())])
    settings_file = project / ".claude" / "settings.json"
    settings_file.write_text(json.dumps({"hooks": configured}, indent=2), encoding="utf-8")
    settings = load_settings(project, home=home, managed_dir=managed)
    assert not settings.warnings, [str(w) for w in settings.warnings]
    registry = HookRegistry()
    settings.register(registry, project_dir=str(project), env_file=env_file_for)
    model = ScriptedModel(list(turns))
    agent = Agent(model, hooks=registry, cwd=project, **(options or {}))

    async def session() -> RunResult:
        async with agent:
            result = await agent.run(prompt)
            if then is not None:
                await then(agent)
            return result

    return Outcome(Path(agent.session.cwd), model, asyncio.run(session()))


# -- reading what the model was shown ---------------------------------------------------------


def unwrap(text: str) -> str | None:
    """The text inside one ``<system-reminder>`` block, or None if ``text`` is not one."""
    if text.startswith(REMINDER_OPEN) and text.endswith(REMINDER_CLOSE):
        return text[len(REMINDER_OPEN) : -len(REMINDER_CLOSE)]
    return None


def reminders(message: Message) -> list[str]:
    """The insides of the message's ``<system-reminder>`` text blocks, in order."""
    texts = [b.text for b in message.content if isinstance(b, TextBlock)]
    return [inside for inside in map(unwrap, texts) if inside is not None]


def texts(message: Message) -> list[str]:
    """Every text block of the message, as sent."""
    return [b.text for b in message.content if isinstance(b, TextBlock)]


def tool_results(message: Message) -> list[ToolResultBlock]:
    return [b for b in message.content if isinstance(b, ToolResultBlock)]


def log_count(outcome: Outcome, index: int = 0) -> int:
    """What the ``COUNT_LOG`` Bash call ``index`` printed."""
    return int(outcome.result.tool_calls[index].output["stdout"])


def _json_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
