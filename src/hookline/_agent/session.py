"""A session: its id, where it works, its conversation and its transcript."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookline._agent.messages import Message
from hookline._agent.options import AgentOptions
from hookline._agent.transcript import Transcript, cut_after, made_dir
from hookline._errors import ConfigError
from hookline._events import Scope
from hookline._support.keepers import Leftovers
from hookline._tools.base import ToolContext, ToolResult, Workspace
from hookline._tools.shell import Shell, session_env_dir

if TYPE_CHECKING:
    from hookline.permissions import PermissionPolicy
    from hookline.permissions._sandbox.run import Sandbox
    from hookline.permissions._session import SessionGrant

#: The project's state folder (transcripts, and later the session store), under its cwd.
STATE_DIR = Path(".hookline") / "state"


@dataclass
class Session:
    """The state of one conversation. Every event it fires carries its ``scope``."""

    id: str
    cwd: Path
    state_dir: Path
    workspace: Workspace
    transcript: Transcript
    scope: Scope
    messages: list[Message] = field(default_factory=list)
    prompts: int = 0
    started: bool = False
    #: What SessionStart hooks said for the model: it opens the next user message.
    opening_context: list[str] = field(default_factory=list)
    #: The OS sandbox Bash commands run in, writable in the workspace roots; None: none.
    sandbox: Sandbox | None = None
    #: Variables added to the environment of Bash commands (the options' ``env``).
    env: dict[str, str] = field(default_factory=dict)
    #: What answers allowed for the rest of the session (``hookline.permissions._session``):
    #: saved with a pause, applied again on resume.
    grants: list[SessionGrant] = field(default_factory=list)
    #: Where Bash's shell is between calls; it starts in ``cwd``, the project folder.
    shell: Shell = field(init=False)
    #: What Bash commands left running (``server &``): it ends with the session.
    leftovers: Leftovers = field(default_factory=Leftovers)

    def __post_init__(self) -> None:
        self.shell = Shell.of(self.cwd, self.workspace.roots)

    @classmethod
    def create(
        cls, options: AgentOptions, *, session_id: str | None = None, resumed: bool = False
    ) -> Session:
        """A new session (``session_id``, else a fresh one); ``resumed``: its transcript goes
        on from the file that session already has."""
        cwd = _existing_dir(options.cwd)
        sid = session_id or str(uuid.uuid4())
        state = (Path(options.state_dir) if options.state_dir else cwd / STATE_DIR).resolve()
        path = transcript_path(state, sid)  # its folder is made on the first write
        mode = options.permission_mode or (
            options.permissions.mode if options.permissions else "default"
        )
        workspace = Workspace.of(*(options.roots or (cwd,)))
        return cls(
            id=sid,
            cwd=cwd,
            state_dir=state,
            workspace=workspace,
            transcript=Transcript(path, session_id=sid, cwd=str(cwd), resumed=resumed),
            scope=Scope(
                sid,
                str(path),
                str(cwd),
                mode,
                user=options.user,
                tenant=options.tenant,
                project_dir=str(cwd),
            ),
            sandbox=_sandbox(options, workspace),
            env=dict(options.env),
        )

    def snapshot(self) -> dict[str, Any]:
        """What a resume needs to rebuild this session (the conversation is saved apart)."""
        scope = self.scope
        return {
            "id": self.id,
            "cwd": str(self.cwd),
            "shell_cwd": str(self.shell.cwd),
            "state_dir": str(self.state_dir),
            "roots": [str(r) for r in self.workspace.roots],
            "permission_mode": scope.permission_mode,
            "prompt_id": scope.prompt_id,
            "user": scope.user,
            "tenant": scope.tenant,
            "prompts": self.prompts,
            "grants": [grant.to_dict() for grant in self.grants],
            "transcript_size": self.transcript.size(),
        }

    @classmethod
    def restore(
        cls, saved: dict[str, Any], messages: list[Message], options: AgentOptions | None = None
    ) -> Session:
        """The session a snapshot describes, appending to the same transcript; ``options``
        give what is not saved with it (the sandbox)."""
        sid, cwd = saved["id"], _existing_dir(saved["cwd"])
        path = transcript_path(saved["state_dir"], sid)
        made_dir(path.parent)
        if "transcript_size" in saved:  # what was written after that save is not gone on from
            cut_after(path, saved["transcript_size"])
        scope = Scope(
            sid,
            str(path),
            str(cwd),
            saved["permission_mode"],
            saved["prompt_id"],
            saved["user"],
            saved["tenant"],
            project_dir=str(cwd),
        )
        workspace = Workspace.of(*saved["roots"])
        session = cls(
            id=sid,
            cwd=cwd,
            state_dir=Path(saved["state_dir"]),
            workspace=workspace,
            transcript=Transcript(path, session_id=sid, cwd=str(cwd), resumed=True),
            scope=scope,
            messages=list(messages),
            prompts=saved["prompts"],
            sandbox=_sandbox(options, workspace) if options else None,
            env=dict(options.env) if options else {},
        )
        session.shell.follow(saved.get("shell_cwd"))  # the project folder if it is gone
        session.follow_shell()
        if saved.get("grants"):
            from hookline.permissions._session import SessionGrant

            session.grants = [SessionGrant.from_dict(grant) for grant in saved["grants"]]
        return session

    def granted(self, grant: SessionGrant, policy: PermissionPolicy | None) -> None:
        """Keep ``grant`` (an allow for the rest of the session); when it set the mode of
        ``policy``, hooks are told that mode from now on."""
        self.grants.append(grant)
        if grant.mode is not None and policy is not None and policy.mode == grant.mode:
            self.scope = replace(self.scope, permission_mode=grant.mode)

    @property
    def tool_context(self) -> ToolContext:
        """What tools may know of this session; its ``cwd`` is where the shell is now."""
        base = self._tool_context
        return base if base.cwd == self.shell.cwd else replace(base, cwd=self.shell.cwd)

    @cached_property
    def _tool_context(self) -> ToolContext:
        return ToolContext(
            cwd=self.cwd,
            workspace=self.workspace,
            session_id=self.id,
            env_dir=session_env_dir(self.id, self.scope.transcript_path),
            sandbox=self.sandbox,
            shell=self.shell,
            env=self.env,
            leftovers=self.leftovers,
        )

    def follow_shell(self) -> str | None:
        """Events from now on carry the shell's folder as their ``cwd``, as in Claude Code
        (command hooks still run in the project folder: ``HookEvent.project_dir``). Returns
        the folder the shell left (for CwdChanged), or None when it did not move."""
        where, left = str(self.shell.cwd), self.scope.cwd
        if left == where:
            return None
        self.scope = replace(self.scope, cwd=where)
        return left

    def new_prompt(self) -> None:
        """A prompt arrives: later events carry a fresh ``prompt_id``."""
        self.prompts += 1
        self.scope = replace(self.scope, prompt_id=str(uuid.uuid4()))

    def add(
        self, message: Message, *, model: str | None = None, results: list[ToolResult] | None = None
    ) -> None:
        """Append to the conversation and, at once, to the transcript file."""
        self.messages.append(message)
        self.transcript.append(message, model=model, results=results)


def transcript_path(state_dir: str | Path, session_id: str) -> Path:
    """Where a session's transcript is, in a state folder (``<state>/transcripts/<id>.jsonl``)."""
    return Path(state_dir) / "transcripts" / f"{session_id}.jsonl"


def _sandbox(options: AgentOptions, workspace: Workspace) -> Sandbox | None:
    config = options.sandbox
    if not (config and config.enabled):
        return None
    from hookline.permissions._sandbox.run import Sandbox  # only where there is one to run

    code = options.permissions.code_files if options.permissions is not None else ()
    return Sandbox(config, roots=workspace.roots, code_files=code)  # code files read-only too


def _existing_dir(cwd: str | Path | None) -> Path:
    path = Path(cwd) if cwd is not None else Path.cwd()
    if not path.is_dir():
        raise ConfigError(
            f"working directory {path} does not exist", key="cwd", fix="pass an existing folder"
        )
    return Path(os.path.realpath(path))
