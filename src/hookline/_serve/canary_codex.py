"""A live canary through Codex CLI's real hook path: one forbidden command, and who refused it.

As Claude Code's (``hookline._serve.canary``): a scripted model on 127.0.0.1
(``hookline.models._serve.ScriptServer``, speaking the Responses API Codex reads) asks once to
run ``cat`` on a file that does not exist under the user's ``~/.hookline/keys``, and ``codex
exec`` runs against it in a temporary ``CODEX_HOME`` and project that hold copies of the user's
``hooks.json`` and the project's ``.codex/hooks.json``, so Codex runs the hooks it runs for the
user and writes nothing of the user's. hookline refuses any Bash line naming its keys, in every
mode, so the server must refuse it. Codex runs the copies without its review of new hooks
(``--dangerously-bypass-hook-trust``): whether the user has trusted them is not what is proved.

What Codex told the model about the command (the ``function_call_output`` of the next request)
says what happened: ``refused`` (blocked by a hook with hookline's reason), ``blocked`` (the
installed line could not reach the server and exited 2: fail-closed held, nothing judged),
``refused-otherwise``, ``ran`` (nobody refused it: ``cat`` found no such file), ``no-result``.
A turn Codex ends without asking the model at all is ``blocked`` too: its UserPromptSubmit
hook blocked the prompt (Codex says no more than that).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from hookline._hosts import codex_settings
from hookline._serve.canary import (
    COMMAND_PROMPT,
    PRIVATE,
    TIMEOUT,
    Canary,
    Outcome,
    cat,
    first_file,
    host_env,
    target,
    through,
    unfinished,
)

CALL_ID: Final = "call_hookline_doctor_canary"
#: What Codex tells the model when a PreToolUse hook blocked a command.
_BLOCKED: Final = "blocked by PreToolUse hook"
#: What a turn Codex ends without asking the model means: a hook blocked the prompt (the
#: installed line blocks when the server cannot answer; Codex says nothing more).
_PROMPT_BLOCKED: Final = (
    "Codex ended the turn without asking the model: its UserPromptSubmit hook blocked the prompt"
)


def find_cli(given: str | None = None) -> str | None:
    """The Codex CLI: ``given``, ``$CODEX_CLI`` or ``codex`` on PATH; None when there is none."""
    return first_file(given, os.environ.get("CODEX_CLI"), shutil.which("codex"))


def run(
    cli: str,
    project: Path,
    home: Path,
    *,
    timeout: float = TIMEOUT,
    carried: Mapping[str, str] | None = None,
) -> Canary:
    """The canary through ``cli``, with the hooks of ``home``'s Codex (``$CODEX_HOME``) and of
    ``project``, in a temporary CODEX_HOME and project; ``carried``: variables of this
    environment its hooks read (the token they send)."""
    path = target(home)
    call = {"id": CALL_ID, "name": "exec_command", "input": {"cmd": cat(path)}}

    def launch(model: str, tmp: Path) -> subprocess.CompletedProcess[str]:
        codex_home, work = tmp / "codex", tmp / "project"
        _copy_hooks(project, home, codex_home, work)
        (codex_home / "config.toml").write_text(_config(model))
        return _codex(cli, codex_home, work, timeout, carried or {})

    ran = through(cli, path, call, launch)
    if isinstance(ran, Canary):
        return ran
    done, requests = ran
    said = _told(requests)
    if said is None and not requests and '"turn.completed"' in done.stdout:
        return Canary("blocked", str(path), _PROMPT_BLOCKED)
    if said is None:
        return unfinished(path, done)
    return Canary(judge(said, str(path)), str(path), said)


def judge(said: str, path: str) -> Outcome:
    """The outcome, from what Codex told the model about the command."""
    if _BLOCKED in said and PRIVATE in said and path in said:
        return "refused"
    if codex_settings.UNREACHABLE in said:
        return "blocked"
    if _BLOCKED in said:
        return "refused-otherwise"
    return "ran"


def _copy_hooks(project: Path, home: Path, codex_home: Path, work: Path) -> None:
    (work / ".codex").mkdir(parents=True)
    codex_home.mkdir()
    user = codex_settings.settings_path("user", project, home)
    ours = codex_settings.settings_path("project", project, home)
    for source, copy in ((user, codex_home / "hooks.json"), (ours, work / ".codex" / "hooks.json")):
        if source.is_file():
            shutil.copyfile(source, copy)


def _config(model: str) -> str:
    return (
        'model = "gpt-5-codex"\nmodel_provider = "hookline_doctor"\n\n'
        '[model_providers.hookline_doctor]\nname = "hookline doctor"\n'
        f'base_url = "{model}/v1"\nwire_api = "responses"\nenv_key = "HOOKLINE_DOCTOR_KEY"\n'
    )


def _codex(
    cli: str, codex_home: Path, work: Path, timeout: float, carried: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """``codex exec`` in ``work``, offline. Its sandbox helper goes beside CODEX_HOME, which
    Codex refuses under the temporary folder: it is given another."""
    scratch = codex_home.parent / "tmp"
    scratch.mkdir()
    env = host_env(
        codex_home.parent,
        carried,
        CODEX_HOME=str(codex_home),
        HOOKLINE_DOCTOR_KEY="sk-hookline-doctor",
        TMPDIR=str(scratch),
    )
    argv = [cli, "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--trust",
            "--dangerously-bypass-hook-trust", "-s", "read-only", "-C", str(work),
            COMMAND_PROMPT]  # fmt: skip
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False)  # fmt: skip


def _told(requests: list[Any]) -> str | None:
    """What Codex told the model about the canary call, from the requests it sent."""
    for request in reversed(requests):
        items = request.get("input") if isinstance(request, dict) else None
        for item in reversed(items if isinstance(items, list) else []):
            output = isinstance(item, dict) and item.get("type") == "function_call_output"
            if output and item.get("call_id") == CALL_ID:
                return str(item.get("output"))
    return None
