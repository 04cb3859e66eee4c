"""The real Gemini CLI, driven offline: ``gemini -p`` against a local server speaking the Gemini
API (``hookline.models._wire.gemini_events``, through ``GOOGLE_GEMINI_BASE_URL``), in a fresh
HOME whose ``~/.gemini/settings.json`` holds the hooks the test gives.

The CLI is ``$GEMINI_CLI`` or ``gemini`` on the PATH (``npm install @google/gemini-cli``); CI
installs it and sets ``HOOKLINE_REQUIRE_GEMINI_CLI=1``, so there a missing CLI fails instead of
skipping. The scripted model asks for one ``run_shell_command`` (Gemini's shell tool) and then
answers ``FINAL``; ``Run.output`` is what Gemini told the model the command gave (or why it did
not run): the ``functionResponse`` of its next request.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Final

from hookline._serve import canary_gemini
from host_cli import Run, needs
from model_servers import Raw, gemini_events, model_server

CLI: Final = canary_gemini.find_cli()
needs_gemini = needs(CLI, "GEMINI", "set GEMINI_CLI, or npm install @google/gemini-cli (CI does)")
FINAL: Final = "FINAL"
#: The local model reached with a Gemini API key (Gemini CLI's gateway auth is refused headless).
AUTH: Final = {"security": {"auth": {"selectedType": "gemini-api-key"}}}


def run(command: str, *, work: Path, home: Path, hooks: dict[str, Any]) -> Run:
    """``gemini -p`` in ``work`` (trusted, every call approved), whose model asks to run
    ``command``; ``hooks`` is the ``hooks`` of the user's settings Gemini reads."""
    told: list[str] = []

    def reply(body: dict[str, Any]) -> Raw:
        parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if not responses:
            call = ("call_1", "run_shell_command", [json.dumps({"command": command})])
            return Raw(200, b"".join(gemini_events(calls=[call])), "text/event-stream")
        told.append(json.dumps(responses[-1].get("response")))
        return Raw(200, b"".join(gemini_events([FINAL])), "text/event-stream")

    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(AUTH | {"hooks": hooks}))
    scratch = home / "tmp"
    scratch.mkdir(exist_ok=True)
    with model_server(reply) as server:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
               "GEMINI_API_KEY": "local", "GOOGLE_GEMINI_BASE_URL": server.url("").rstrip("/"),
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "TMPDIR": str(scratch),
               # none of the machine's settings (its own may hold hooks): files never made
               "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(home / "no-system.json"),
               "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(home / "no-defaults.json")}  # fmt: skip
        argv = [str(CLI), "-p", "Run the command.", "-m", "gemini-2.5-flash",
                "-o", "stream-json", "--approval-mode", "yolo"]  # fmt: skip
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return Run(done.returncode, events, told[-1] if told else None, done.stderr)
