"""The server never asks itself: the HTTP hooks of its own settings that post back to it are
left out.

``hookline install claude-code`` writes HTTP hooks pointing at the server into Claude Code's
settings, often the user's (``~/.claude/settings.json``), and the server reads every settings
layer as ``hookline run`` does, that one included. Kept, such a hook would make the server post
each event to itself, which would post it again, until the host's timeout blocked every call.
A hook posting to the server's own port on a loopback address, or on the address it listens
on, is such a hook, whatever its path (nothing else can listen there). A hook posting to
another address is kept, even when the server listens on every address: it may be another
machine's server, and leaving out a gate that is not this one would weaken the policy.
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import urlsplit

from hookline._claude.http import HttpHook
from hookline._hooks.registry import HookRegistry

_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def leave_out_itself(hooks: HookRegistry, host: str, port: int) -> list[str]:
    """Unregister the HTTP hooks of ``hooks`` that post to a server listening on ``host`` and
    ``port``; what each was (its event and URL), to say so."""
    gone = []
    for spec in list(hooks):
        runner = spec.runner
        if isinstance(runner, HttpHook) and posts_to(runner.url, host, port):
            hooks.discard(spec)
            gone.append(f"{spec.event} -> {runner.url}")
    return gone


def posts_to(url: str, host: str, port: int) -> bool:
    """Whether ``url`` reaches a server listening on ``host`` and ``port`` of this machine."""
    try:
        parts = urlsplit(url)
        target, given = parts.hostname, parts.port
    except ValueError:
        return False
    if target is None or parts.scheme not in ("http", "https"):
        return False
    if (given if given is not None else (443 if parts.scheme == "https" else 80)) != port:
        return False
    return target == host or _loopback(target)


def _loopback(name: str) -> bool:
    if name.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
