"""hookline's own credentials: what the harness reads to do its work, never what a tool gets.

    env = {**without_credentials(os.environ), **ctx.env}   # Bash, command hooks

Bash commands and command hooks inherit the process environment without these: every
``HOOKLINE_*`` variable (the approver's token, the key file's path, hookline's own settings) and
the model providers' keys (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY`` and the other names below),
so ``printenv ANTHROPIC_API_KEY`` run by the model prints nothing. A name the user's or managed
settings list in ``{"hookline": {"env": {"passthrough": [...]}}}`` is passed on by name
(``hookline._claude.credentials``). Claude Code passes its whole environment on; this is a
deliberate difference (docs/compatibility.md). An MCP server over stdio gets a smaller one still
(``hookline.mcp._mcp_client``): a few variables such as ``PATH`` and ``HOME``, the ones passed on,
and its own ``env``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hookline._support.words import words

#: Variables whose name starts with this are hookline's own.
OWN_PREFIX = "HOOKLINE_"
#: The model providers' keys and tokens hookline (or the client libraries it uses) reads.
PROVIDER_KEYS = words(
    "ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN OPENAI_API_KEY "
    "OPENAI_ADMIN_KEY AZURE_OPENAI_API_KEY"
)
#: Set for a hook by hookline itself (not a credential): kept.
_KEPT = frozenset({"HOOKLINE"})


def is_own(name: str) -> bool:
    """Whether ``name`` is one of hookline's own credentials (or settings)."""
    return name.startswith(OWN_PREFIX) or name in PROVIDER_KEYS


def without_credentials(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without hookline's own credentials."""
    return {name: value for name, value in environ.items() if name in _KEPT or not is_own(name)}


def passed_on(names: Iterable[str], environ: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``names`` that ``environ`` sets (what a passthrough setting adds)."""
    return {name: environ[name] for name in names if name in environ}
