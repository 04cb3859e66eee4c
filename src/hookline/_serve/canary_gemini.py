"""A live canary through Gemini CLI's real hook path: one forbidden command, and who refused it.

As Codex's (``hookline._serve.canary_codex``): a scripted model on 127.0.0.1
(``hookline.models._serve.ScriptServer``, speaking the Gemini API Gemini CLI reads) asks once to
run ``cat`` (``run_shell_command``) on a file that does not exist under the user's
``~/.hookline/keys``, and ``gemini -p`` runs against it (``GOOGLE_GEMINI_BASE_URL``) in a
temporary HOME and project that hold copies of the user's ``~/.gemini/settings.json`` and the
project's ``.gemini/settings.json``, so Gemini runs the hooks it runs for the user and writes
nothing of the user's; the machine's system settings it reads where doctor does
(``hookline._hosts.managed``: Gemini reads them only from a file root owns). Over the project's
copy, which outranks the user's, goes what keeps the run offline (``OFFLINE``: a Gemini API
key, so the model is the local one; no usage statistics, no update check); hooks from every
file run. The project is trusted for the run (``GEMINI_CLI_TRUST_WORKSPACE``), and tool calls
need no approval (``--approval-mode yolo``: a headless Gemini offers no shell tool otherwise);
hooks judge them all the same. A shell command rather than ``read_file``: Gemini refuses a
``read_file`` outside its workspace before any hook runs.

What Gemini told the model about the command (the ``functionResponse`` of the next request)
says what happened: ``refused`` (blocked by a hook with hookline's reason), ``blocked`` (the
installed line could not reach the server and exited 2: fail-closed held, nothing judged),
``refused-otherwise`` (blocked by another hook, Gemini's policy, or no shell tool), ``ran``
(nobody refused it: ``cat`` found no such file), ``no-result``. A run Gemini ends without asking
the model is ``blocked`` too when it says the installed line blocked the prompt (BeforeAgent).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from hookline._hosts import gemini_settings
from hookline._hosts.managed import GEMINI_SYSTEM_ENV, managed_path
from hookline._hosts.settings_file import read
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
TOOL: Final = "run_shell_command"
#: The model asked for: a named one, so Gemini asks no router model first.
MODEL: Final = "gemini-2.5-flash"
#: What Gemini tells the model when a BeforeTool hook blocked a call.
_BLOCKED: Final = "Tool execution blocked"
#: Set over the project's settings for the run: the model is the local one, reached with a
#: Gemini API key (``GOOGLE_GEMINI_BASE_URL``), and nothing else is asked of the network.
OFFLINE: Final = {
    "security": {"auth": {"selectedType": "gemini-api-key", "useExternal": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


#: Where Gemini finds the machine's defaults, when not in their usual place: kept for the run.
_DEFAULTS: Final = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"


def find_cli(given: str | None = None) -> str | None:
    """The Gemini CLI: ``given``, ``$GEMINI_CLI`` or ``gemini`` on PATH; None when there is
    none."""
    return first_file(given, os.environ.get("GEMINI_CLI"), shutil.which("gemini"))


def run(
    cli: str,
    project: Path,
    home: Path,
    *,
    timeout: float = TIMEOUT,
    carried: Mapping[str, str] | None = None,
) -> Canary:
    """The canary through ``cli``, with the Gemini settings of ``home``, ``project`` and the
    machine, in a temporary HOME and project; ``carried``: variables of this environment its
    hooks read (the token they send)."""
    path = target(home)
    call = {"id": CALL_ID, "name": TOOL, "input": {"command": cat(path)}}

    def launch(model: str, tmp: Path) -> subprocess.CompletedProcess[str]:
        return _gemini(cli, model, _copy_settings(project, home, tmp), timeout, carried or {})

    ran = through(cli, path, call, launch)
    if isinstance(ran, Canary):
        return ran
    done, requests = ran
    said = told(requests)
    if said is None:
        stopped = [e for e in errors(done.stdout) if gemini_settings.UNREACHABLE in e]
        if stopped and not requests:
            return Canary("blocked", str(path), stopped[0])
        return unfinished(path, done, " | ".join(errors(done.stdout)) or None)
    return Canary(judge(*said, str(path)), str(path), said[0])


def judge(said: str, failed: bool, path: str) -> Outcome:
    """The outcome, from what Gemini told the model about the command, and whether it told it
    as an error."""
    if _BLOCKED in said and PRIVATE in said and path in said:
        return "refused"
    if gemini_settings.UNREACHABLE in said:
        return "blocked"
    return "refused-otherwise" if failed else "ran"


def told(requests: list[Any]) -> tuple[str, bool] | None:
    """What Gemini told the model about the canary call, from the requests it sent (the
    ``functionResponse``'s error or output), and whether it was an error."""
    for request in reversed(requests):
        contents = request.get("contents") if isinstance(request, dict) else None
        for content in reversed(contents if isinstance(contents, list) else []):
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else []:
                found = isinstance(part, dict) and _response(part.get("functionResponse"))
                if found:
                    return found
    return None


def _response(reply: Any) -> tuple[str, bool] | None:
    if not isinstance(reply, dict) or reply.get("name") != TOOL:
        return None
    body = reply.get("response")
    body = body if isinstance(body, dict) else {}
    if "error" in body:
        return str(body["error"]), True
    return str(body.get("output", json.dumps(body))), False


def errors(stdout: str) -> list[str]:
    """The errors Gemini reported in its ``stream-json`` output (a blocked prompt is one)."""
    found = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "error":
            found.append(str(event.get("message", "")))
    return found


def _copy_settings(project: Path, home: Path, tmp: Path) -> Path:
    """The user's settings copied into ``tmp``'s ``home``, and the project's into its
    ``project`` with ``OFFLINE`` set over them: that project."""
    fresh_home, work = tmp / "home", tmp / "project"
    (fresh_home / ".gemini").mkdir(parents=True)
    (work / ".gemini").mkdir(parents=True)
    user = gemini_settings.settings_path("user", project, home)
    if user.is_file():
        shutil.copyfile(user, fresh_home / ".gemini" / "settings.json")
    ours = read(gemini_settings.settings_path("project", project, home)) or {}
    (work / ".gemini" / "settings.json").write_text(json.dumps(_over(ours, OFFLINE)))
    return work


def _over(settings: dict[str, Any], keys: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with ``keys`` set over them, nested objects merged."""
    merged = dict(settings)
    for key, value in keys.items():
        below = merged.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            merged[key] = _over(below, value)
        else:
            merged[key] = value
    return merged


def _gemini(
    cli: str, model: str, work: Path, timeout: float, carried: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """``gemini -p`` in ``work``, its HOME beside it, its model at ``model``, offline."""
    tmp = work.parent
    scratch = tmp / "tmp"
    scratch.mkdir()
    env = host_env(
        tmp / "home",
        carried,
        GEMINI_API_KEY="hookline-doctor",
        GOOGLE_GEMINI_BASE_URL=model,
        GEMINI_CLI_TRUST_WORKSPACE="true",
        TMPDIR=str(scratch),
        NO_COLOR="1",
    )
    env[GEMINI_SYSTEM_ENV] = str(managed_path("gemini"))  # the machine's, as doctor reads it
    if _DEFAULTS in os.environ:
        env[_DEFAULTS] = os.environ[_DEFAULTS]
    argv = [cli, "-p", COMMAND_PROMPT, "-m", MODEL, "-o", "stream-json", "--approval-mode", "yolo"]
    return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
