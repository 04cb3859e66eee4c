"""A project as ``hookline run`` sees it: its hooks, permission policy, sandbox, redaction and
MCP servers.

``load_project(cwd)`` reads what Claude Code would read in ``cwd`` (managed, ``--settings``,
local, project and user settings files, ``.mcp.json``) plus any Python hooks files, and hands
back one ``Project``. A library user builds the same agent the CLI builds with
``Agent(model, **project.agent_options())``. A settings problem that would drop a guard (a file
that is not JSON, a missing ``--settings`` file, a hook entry for an event hookline runs that
cannot load) raises a ``ConfigError`` naming the file, key and fix, unlike Claude Code, which
skips it; ``lenient=True`` loads what loads and keeps such problems as ``warnings``, as Claude
Code does. Harmless problems (an event hookline does not run yet, a value of the wrong type
that is ignored) are always kept as ``warnings``. A hooks file that cannot load, bad
``redact`` patterns, an ``auditSync`` that is not true or false or a ``deferDeadline`` that is
not a duration always raise.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._agent.loop import Agent
from hookline._agent.messages import Message
from hookline._claude.agent_hook import AGENT_TURNS
from hookline._claude.audit_sync import audit_sync
from hookline._claude.credentials import passthrough
from hookline._claude.defer_deadline import defer_deadline
from hookline._claude.lint import run_stoppers
from hookline._claude.prompt_hook import JudgeFailed
from hookline._claude.session_env import env_file_for
from hookline._claude.settings import Settings, load_settings, refuse_errors, settings_files
from hookline._errors import ConfigError
from hookline._hooks.python_files import load_hooks_file
from hookline._hooks.registry import HookRegistry
from hookline._settings_layers import Layer, SettingsWarning
from hookline._support.credentials import passed_on
from hookline._tools.builtin import Glob, Grep, Read
from hookline._trust import Asker, decide, held_back
from hookline.audit._redact import patterns_from_settings
from hookline.mcp._config import ServerConfig, project_servers
from hookline.models._choice import default_spec, model_from_spec
from hookline.permissions import PermissionPolicy
from hookline.permissions._code_files import code_files
from hookline.permissions._sandbox import SandboxConfig

if TYPE_CHECKING:
    from hookline._agent.model import ModelClient
    from hookline._claude.agent_hook import Investigator, InvestigatorFactory
    from hookline._claude.prompt_hook import Judge, JudgeFactory
    from hookline._events import PermissionMode

StrPath = str | Path
#: The model a ``prompt`` or ``agent`` hook asks, for its ``model`` value (None: the default).
JudgeModels = Callable[[str | None], "ModelClient"]
#: What of the settings read a load keeps: the settings read in, the settings kept out.
Narrow = Callable[[Settings], Settings]


@dataclass(frozen=True, slots=True)
class Project:
    """Everything a run in ``cwd`` is configured with."""

    cwd: str
    hooks: HookRegistry
    settings: Settings
    permissions: PermissionPolicy
    sandbox: SandboxConfig
    redact: tuple[str, ...]
    #: What in the settings was wrong and ignored, every layer's and every reader's.
    warnings: tuple[SettingsWarning, ...]
    #: The MCP servers of ``.mcp.json`` (approved) and of ``mcpServers`` (``hookline.mcp``).
    mcp_servers: tuple[ServerConfig, ...] = ()
    #: The settings files a change to fires ConfigChange, with its source (never applied).
    settings_files: tuple[tuple[str, Path], ...] = ()
    #: hookline's own credentials the settings pass on to Bash and to the project's MCP
    #: servers (``env.passthrough``).
    env: Mapping[str, str] | None = None
    #: ``auditSync`` (under ``hookline``): the audit's write ahead of each tool body is fsync'd.
    audit_sync: bool = False
    #: ``deferDeadline`` (under ``hookline``), in seconds: how long a deferred call may wait for
    #: its answer (the shortest of the layers'); None: as long as it is kept.
    defer_deadline: float | None = None

    def agent_options(self) -> dict[str, Any]:
        """The keyword arguments ``Agent`` takes for this project's configuration."""
        return {
            "hooks": self.hooks,
            "cwd": self.cwd,
            "permissions": self.permissions,
            "sandbox": self.sandbox if self.sandbox.enabled else None,
            "redact": self.redact,
            **({"mcp_servers": self.mcp_servers} if self.mcp_servers else {}),
            "settings_files": self.settings_files,
            **({"env": dict(self.env)} if self.env else {}),
            "audit_sync": self.audit_sync,
            "defer_deadline": self.defer_deadline,
        }


def load_hooks(
    project_dir: StrPath,
    *,
    settings: Iterable[str] = (),
    hook_files: Iterable[StrPath] = (),
    judge_models: JudgeModels | None = None,
    sources: Iterable[str] | None = None,
    env: Mapping[str, str] | None = None,
    trust: bool | Asker | None = None,
    narrow: Narrow | None = None,
) -> tuple[HookRegistry, Settings]:
    """Every hook a run in ``project_dir`` would have: each settings layer (``settings`` are
    ``--settings`` values), then each ``--hooks`` file. Settings problems are kept as
    ``Settings.warnings``; a hooks file that cannot load raises a ConfigError.
    ``judge_models`` makes the model of each ``prompt`` and ``agent`` hook (default:
    ``judge_model``). ``sources``: the user, project and local layers to read (the Agent
    SDK's ``setting_sources``; managed settings and ``settings`` are always read); None: all.
    ``env``: variables command hooks get besides the process's (the Agent SDK's ``env``), after
    the credentials the settings pass on (``env.passthrough``).
    ``trust``: whether the folder's own hooks may run (``hookline._trust.decide``): True or
    False, or what asks a person; None: the remembered answer, else trusted unless the
    settings require trust (a run nobody watches). ``narrow``: what of the settings read is
    kept (``hookline serve`` keeps a host project's own parts); None: all."""
    project = Path(project_dir).resolve()
    found = load_settings(project, extra=tuple(settings), sources=sources)
    if narrow is not None:
        found = narrow(found)
    env = {**_passed_on(found), **(env or {})}
    if isinstance(trust, bool):
        found.trusted = trust
    else:
        found.trusted = decide(found, project, ask=trust)
    registry = HookRegistry()
    models = judge_models or judge_model
    found.register(
        registry,
        project_dir=project,
        env_file=env_file_for,
        judge=judges(models),
        investigator=investigators(models, found),
        env=env,
    )
    for file in hook_files:
        load_hooks_file(file, registry)
    return registry, found


def judge_model(spec: str | None) -> ModelClient:
    """A fresh client for one ``prompt`` hook, never the agent's own (its conversation is not
    the judge's): the handler's ``model`` (a ``--model`` value, or a Claude model name such as
    ``claude-haiku-4-5``), else the model ``hookline run`` uses with no ``--model``. A
    ConfigError when no provider is configured: the offline rule model cannot judge."""
    if spec is None:
        spec, note = default_spec()
        if note:
            fix = 'set OPENAI_API_KEY or ANTHROPIC_API_KEY, or give the hook a "model"'
            raise ConfigError("no model is configured to run prompt hooks or agent hooks", fix=fix)
    elif ":" not in spec and spec.startswith("claude"):
        spec = f"anthropic:{spec}"
    return model_from_spec(spec)


def judges(models: JudgeModels) -> JudgeFactory:
    """What prompt hooks ask: for each handler, a model from ``models`` asked one question."""

    def factory(spec: str | None) -> Judge:
        model = models(spec)

        async def judge(system: str, prompt: str) -> str:
            return (await model.complete([Message.user(prompt)], [], system=system)).text

        return judge

    return factory


def investigators(models: JudgeModels, settings: Settings) -> InvestigatorFactory:
    """What agent hooks ask: for each handler, a model from ``models`` that investigates
    (``investigate``); ``settings`` give the Read deny rules it keeps to."""

    def factory(spec: str | None) -> Investigator:
        model = models(spec)

        async def investigator(system: str, prompt: str, project_dir: str) -> str:
            return await investigate(model, system, prompt, project_dir=project_dir, rules=settings)

        return investigator

    return factory


async def investigate(
    model: ModelClient, system: str, prompt: str, *, project_dir: str, rules: Settings
) -> str:
    """The final answer of a hookline ``Agent`` on ``model`` asked ``prompt`` in ``project_dir``
    with only Read, Grep and Glob, which keep to the project folder and to the deny rules of
    ``rules``, and for at most ``AGENT_TURNS`` model calls. No hooks (it must not call the hooks
    it serves), no instruction files, no audit; its transcript goes to a temporary folder.
    A JudgeFailed when it stops without an answer (out of calls, the model failed)."""
    policy, _ = PermissionPolicy.from_settings(rules, cwd=project_dir)  # its notes: the run's
    with tempfile.TemporaryDirectory(prefix="hookline-agent-hook-") as state:
        agent = Agent(
            model,
            tools=[Read(), Grep(), Glob()],
            cwd=project_dir,
            state_dir=state,
            system_prompt=system,
            max_turns=AGENT_TURNS,
            permissions=PermissionPolicy(deny=policy.deny),
            instructions=False,
            audit=False,
        )
        try:
            result = await agent.run(prompt)
        finally:  # not close(): it would close what the session it serves still uses
            agent.session.transcript.close()
    if result.stop_reason != "end_turn":
        said = result.stop_detail or result.stop_reason
        raise JudgeFailed(f"the agent hook's model stopped without an answer: {said}")
    return result.final_text


def load_project(
    cwd: StrPath = ".",
    *,
    settings: Iterable[str] = (),
    hook_files: Iterable[StrPath] = (),
    mode: PermissionMode | None = None,
    lenient: bool = False,
    cli_rules: Mapping[str, Sequence[str]] | None = None,
    judge_models: JudgeModels | None = None,
    sources: Iterable[str] | None = None,
    env: Mapping[str, str] | None = None,
    trust: bool | Asker | None = None,
    narrow: Narrow | None = None,
) -> Project:
    """The project in ``cwd`` as ``hookline run`` loads it (``settings``: ``--settings`` values,
    ``hook_files``: ``--hooks`` files, ``mode``: ``--permission-mode``, ``lenient``:
    ``--lenient-settings``, ``cli_rules``: ``{"allow": [...], "deny": [...]}`` from
    ``--allowedTools`` / ``--disallowedTools``, a ``cli`` layer of permission rules,
    ``judge_models``: the model of each ``prompt`` hook, default ``judge_model``,
    ``sources``, ``env``, ``trust`` and ``narrow``: as ``load_hooks`` takes them).
    A ConfigError for the first settings error, unless ``lenient``: a file or entry that cannot
    be read, a permission rule that cannot be, a misspelt key, a hook ``hooks validate`` calls
    an error (a command that is not executable). In a folder that is not trusted, its own
    hooks and MCP servers are left out, with a warning that says so."""
    where = str(Path(cwd).resolve())
    registry, found = load_hooks(
        where,
        settings=settings,
        hook_files=hook_files,
        judge_models=judge_models,
        sources=sources,
        env=env,
        trust=trust,
        narrow=narrow,
    )
    found = _with_cli_rules(found, cli_rules or {})
    policy, policy_notes = PermissionPolicy.from_settings(found, mode=mode, cwd=where)
    policy = replace(policy, code_files=code_files(registry, project_dir=where))
    sandbox, sandbox_notes = SandboxConfig.from_settings(found, project_dir=where)
    servers, server_notes = project_servers(found, where)
    trust_notes = [] if found.trusted else _untrusted(found, where)
    if not found.trusted:
        servers = _own_servers(servers, found)
    stoppers = run_stoppers(registry)
    warnings = (*found.warnings, *policy_notes, *sandbox_notes, *server_notes, *stoppers)
    warnings = (*warnings, *trust_notes)
    if not lenient:
        refuse_errors(warnings)
    redact = patterns_from_settings(found.layers)
    watched = tuple(settings_files(where))
    passed = _passed_on(found)
    servers = tuple(replace(server, passthrough=passed) for server in servers)
    return Project(
        where,
        registry,
        found,
        policy,
        sandbox,
        redact,
        warnings,
        servers,
        watched,
        passed,
        audit_sync=audit_sync(found.layers),
        defer_deadline=defer_deadline(found.layers),
    )


def _passed_on(found: Settings) -> dict[str, str]:
    """The credentials the settings pass on (``env.passthrough``), as the environment sets them;
    its warnings join the settings' (once)."""
    names, notes = passthrough(found.layers)
    found.warnings.extend(note for note in notes if note not in found.warnings)
    return passed_on(names, os.environ)


#: The flag each kind of command-line rule comes from (the name its layer reports).
_RULE_FLAGS: Final = {"allow": "--allowedTools", "deny": "--disallowedTools"}


def _with_cli_rules(found: Settings, rules: Mapping[str, Sequence[str]]) -> Settings:
    """``found`` and a ``cli`` layer for each kind of rule given on the command line: their
    lists join the files' lists as any layer's do. Permission rules only, so no hook is lost
    by adding them after the hooks were registered."""
    extra = tuple(
        Layer("cli", _RULE_FLAGS[kind], {"permissions": {kind: list(listed)}})
        for kind, listed in rules.items()
        if listed
    )
    return replace(found, layers=(*found.layers, *extra)) if extra else found


def _untrusted(found: Settings, folder: str) -> list[SettingsWarning]:
    """The one line that says what an untrusted folder's run leaves out (none if nothing)."""
    what = held_back(found, folder)
    message = f"this folder is not trusted: its own {what} do not run"
    return [SettingsWarning(folder, message, fix=f"hookline trust add {folder}")] if what else []


def _own_servers(servers: tuple[ServerConfig, ...], found: Settings) -> tuple[ServerConfig, ...]:
    """The servers the person's own layers declare (not the folder's, nor its ``.mcp.json``)."""
    own = {layer.path for layer in found.own}
    return tuple(server for server in servers if server.source in own)
