"""``hookline doctor`` for Claude Code: the server's health, what is installed, and a live canary;
each claim it makes checked, and every gap found one line in ``Report.problems``.

Covered means all of: the server answers ``GET /health`` with no break-glass holding; some
settings scope has hookline's PreToolUse hook, failing closed, that nothing stops Claude Code
from running (``hookline._hosts.doctor_claude_code``); and the canary call went through Claude
Code's real hook path and was refused with hookline's own reason (``hookline._serve.canary``).
Without a Claude Code CLI there is no canary, and so no proof: that is a problem too.

The hosts that run command hooks (``examine_command_host``) are checked the same way from their
own settings (``hookline._hosts.doctor_command_hosts``), with their own canary through Codex and
Gemini CLI (``LIVE``); through Cursor none runs yet, and its report is never ``proven``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import httpx

from hookline._errors import ConfigError
from hookline._hosts import doctor_claude_code, doctor_command_hosts
from hookline._hosts.doctor_claude_code import Installed
from hookline._serve import canary, canary_codex, canary_gemini
from hookline._serve.canary import Canary

HOST: Final = "claude-code"
#: Seconds ``GET /health`` may take.
HEALTH_TIMEOUT: Final = 5.0
#: What each canary outcome but ``refused`` means, as a problem.
_NOT_REFUSED: Final = {
    "blocked": "the canary was blocked because a hook failed (onFailure block held), "
    "not refused by hookline serve",
    "refused-otherwise": "the canary was refused, but not with hookline serve's reason",
    "ran": "the canary call ran: no hook refused it",
    "no-result": "the canary did not complete",
}
NO_CLI: Final = (
    "no Claude Code CLI found (--cli PATH, $CLAUDE_CLI, claude on PATH, or the one in "
    "pip install claude-agent-sdk): no live canary proves the coverage"
)
NO_CODEX: Final = (
    "no Codex CLI found (--cli PATH, $CODEX_CLI, or codex on PATH: npm install @openai/codex): "
    "no live canary proves the coverage"
)
NO_GEMINI: Final = (
    "no Gemini CLI found (--cli PATH, $GEMINI_CLI, or gemini on PATH: npm install "
    "@google/gemini-cli): no live canary proves the coverage"
)
#: Each host's name, as the problems say it.
_NAMES: Final = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


@dataclass(frozen=True)
class Live:
    """A command host's live canary: how its CLI is found and run, and what it leaves out."""

    find_cli: Callable[[str | None], str | None]
    #: ``run(cli, project, home, carried=VARIABLES)``
    run: Callable[..., Canary]
    #: The problem when no CLI is found.
    no_cli: str
    unchecked: tuple[str, ...]


#: The command hosts a live canary runs through (``hookline._serve.canary_codex``, ``_gemini``).
LIVE: Final = {
    "codex": Live(
        canary_codex.find_cli,
        canary_codex.run,
        NO_CODEX,
        (
            "whether Codex trusts hookline's hooks (/hooks in Codex): it skips them until then; "
            "the canary runs them without that review",
            "tool calls other than its shell command: the canary makes one",
        ),
    ),
    "gemini": Live(
        canary_gemini.find_cli,
        canary_gemini.run,
        NO_GEMINI,
        (
            "whether Gemini CLI trusts your project's folder: it runs no project hooks in one it "
            "does not; the canary trusts its copy",
            "tool calls other than its shell command: the canary makes one",
        ),
    ),
}


@dataclass(frozen=True)
class Health:
    """What ``GET <server>/health`` answered."""

    url: str
    ok: bool
    #: What it answered, or why it could not be asked.
    said: str
    #: Until when a break-glass holds (seconds since the epoch), if one does.
    glass_until: float | None = None
    #: Whether the break-glass stand-in answered, not the server.
    stand_in: bool = False
    #: What the server made of the token doctor sent (``/health``'s ``token``), if it said.
    token: str | None = None
    #: The variable the token was taken from (``--token-env``), if one was.
    token_env: str | None = None


@dataclass(frozen=True)
class Report:
    """Everything ``hookline doctor`` found for one host."""

    url: str
    health: Health
    installed: Installed
    cli: str | None
    canary: Canary | None
    host: str = HOST
    #: What no check here covers (said, not counted as a problem).
    unchecked: tuple[str, ...] = field(
        default=(
            "tool calls of subagents: the canary makes none",
            "events other than PreToolUse: the canary fires only that one",
        )
    )
    #: Whether hookline doctor has a canary for this host (all but Cursor).
    has_canary: bool = True

    @property
    def problems(self) -> list[str]:
        found = _health_problems(self.health) + self.installed.problems
        if self.canary is None:
            if self.has_canary:
                found.append(LIVE[self.host].no_cli if self.host in LIVE else NO_CLI)
        elif not self.canary.refused:
            said = " ".join(self.canary.said.strip().splitlines()[:2])
            host = _NAMES.get(self.host, self.host)
            found.append(f"{_NOT_REFUSED[self.canary.outcome]} ({host}: {said})")
        return found

    @property
    def covered(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        installed = [
            {**asdict(scope), "path": str(scope.path), "gating": scope.gating}
            for scope in self.installed.scopes
        ]
        return {
            "host": self.host,
            "url": self.url,
            "covered": self.covered,
            "server": asdict(self.health),
            "installed": installed,
            "cli": self.cli,
            "canary": self.canary.as_json() if self.canary is not None else None,
            "problems": self.problems,
            "unchecked": list(self.unchecked),
            "proven": self.covered and self.canary is not None,
        }


def examine(
    url: str, project: Path, home: Path, *, cli: str | None, token_env: str | None = None
) -> Report:
    """The server at ``url`` (asked with the token in ``$token_env``), Claude Code's settings
    for ``project`` and ``home``, and the canary through ``cli`` (None: none run)."""
    health = health_of(url, token_env)
    installed = doctor_claude_code.check(url, project, home)
    carried = _carried(token_env)
    found = canary.run(cli, project, home, carried=carried) if cli is not None else None
    return Report(url, health, installed, cli, found)


def examine_command_host(
    host: str,
    url: str,
    project: Path,
    home: Path,
    *,
    cli: str | None = None,
    token_env: str | None = None,
) -> Report:
    """The server at ``url`` and ``host``'s settings (Gemini CLI, Codex, Cursor), and for
    Codex and Gemini CLI the canary through ``cli`` (``LIVE``; None: none found). No canary runs
    through Cursor yet: its report says what is installed, not that it is judged."""
    installed = doctor_command_hosts.check(host, url, project, home)
    health = health_of(url, token_env)
    live = LIVE.get(host)
    if live is not None:
        carried = _carried(token_env)
        found = live.run(cli, project, home, carried=carried) if cli is not None else None
        return Report(url, health, installed, cli, found, host, live.unchecked)
    unchecked = (
        f"no live canary runs through {host} yet: its settings show what is installed, "
        "not that its calls are judged",
    )
    return Report(url, health, installed, None, None, host, unchecked, has_canary=False)


def _carried(token_env: str | None) -> dict[str, str]:
    """What of this environment a canary's host gets: the token its hooks send, if any."""
    if token_env is None or token_env not in os.environ:
        return {}
    return {token_env: os.environ[token_env]}


def health_url(url: str) -> str:
    """``/health`` on the server ``url`` points at; a ConfigError when it is not an HTTP URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{url} is not an http(s) URL", key="--url", fix=_URL_FIX)
    return urlunsplit((parts.scheme, parts.netloc, "/health", "", ""))


_URL_FIX: Final = "give the URL hookline install wrote (http://127.0.0.1:8377/claude-code)"


def health_of(url: str, token_env: str | None = None) -> Health:
    """What ``/health`` on ``url``'s server answers, asked with the token in ``$token_env``."""
    where = health_url(url)
    secret = os.environ.get(token_env, "") if token_env else ""
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    try:
        answer = httpx.get(where, timeout=HEALTH_TIMEOUT, headers=headers)
    except httpx.HTTPError as exc:
        return Health(where, False, f"{type(exc).__name__}: {exc}".rstrip(": "))
    try:
        body = answer.json()
    except ValueError:
        body = None
    if answer.status_code != 200 or not isinstance(body, dict) or body.get("ok") is not True:
        return Health(where, False, f"{answer.status_code}: {answer.text.strip()[:200]}")
    glass = body.get("break_glass")
    until = glass.get("until") if isinstance(glass, dict) else body.get("until")
    stand_in = body.get("stand_in") is True
    held = float(until) if isinstance(until, int | float) and until > time.time() else None
    said = body.get("token")
    token = said if isinstance(said, str) else None
    return Health(where, True, answer.text.strip()[:200], held, stand_in, token, token_env)


def _health_problems(health: Health) -> list[str]:
    if not health.ok:
        return [f"the server does not answer at {health.url}: {health.said}"]
    found = []
    if health.stand_in:
        found.append("the break-glass stand-in answers, not hookline serve: nothing is judged")
    if health.glass_until is not None:
        ends = time.strftime("%H:%M", time.localtime(health.glass_until))
        found.append(f"a break-glass holds until {ends}: every tool call is asked, not judged")
    if health.token not in (None, "none", "accepted"):
        found.append(_token_problem(health.token, health.token_env))
    return found


def _token_problem(said: str | None, token_env: str | None) -> str:
    """What a token the server would refuse means for the hooks that send it."""
    if token_env is None:
        return (
            "the server takes only calls with a token: hooks installed without one are refused "
            "(hookline install HOST --token-env VAR); give doctor the same --token-env VAR"
        )
    if said == "missing":
        return f"${token_env} is not set here: hooks sending it would be refused"
    return f"the server refuses the token in ${token_env} ({said}): hooks sending it are refused"
