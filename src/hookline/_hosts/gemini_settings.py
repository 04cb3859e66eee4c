"""Gemini CLI pointed at ``hookline serve``: its settings entries, written and taken out.

Gemini CLI runs command hooks only (``hooks.<Event>``: matcher groups of ``{"type":
"command", "command": ...}``, in ``~/.gemini/settings.json``, the project's
``.gemini/settings.json`` or the machine's system settings). The installed command is a
``curl`` line, so no Python starts per call: it posts the event on stdin to the server's
``/gemini`` route and prints the answer, and when the server cannot be reached, answers late
or answers with an error it says so on stderr and exits 2, which Gemini reads as a block (any
other exit code would be a warning and the tool would run). curl gives up after
``curl_hook.SECONDS``, well before Gemini's own ``TIMEOUT_MS`` (a hook Gemini times out does not
block).

An entry is hookline's when it is a command hook whose command is the installed line, or one
named ``hookline`` whose command posts to the URL; installing again changes nothing, and
``uninstall`` takes out exactly those entries (and the groups and keys left empty by that).
Gemini runs hooks unless ``hooksConfig.enabled`` is false; ``warnings`` says when a file
turns them off.

With a token (``token_env``), the line sends ``Authorization: Bearer $VAR`` from the hook's
environment (the token itself is never written). Gemini strips variables named like a secret
(``*TOKEN*``, ``*KEY*``, ``*AUTH*``...) from hooks' environment when its environment redaction
is on, except those starting with ``GEMINI_CLI_``: ``token_warnings`` says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, Literal

from hookline._hosts import curl_hook, hook_groups, settings_file
from hookline._hosts.claude_code import DEFAULT_PORT
from hookline._hosts.gemini import GEMINI_PATH
from hookline._hosts.hook_groups import Change
from hookline._hosts.managed import managed_path

Scope = Literal["user", "project", "managed"]
SCOPES: Final = ("user", "project", "managed")
DEFAULT_URL: Final = f"http://127.0.0.1:{DEFAULT_PORT}{GEMINI_PATH}"
#: The events installed by default: a gate before each tool, its result, and the prompt.
EVENTS: Final = ("BeforeTool", "AfterTool", "BeforeAgent")
#: Gemini's events (``HookEventName`` in its ``packages/core/src/hooks/types.ts``).
GEMINI_EVENTS: Final = frozenset(
    {
        *EVENTS,
        "AfterAgent",
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
        "SessionStart",
        "SessionEnd",
        "Notification",
        "PreCompress",
    }
)
#: The name of each installed hook (Gemini's logs and ``/hooks`` show it).
NAME: Final = "hookline"
#: Gemini's wait for the hook, in milliseconds: longer than curl's (``curl_hook.SECONDS``).
TIMEOUT_MS: Final = 60_000
UNREACHABLE: Final = (
    "hookline serve is unreachable: the call is blocked (hookline break-glass is the way out)"
)


def settings_path(scope: Scope, cwd: Path, home: Path) -> Path:
    """The settings file Gemini CLI reads for ``scope`` (the machine's: its system settings,
    ``hookline._hosts.managed``)."""
    if scope == "managed":
        return managed_path("gemini")
    return (home if scope == "user" else cwd) / ".gemini" / "settings.json"


#: Where a variable survives Gemini's environment redaction whatever its name.
KEPT_PREFIX: Final = "GEMINI_CLI_"


def command(url: str, token_env: str | None = None) -> str:
    """The installed line: the event posted to ``url`` (with the token in ``$token_env``),
    the answer printed; exit 2 (a block, the reason on stderr) when no answer comes."""
    return curl_hook.line(url, UNREACHABLE, token_env)


def entry(url: str, token_env: str | None = None) -> dict[str, Any]:
    """One installed hook: every call of its event posted to ``url``, blocked on failure."""
    line = command(url, token_env)
    return {"type": "command", "name": NAME, "command": line, "timeout": TIMEOUT_MS}


def install(
    path: Path, url: str, events: Iterable[str] = EVENTS, *, token_env: str | None = None
) -> Change:
    """Add an entry for each of ``events`` that ``path`` lacks, and make hookline's entries
    send the token of ``token_env`` (or none); the file made if missing."""
    line = command(url, token_env)
    return hook_groups.install_file(
        path,
        hook_groups.checked(events, GEMINI_EVENTS, "Gemini CLI"),
        lambda: _group(url, token_env),
        _ours(url),
        lambda handler: handler | {"command": line},
    )


def uninstall(path: Path, url: str) -> Change:
    """Take hookline's entries (commands posting to ``url``) out of ``path``."""
    return hook_groups.uninstall_file(path, _ours(url))


def _group(url: str, token_env: str | None) -> dict[str, Any]:
    return {"matcher": "*", "hooks": [entry(url, token_env)]}


def token_warnings(token_env: str | None) -> list[str]:
    """What may keep the token from the installed line: Gemini's environment redaction."""
    if token_env is None or token_env.upper().startswith(KEPT_PREFIX):
        return []
    return [
        f"Gemini CLI takes variables named like {token_env} out of hooks' environment when its "
        f"environment redaction is on (then every call is refused): name it {KEPT_PREFIX}..., "
        "or list it in its allowed environment variables"
    ]


def installed(path: Path, url: str) -> list[str]:
    """The events ``path`` has hookline's entry for (what ``hookline doctor`` reports)."""
    settings = settings_file.read(path)
    if settings is None:
        return []
    return hook_groups.events_with(settings, path, _ours(url))


def warnings(path: Path) -> list[str]:
    """What in ``path`` keeps Gemini from running the installed hooks."""
    settings = settings_file.read(path) or {}
    config = settings.get("hooksConfig")
    if isinstance(config, dict) and config.get("enabled") is False:
        return [f"hooksConfig.enabled is false in {path}: Gemini CLI runs no hook until it is true"]
    return []


def _ours(url: str) -> hook_groups.Ours:
    """Whether a handler is hookline's: the installed line for ``url`` (or an older one, by its
    name and the URL in it)."""
    return lambda handler: curl_hook.posts_to(handler, url, UNREACHABLE, NAME)
