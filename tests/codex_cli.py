"""The real Codex CLI, driven offline: ``codex exec`` against a local server speaking the OpenAI
Responses API (``hookline.models._wire.responses_events``), in a fresh ``CODEX_HOME`` whose
``hooks.json`` the test writes.

The CLI is ``$CODEX_CLI`` or ``codex`` on the PATH (``npm install @openai/codex``); CI installs
it and sets ``HOOKLINE_REQUIRE_CODEX_CLI=1``, so there a missing CLI fails instead of skipping.
The scripted model asks for one ``exec_command`` (Codex's shell tool) and then answers ``FINAL``;
``Run.output`` is what Codex told the model the command gave (or why it did not run).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Final

from hookline._serve import canary_codex
from host_cli import Run, needs
from model_servers import Raw, model_server, responses_events

CLI: Final = canary_codex.find_cli()
needs_codex = needs(CLI, "CODEX", "set CODEX_CLI, or npm install @openai/codex (CI does)")
FINAL: Final = "FINAL"


def config(url: str) -> str:
    """Codex's config.toml: the local server as its model provider."""
    return (
        'model = "gpt-5-codex"\nmodel_provider = "local"\n\n[model_providers.local]\n'
        f'name = "local"\nbase_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
    )


def run(
    command: str, *, work: Path, codex_home: Path, hooks: dict[str, Any], keep: bool = False
) -> Run:
    """``codex exec`` in ``work``, whose model asks to run ``command``; ``hooks`` is the
    ``hooks.json`` Codex reads (run without its review: ``--dangerously-bypass-hook-trust``).
    ``keep``: Codex keeps the session's rollout under ``codex_home/sessions`` (else
    ``--ephemeral``)."""
    told: list[str] = []

    def reply(body: dict[str, Any]) -> Raw:
        outputs = [i for i in body.get("input", []) if i.get("type") == "function_call_output"]
        if not outputs:
            call = ("call_1", "exec_command", [json.dumps({"cmd": command})])
            return Raw(200, b"".join(responses_events(calls=[call])), "text/event-stream")
        told.append(str(outputs[-1].get("output")))
        return Raw(200, b"".join(responses_events(FINAL)), "text/event-stream")

    codex_home.mkdir(parents=True, exist_ok=True)
    # Codex puts its sandbox helper beside CODEX_HOME, and refuses to under the temporary
    # folder: the test's folders are under it, so Codex is given another one.
    scratch = codex_home.parent / "tmp"
    scratch.mkdir(exist_ok=True)
    (codex_home / "hooks.json").write_text(json.dumps(hooks))
    with model_server(reply) as server:
        (codex_home / "config.toml").write_text(config(server.url("").rstrip("/")))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(codex_home.parent),
               "CODEX_HOME": str(codex_home), "LOCAL_KEY": "sk-local",
               "TMPDIR": str(scratch)}  # fmt: skip
        argv = [str(CLI), "exec", "--json", "--skip-git-repo-check",
                *([] if keep else ["--ephemeral"]),
                "--dangerously-bypass-hook-trust", "-s", "workspace-write", "-C", str(work),
                "Run the command."]  # fmt: skip
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return Run(done.returncode, events, told[-1] if told else None, done.stderr)
