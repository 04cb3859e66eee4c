"""A live canary through Claude Code's real hook path: one forbidden call, and who refused it.

``run`` starts a scripted model on 127.0.0.1 (``hookline.models._serve.ScriptServer``) whose
only tool call is a ``Read`` of a file that does not exist under the user's
``~/.hookline/keys`` (hookline's per-user keys: the permission layer refuses any read there,
whatever the settings' rules, mode or hooks say), and runs ``claude -p`` against it in a
temporary project, with a temporary HOME. The run sees the user's Claude Code settings (copied
into that HOME) and the project's (copied into the temporary project), and the machine's
managed ones, so it runs the hooks the user's Claude Code runs, and writes nothing into the
user's home or project.

The call is harmless if it ever runs: a Read never writes, and the file does not exist (its name
is random, and checked before the run), so nothing is read. What happened to it is read from
Claude Code's own output (``--output-format stream-json``): the tool result Claude Code gave the
model for that call, and whether the call is among the run's ``permission_denials``.

- ``refused``: denied by a hook whose reason is hookline's own for this call (what the server
  answers when Claude Code's PreToolUse hook reaches it);
- ``blocked``: a hook failed and ``"onFailure": "block"`` refused the call, or the prompt
  before it (the server could not be reached or failed): fail-closed held, but no server
  judged it;
- ``refused-otherwise``: refused, but not with hookline's reason (Claude Code's own rules, an
  ask under break-glass, another hook);
- ``ran``: nobody refused it (Claude Code answered that the file does not exist);
- ``no-result``: Claude Code never reported the call (it failed, or did not run the script).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final, Literal

from hookline._claude.settings import claude_code_file
from hookline.models._scripted import Script, ScriptTurn
from hookline.models._serve import ScriptServer
from hookline.permissions._visibility import private_reason

Outcome = Literal["refused", "blocked", "refused-otherwise", "ran", "no-result"]
CALL_ID: Final = "toolu_hookline_doctor_canary"
#: Where ``claude_agent_sdk``'s wheel keeps the Claude Code CLI it bundles.
BUNDLED: Final = ("claude_agent_sdk", "_bundled", "claude")
#: What Claude Code prefixes a refusing hook's reason with, and what an ``onFailure`` block says.
_DENIED: Final = "PreToolUse:Read hook error: "
_FAIL_CLOSED: Final = 'blocking because onFailure is "block"'
#: Seconds the whole run may take: Claude Code waits up to 30 for each HTTP hook.
TIMEOUT: Final = 180
_PROMPT: Final = "hookline doctor canary: read the file the script names."
#: What the model is asked through a host whose canary is a shell command (Codex, Gemini CLI).
COMMAND_PROMPT: Final = "hookline doctor canary: run the command the script names."
#: The prefix of the temporary folder a canary runs in.
_TEMPORARY: Final = "hookline-doctor-"
#: How a host's CLI is run for a canary: ``launch(model URL, temporary folder)``.
Launch = Callable[[str, Path], "subprocess.CompletedProcess[str]"]
#: What the scripted model answers once the call is done with, through every host.
FINAL: Final = "hookline doctor canary done"
#: What hookline's reason for refusing a read of its keys says, in every mode and host.
PRIVATE: Final = "which no tool reads"
_QUIET: Final = {
    "ANTHROPIC_API_KEY": "sk-hookline-doctor",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


@dataclass(frozen=True)
class Canary:
    """What became of the canary call."""

    outcome: Outcome
    #: The file the call would have read.
    target: str
    #: What Claude Code told the model about the call (its tool result), or what went wrong.
    said: str

    @property
    def refused(self) -> bool:
        return self.outcome == "refused"

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def find_cli(given: str | None = None) -> str | None:
    """The Claude Code CLI: ``given``, ``$CLAUDE_CLI``, ``claude`` on PATH, or the one bundled
    in ``claude-agent-sdk``; None when there is none."""
    return first_file(given, os.environ.get("CLAUDE_CLI"), shutil.which("claude"), _bundled())


def first_file(*candidates: str | None) -> str | None:
    """The first of ``candidates`` that is a file (a host's CLI); None when none is."""
    return next((c for c in candidates if c and Path(c).is_file()), None)


def _bundled() -> str | None:
    spec = importlib.util.find_spec(BUNDLED[0])
    if spec is None or spec.origin is None:
        return None
    return str(Path(spec.origin).parent.joinpath(*BUNDLED[1:]))


def target(home: Path) -> Path:
    """A file under ``home``'s hookline keys that does not exist."""
    while True:
        path = home / ".hookline" / "keys" / f"hookline-doctor-canary-{uuid.uuid4().hex}"
        if not os.path.lexists(path):
            return path


def expected_reason(path: Path, home: Path) -> str:
    """hookline's reason for refusing a Read of ``path``: what the server answers with."""
    found = private_reason(
        "Read", {"file_path": str(path)}, cwd=str(home), roots=(), home=str(home)
    )
    if found is None:  # the keys folder is private wherever it is: never here
        raise AssertionError(f"{path} is not private to hookline")
    return found


def run(
    cli: str,
    project: Path,
    home: Path,
    *,
    timeout: float = TIMEOUT,
    carried: Mapping[str, str] | None = None,
) -> Canary:
    """The canary through ``cli``, seeing the Claude Code settings of ``project`` and
    ``home`` (the user's), in a temporary project and HOME; ``carried``: variables of this
    environment its hooks read (the token they send)."""
    path = target(home)
    call = {"id": CALL_ID, "name": "Read", "input": {"file_path": str(path)}}
    with tempfile.TemporaryDirectory(prefix=_TEMPORARY) as tmp, ScriptServer(one_call(call)) as m:
        fresh_home, fresh_project = Path(tmp, "home"), Path(tmp, "project")
        _copy_settings(home, project, fresh_home, fresh_project)
        try:
            done = _claude(cli, m.url, fresh_project, fresh_home, timeout, carried or {})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return unrunnable(cli, path, exc)
    if os.path.lexists(path):  # made meanwhile by someone else: nothing to judge by
        return Canary("no-result", str(path), f"{path} appeared during the run")
    said, denied, result = _reaction(done.stdout.splitlines())
    if said is None and result is not None and _FAIL_CLOSED in result:  # the prompt's own hook
        return Canary("blocked", str(path), result)
    if said is None:
        return unfinished(path, done, result)
    return Canary(judge(said, denied, expected_reason(path, home)), str(path), said)


def cat(path: Path) -> str:
    """The shell command of a host's canary: ``cat`` of ``path``."""
    return f"cat {shlex.quote(str(path))}"


def one_call(call: dict[str, Any]) -> Script:
    """The canary's script: one turn asking for ``call``, then ``FINAL``."""
    return Script(turns=[ScriptTurn(tool_calls=[call])], final_text=FINAL)


def through(
    cli: str, path: Path, call: dict[str, Any], launch: Launch
) -> tuple[subprocess.CompletedProcess[str], list[Any]] | Canary:
    """``launch(model, folder)``: a host's CLI run in a temporary ``folder`` against a scripted
    model at the URL ``model`` whose one call is ``call``. What the run did and the requests
    the model got, or the ``no-result`` when ``cli`` could not be run."""
    with (
        tempfile.TemporaryDirectory(prefix=_TEMPORARY) as tmp,
        ScriptServer(one_call(call), keep=True) as model,
    ):
        try:
            done = launch(model.url, Path(tmp))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return unrunnable(cli, path, exc)
        return done, list(model.requests or [])


def unrunnable(cli: str, path: Path, exc: Exception) -> Canary:
    return Canary("no-result", str(path), f"{cli} could not be run: {exc}")


def unfinished(
    path: Path, done: subprocess.CompletedProcess[str], said: str | None = None
) -> Canary:
    """A run that never told its model about the call: its exit code and last words (``said``,
    else the end of its output)."""
    tail = said or (done.stderr or done.stdout).strip()[-300:]
    return Canary("no-result", str(path), f"exit {done.returncode}: {tail or 'no output'}")


def host_env(home: Path, carried: Mapping[str, str], **more: str) -> dict[str, str]:
    """The environment a canary's host runs in: this PATH, ``home`` as its HOME, the
    variables it ``carried`` (the token its hooks send) and ``more``; nothing else of ours."""
    return {**carried, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), **more}


def _claude(
    cli: str, model: str, project: Path, home: Path, timeout: float, carried: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """``claude -p`` in ``project`` with ``home``, its model at ``model``, offline."""
    env = host_env(home, carried) | _QUIET | {"ANTHROPIC_BASE_URL": model}
    argv = [cli, "-p", _PROMPT, "--output-format", "stream-json", "--verbose"]
    return subprocess.run(
        [*argv, "--allowedTools", "Read"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def judge(said: str, denied: bool, reason: str) -> Outcome:
    """The outcome, from Claude Code's tool result for the call (``said``), whether the call is
    among its permission denials, and hookline's own ``reason`` for refusing it."""
    if not denied:
        return "ran"
    if said.startswith(_DENIED) and reason in said:
        return "refused"
    if _FAIL_CLOSED in said:
        return "blocked"
    return "refused-otherwise"


def _reaction(lines: Iterable[str]) -> tuple[str | None, bool, str | None]:
    """Claude Code's tool result for the canary call (None: none), whether the run's result
    lists the call among its permission denials, and the run's result text."""
    said, denied, result = None, False, None
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") == "user":
            said = _tool_result(event) or said
        elif event.get("type") == "result":
            denials = event.get("permission_denials") or []
            denied = any(isinstance(d, dict) and d.get("tool_use_id") == CALL_ID for d in denials)
            result = str(event.get("result") or "") or None
    return said, denied, result


def _tool_result(event: dict[str, Any]) -> str | None:
    content = (event.get("message") or {}).get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("tool_use_id") == CALL_ID:
            text = block.get("content")
            if isinstance(text, list):
                text = "".join(str(part.get("text", "")) for part in text if isinstance(part, dict))
            return str(text)
    return None


def _copy_settings(home: Path, project: Path, fresh_home: Path, fresh_project: Path) -> None:
    """The user's and the project's Claude Code settings files, copied into the fresh HOME and
    project (the managed ones Claude Code reads where they are)."""
    for scope in ("user", "project", "local"):
        source = claude_code_file(scope, project, home)
        copy = claude_code_file(scope, fresh_project, fresh_home)
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_file():
            shutil.copyfile(source, copy)
