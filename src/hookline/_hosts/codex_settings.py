"""Codex CLI pointed at ``hookline serve``: its ``hooks.json`` entries, written and taken out.

Codex runs command hooks only, found in ``hooks.json`` beside each of its config layers:
``$CODEX_HOME/hooks.json`` (``~/.codex``) for the user, ``.codex/hooks.json`` for a project
(read only when Codex trusts the project). The shape is Claude Code's: ``hooks.<Event>``,
matcher groups of ``{"type": "command", "command": ..., "timeout": SECONDS}``. The installed
command is the ``curl`` line of ``hookline._hosts.curl_hook``: it posts the event to the
server's ``/codex`` route and blocks (exit 2, the reason on stderr) when no answer comes.

The machine's ``hooks.json`` (``/etc/codex``, the ``managed`` scope) is Codex's system layer.
Codex runs a hook it did not get from the machine only once a person has reviewed and trusted
it (``/hooks`` in Codex), and again after it changes; ``warnings`` says so, and says when
``config.toml`` turns hooks off. The entries are hookline's when their command is the
installed line (or an older curl line posting to the URL); installing again changes nothing,
and ``uninstall`` takes out exactly those.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, Literal

from hookline._events import EVENTS as ALL_EVENTS
from hookline._events import Stop
from hookline._hosts import curl_hook, hook_groups, settings_file
from hookline._hosts.claude_code import DEFAULT_PORT
from hookline._hosts.codex import CODEX_EVENTS, CODEX_PATH
from hookline._hosts.hook_groups import Change
from hookline._hosts.managed import managed_path

Scope = Literal["user", "project", "managed"]
SCOPES: Final = ("user", "project", "managed")
DEFAULT_URL: Final = f"http://127.0.0.1:{DEFAULT_PORT}{CODEX_PATH}"
#: The events installed by default: those hookline serves by default (``EventFacts.served``:
#: the gate before each tool, Codex's own approval prompt, each result, the prompt), but Stop:
#: while the server is down, Codex would take each of its blocks as a reason to keep working.
EVENTS: Final = tuple(
    name
    for name in CODEX_EVENTS
    if ALL_EVENTS[name].facts.served == "default" and name != Stop.name
)
#: Seconds Codex waits for the hook: longer than curl's (``curl_hook.SECONDS``).
TIMEOUT_SECONDS: Final = 60
UNREACHABLE: Final = (
    "hookline serve is unreachable: the call is blocked (hookline break-glass is the way out)"
)
TRUST_NOTE: Final = (
    "Codex runs these hooks only once you trust them: open /hooks in Codex, review hookline's "
    "entries and trust them (again after any change to them)"
)


def settings_path(scope: Scope, cwd: Path, home: Path) -> Path:
    """The ``hooks.json`` Codex reads for ``scope`` (the user's under ``$CODEX_HOME``; the
    machine's beside its system ``config.toml``: ``hookline._hosts.managed``)."""
    if scope == "project":
        return cwd / ".codex" / "hooks.json"
    if scope == "managed":
        return managed_path("codex")
    codex_home = os.environ.get("CODEX_HOME")
    return (Path(codex_home) if codex_home else home / ".codex") / "hooks.json"


def command(url: str, token_env: str | None = None) -> str:
    """The installed line: the event posted to ``url`` (with the token in ``$token_env``), the
    answer printed; exit 2 with the reason on stderr (Codex's block) when no answer comes."""
    return curl_hook.line(url, UNREACHABLE, token_env)


def entry(url: str, token_env: str | None = None) -> dict[str, Any]:
    """One installed hook: every call of its event posted to ``url``, blocked on failure."""
    return {"type": "command", "command": command(url, token_env), "timeout": TIMEOUT_SECONDS}


def install(
    path: Path, url: str, events: Iterable[str] = EVENTS, *, token_env: str | None = None
) -> Change:
    """Add an entry for each of ``events`` that ``path`` lacks, and make hookline's entries
    send the token of ``token_env`` (or none); the file made if missing."""
    wanted = hook_groups.checked(events, frozenset(CODEX_EVENTS), "Codex")
    line = command(url, token_env)
    return hook_groups.install_file(
        path,
        wanted,
        lambda: {"hooks": [entry(url, token_env)]},
        _ours(url),
        lambda handler: handler | {"command": line},
    )


def uninstall(path: Path, url: str) -> Change:
    """Take hookline's entries (commands posting to ``url``) out of ``path``."""
    return hook_groups.uninstall_file(path, _ours(url))


def installed(path: Path, url: str) -> list[str]:
    """The events ``path`` has hookline's entry for (what ``hookline doctor`` reports)."""
    settings = settings_file.read(path)
    if settings is None:
        return []
    return hook_groups.events_with(settings, path, _ours(url))


def warnings(path: Path) -> list[str]:
    """What keeps Codex from running the entries of ``path``: what ``stops`` them, and the
    review Codex asks for (of every file but the machine's)."""
    return [*stops(path), *([] if path == managed_path("codex") else [TRUST_NOTE])]


def stops(path: Path) -> list[str]:
    """What turns Codex's hooks off: ``[features] hooks`` (or its old name) false in the
    ``config.toml`` beside ``path``."""
    config = path.parent / "config.toml"
    features = _features(config)
    return [
        f"features.{key} is false in {config}: Codex runs no hook until it is on"
        for key in ("hooks", "codex_hooks")
        if features.get(key) is False
    ]


def _features(config: Path) -> dict[str, Any]:
    try:
        with config.open("rb") as file:
            features = tomllib.load(file).get("features", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return features if isinstance(features, dict) else {}


def _ours(url: str) -> hook_groups.Ours:
    return lambda handler: curl_hook.posts_to(handler, url, UNREACHABLE)
