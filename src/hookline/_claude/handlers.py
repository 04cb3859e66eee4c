"""One handler object from a settings file, turned into a runner plus its registration options.

Claude Code's ``command``, ``http``, ``mcp_tool``, ``prompt`` and ``agent`` handlers and
hookline's own in-process ``python`` handler are built here (a ``python`` callable is
``f(event)`` or an Agent SDK callback, told apart by its signature). Anything that cannot run
(a missing field, a bad timeout, an unknown type, a callable that does not import, a prompt or
agent hook with no model to ask) raises a ConfigError naming the file and the key path; the caller
turns it into a warning or, for ``"onFailure": "block"``, into an ``unloadable`` hook that
denies. Remarks that do not stop a handler (``if`` on an event without tools) come back as
``Options.notes``. ``async`` and ``asyncRewake`` command handlers are background observers
(``CommandHook``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar, cast

from hookline._claude.agent_hook import AGENT_TIMEOUT, AgentHook, InvestigatorFactory
from hookline._claude.command import CommandHook
from hookline._claude.http import HttpHook
from hookline._claude.mcp_tool import McpToolHook
from hookline._claude.prompt_hook import PROMPT_TIMEOUT, JudgeFactory, PromptHook
from hookline._errors import ConfigError, HookFailure
from hookline._events import EVENTS, ToolEvent, event_class
from hookline._hooks.python_files import import_target
from hookline._hooks.runners import HookRunner, PythonHook, SdkCallbackHook, call_shape
from hookline._hooks.spec import HANDLER_TIMEOUT, KINDS, FailurePolicy, HookKind
from hookline._matchers import Matcher
from hookline._settings_layers import is_strings
from hookline._support.url_allow import url_allowed
from hookline.permissions._rules import if_

if TYPE_CHECKING:
    from hookline._events import HookEvent
    from hookline.permissions._sandbox.run import Sandbox
_FIX: Final = 'write {"type": "command", "command": "..."}'
#: Handler types hookline runs (Claude Code's, and ``python``).
KNOWN_TYPES: Final = ("command", "http", "mcp_tool", "python", "prompt", "agent")
#: Seconds a handler of these types gets unless it says otherwise (at most its event's default).
MODEL_TIMEOUTS: Final = {"prompt": PROMPT_TIMEOUT, "agent": AGENT_TIMEOUT}


@dataclass(frozen=True, slots=True)
class Policy:
    """What the merged settings say about every HTTP hook (None: no limit)."""

    allowed_urls: tuple[str, ...] | None = None  # allowedHttpHookUrls
    allowed_env_vars: tuple[str, ...] | None = None  # httpHookAllowedEnvVars
    sandbox: Sandbox | None = None  # what a command handler with "sandbox": true runs in
    judge: JudgeFactory | None = None  # what a prompt handler asks (None: prompt hooks cannot load)
    investigator: InvestigatorFactory | None = None  # what an agent handler asks (None: likewise)
    #: Variables every command handler gets besides the process's (the Agent SDK's ``env``).
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Options:
    """What ``HookRegistry.add`` needs besides the runner and the group's matcher."""

    kind: HookKind = "gate"
    timeout: float = HANDLER_TIMEOUT
    failure: FailurePolicy | None = None  # None: the registry's default
    name: str | None = None  # None: the runner describes itself
    condition: Matcher | None = None  # the ``if`` rule, to join to the group matcher with ``&``
    notes: tuple[ConfigError, ...] = ()


def build(
    handler: object,
    *,
    event: str,
    file: str,
    key: str,
    project_dir: str,
    policy: Policy,
    env_file: Callable[[HookEvent], str | None] | None = None,
) -> tuple[HookRunner, Options]:
    """The runner and options for one settings handler; a ConfigError if it cannot run."""
    if not isinstance(handler, dict):
        what = f"a handler must be an object, not {type(handler).__name__}"
        raise ConfigError(what, file=file, key=key, fix=_FIX)
    h = _Handler(handler, file, key, event, project_dir, policy, env_file)
    make = _maker(handler.get("type"), h)
    timeout, failure, condition = _timeout(h), _failure(h), _condition(h)
    try:
        runner, kind, name = make(h)
    except ConfigError as exc:  # a runner's own check: it knows the field, not the file
        raise exc if exc.file else h.error(exc.message, exc.key, exc.fix) from None
    return runner, Options(kind, timeout, failure, name, condition, tuple(h.notes))


def unloadable(
    handler: object, problem: ConfigError, *, key: str
) -> tuple[HookRunner, Options] | None:
    """For a handler that cannot load but declared ``"onFailure": "block"``, a stand-in that
    fails closed on every call; None for any other handler (its problem is only a warning)."""
    if not isinstance(handler, dict) or handler.get("onFailure") != "block":
        return None
    runner = Unloadable(problem, key=key, handler=str(handler.get("type") or "settings"))
    return runner, Options(failure="closed")


class NotLoaded(HookFailure):
    """A handler that could not be loaded, and fails closed, was called."""

    kind = "not_loaded"
    failed = "could not be loaded"


class Unloadable(HookRunner):
    """A handler that could not be loaded: every call is a HookFailure saying why."""

    inline = True
    in_process = False

    def __init__(self, problem: ConfigError, *, key: str, handler: str) -> None:
        self.problem = problem
        self.where = key
        self.handler = handler

    async def run(self, event: HookEvent) -> NoReturn:
        raise NotLoaded(str(self.problem))

    def describe(self) -> str:
        return f"unloadable {self.handler} hook {self.where}"


@dataclass(slots=True)
class _Handler:
    """The handler being built, with where it is, for reading fields and wording problems."""

    data: dict[str, Any]
    file: str
    key: str
    event: str
    project_dir: str
    policy: Policy
    env_file: Callable[[HookEvent], str | None] | None
    notes: list[ConfigError] = field(default_factory=list)

    def error(self, message: str, at: str | None = None, fix: str | None = None) -> ConfigError:
        return ConfigError(
            message, file=self.file, key=f"{self.key}.{at}" if at else self.key, fix=fix
        )

    def note(self, message: str, at: str, fix: str) -> None:
        self.notes.append(self.error(message, at, fix))

    def text(self, name: str, *, fix: str) -> str:
        value = self.data.get(name)
        if not isinstance(value, str) or not value.strip():
            what = "missing" if value is None else "not a non-empty string"
            raise self.error(f"{name} is {what}", name, fix=fix)
        return value

    def strings(self, name: str) -> list[str] | None:
        value = self.data.get(name)
        if value is None or is_strings(value):
            return value
        raise self.error(f"{name} must be a list of strings", name, fix=f'write "{name}": [...]')

    def flag(self, name: str) -> bool:
        value = self.data.get(name, False)
        if not isinstance(value, bool):
            raise self.error(f"{name} must be true or false", name, fix=f'write "{name}": true')
        return value


#: What a handler type makes: its runner, kind, and name (None: the runner describes itself).
Made = tuple[HookRunner, HookKind, str | None]
Maker = Callable[[_Handler], Made]


def _maker(declared: object, h: _Handler) -> Maker:
    if declared in _MAKERS:
        return _MAKERS[declared]
    fix = f"use one of: {', '.join(KNOWN_TYPES)}"
    raise h.error(
        "type is missing" if declared is None else f"unknown type {declared!r}", "type", fix
    )


def _command(h: _Handler) -> Made:
    command = h.text("command", fix='write "command": "./scripts/check.sh"')
    args = h.strings("args")
    if args is None and h.data.get("shell", "bash") != "bash":
        raise h.error(f"shell {h.data['shell']!r} is not supported yet", "shell", 'remove "shell"')
    rewake, background = h.flag("asyncRewake"), h.flag("async")
    sandbox = h.policy.sandbox if (wanted := h.flag("sandbox")) else None
    if wanted and sandbox is None:
        raise h.error("no sandbox to run it in", "sandbox", "pass Policy(sandbox=Sandbox(...))")
    runner = CommandHook(
        command,
        args=args,
        project_dir=h.project_dir,
        env=h.policy.env,
        env_file=h.env_file,
        sandbox=sandbox,
        background=background,
        rewake=rewake,
    )
    return runner, "observer" if runner.background else "gate", None


def _http(h: _Handler) -> Made:
    url = h.text("url", fix='write "url": "http://localhost:8080/hooks"')
    headers = h.data.get("headers", {})
    if not isinstance(headers, dict) or not is_strings(list(headers.values())):
        raise h.error("headers must be an object of strings", "headers", '"X-Team": "ops"')
    wanted, limit = h.strings("allowedEnvVars") or [], h.policy.allowed_env_vars
    allowed = [name for name in wanted if limit is None or name in limit]
    if dropped := sorted(set(wanted) - set(allowed)):
        h.note(f"{dropped} not in httpHookAllowedEnvVars", "allowedEnvVars", "add them there")
    if not url_allowed(url, urls := h.policy.allowed_urls):
        h.note("not in allowedHttpHookUrls: every call fails unsent", "url", "add a pattern there")
    return HttpHook(url, headers=headers, allowed_env_vars=allowed, allowed_urls=urls), "gate", None


def _python(h: _Handler) -> Made:
    target = h.text("callable", fix='write "callable": "package.module:function"')
    kind = h.data.get("kind", "gate")
    if kind not in KINDS:
        raise h.error(f"unknown kind {kind!r}", "kind", "use gate, transformer or observer")
    try:
        fn, origin = import_target(target, h.project_dir)
    except ConfigError as exc:
        raise h.error(exc.message, "callable", exc.fix) from None
    runner = _python_runner(fn, h, target)
    runner.key = ("python", origin)
    return runner, cast("HookKind", kind), target


def _python_runner(fn: Callable[..., Any], h: _Handler, target: str) -> HookRunner:
    """``f(event)`` or an Agent SDK callback ``f(input_data, tool_use_id, context)``, told
    apart by its signature; any other signature is a ConfigError now, not a failure per call.
    A declared timeout makes a sync function threaded, so that the timeout applies."""
    threaded = "timeout" in h.data
    shape = call_shape(fn)
    if shape == "sdk":
        return SdkCallbackHook(fn, threaded=threaded)
    if shape == "event":
        return PythonHook(fn, threaded=threaded)
    raise h.error(f"{target} {SIGNATURE_PROBLEM}", "callable", SIGNATURE_FIX)


#: Why a ``python`` handler's function cannot be called, and the fix.
SIGNATURE_PROBLEM: Final = (
    "takes neither one positional argument, f(event), nor three, as an Agent SDK callback "
    "f(input_data, tool_use_id, context)"
)
SIGNATURE_FIX: Final = (
    "def check(event) returning a Decision or None, or "
    "async def check(input_data, tool_use_id, context) returning a dict"
)


def _mcp_tool(h: _Handler) -> Made:
    server = h.text("server", fix='write "server": "orders" (a server of .mcp.json)')
    tool = h.text("tool", fix='write "tool": "check_refund"')
    arguments = h.data.get("input", {})
    if not isinstance(arguments, dict):
        raise h.error("input must be an object", "input", '"input": {"id": "${tool_input.id}"}')
    return McpToolHook(server, tool, arguments), "gate", None


def _prompt(h: _Handler) -> Made:
    prompt, model, judge = _asking(h, h.policy.judge, "judge")
    on_block = h.flag("continueOnBlock")
    return PromptHook(prompt, judge, model=model, continue_on_block=on_block), "gate", None


def _agent(h: _Handler) -> Made:
    prompt, model, investigator = _asking(h, h.policy.investigator, "investigator")
    if h.data.get("continueOnBlock") is False:
        h.note("agent hooks always go on after a block", "continueOnBlock", "remove it")
    return AgentHook(prompt, investigator, model=model), "gate", None


Asker = TypeVar("Asker")


def _asking(
    h: _Handler, factory: Callable[[str | None], Asker] | None, policy_field: str
) -> tuple[str, str | None, Asker]:
    """The prompt, ``model`` and model to ask of a ``prompt`` or ``agent`` handler."""
    prompt = h.text("prompt", fix='write "prompt": "Is this safe? $ARGUMENTS"')
    if event_class(h.event).facts.judged is None:
        takes = ", ".join(name for name, cls in EVENTS.items() if cls.facts.judged is not None)
        kind = h.data["type"]
        raise h.error(f"{h.event} does not take {kind} hooks", "type", f"use them on {takes}")
    model = h.data.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise h.error("model must be a model name", "model", '"model": "claude-haiku-4-5"')
    if factory is None:
        raise h.error("no model to ask", "type", f"pass Policy({policy_field}=...)")
    try:
        return prompt, model, factory(model)
    except ConfigError as exc:
        raise h.error(exc.message, "model", exc.fix) from None


_MAKERS: Final[dict[object, Maker]] = {
    "command": _command,
    "http": _http,
    "mcp_tool": _mcp_tool,
    "prompt": _prompt,
    "agent": _agent,
    "python": _python,
}


def _timeout(h: _Handler) -> float:
    value = h.data.get("timeout")
    if value is None:
        default = event_class(h.event).facts.timeout
        own = MODEL_TIMEOUTS.get(str(h.data.get("type")))
        if own is not None:
            return own if default is None else min(default, own)
        return HANDLER_TIMEOUT if default is None else default
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        why = f"timeout must be a positive number of seconds, not {value!r}"
        raise h.error(why, "timeout", 'write "timeout": 30 for thirty seconds')
    return float(value)


def _failure(h: _Handler) -> FailurePolicy | None:
    value = h.data.get("onFailure", "continue")
    if value not in ("block", "continue"):
        h.note(f"unknown onFailure {value!r}: ignored", "onFailure", 'use "block" or "continue"')
    return "closed" if value == "block" else None


def _condition(h: _Handler) -> Matcher | None:
    if "if" not in h.data:
        return None
    rule = h.data["if"]
    if not isinstance(rule, str):
        raise h.error("if must be one permission rule", "if", 'write "if": "Bash(git *)"')
    if not issubclass(event_class(h.event), ToolEvent):  # the rule then never matches
        h.note(f"'if' needs a tool event: on {h.event} it never runs", "if", 'remove "if"')
    return if_(rule, file=h.file, key=f"{h.key}.if")
