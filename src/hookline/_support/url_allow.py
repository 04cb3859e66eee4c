"""URL allow-lists (``allowedHttpHookUrls``): which URLs an HTTP hook or approver may reach.

A pattern is matched part by part on the parsed URL, never on its text (``url_allowed``), and a
URL carrying userinfo is always refused (``url_refusal``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import httpx


def url_allowed(url: str, patterns: Sequence[str] | None) -> bool:
    """Whether ``allowedHttpHookUrls`` lets ``url`` through.

    With ``patterns`` None every URL is allowed, with ``[]`` none, with ``["*"]`` every one. A
    pattern (``scheme://host[:port][/path]``, ``*`` standing for any run of characters inside
    one part) is matched part by part on the parsed URL, never on its text: scheme and host
    ignoring case, the port (a pattern without one allows only the scheme's default port), and
    the path (a pattern without one allows any path; one with a ``..`` segment, even encoded,
    never matches). So ``http://localhost:1@127.0.0.1/`` goes to 127.0.0.1 and does not match
    ``http://localhost:*``."""
    if patterns is None:
        return True
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return False
    if ".." in parsed.path.split("/"):
        return False
    return any(p == "*" or _UrlPattern.parse(p).matches(parsed) for p in listed(patterns))


def url_refusal(url: str, patterns: Sequence[str] | None) -> str | None:
    """Why an HTTP hook may not POST to ``url``; None when it may. Besides ``url_allowed``, a
    URL carrying userinfo (``http://user@host/``) is always refused: a reader, or a loose
    pattern, takes the text before the ``@`` for the host."""
    import httpx

    try:
        userinfo = httpx.URL(url).userinfo
    except httpx.InvalidURL:
        return "the URL cannot be parsed"
    if userinfo:
        return "the URL carries userinfo (user:password@), which hookline refuses"
    if not url_allowed(url, patterns):
        return "the URL does not match allowedHttpHookUrls"
    return None


@dataclass(frozen=True, slots=True)
class _UrlPattern:
    """One ``allowedHttpHookUrls`` entry, split into the parts a URL is matched on."""

    scheme: str
    host: str
    port: str | None
    path: str | None

    @classmethod
    def parse(cls, pattern: str) -> _UrlPattern:
        """The parts of ``pattern``; one that is not ``scheme://host[:port][/path]`` (with
        userinfo, say) matches nothing."""
        found = _URL_PATTERN.fullmatch(pattern)
        if found is None or "@" in found["host"]:
            return _NOTHING
        host = found["host"].removeprefix("[").removesuffix("]")
        return cls(found["scheme"].lower(), host.lower(), found["port"], found["path"])

    def matches(self, url: httpx.URL) -> bool:
        if self is _NOTHING or not _glob(self.scheme).fullmatch(url.scheme):
            return False
        if not _glob(self.host).fullmatch(url.host.lower()):
            return False
        port = url.port if url.port is not None else _DEFAULT_PORTS.get(url.scheme)
        wanted = _DEFAULT_PORTS.get(url.scheme) if self.port is None else self.port
        if not _glob(str(wanted)).fullmatch(str(port)):
            return False
        return self.path is None or _glob(self.path).fullmatch(url.path) is not None


_URL_PATTERN = re.compile(
    r"(?P<scheme>[A-Za-z*][A-Za-z0-9+.*-]*)://(?P<host>\[[^\]/]*\]|[^:/]+)"
    r"(?::(?P<port>[0-9*]+))?(?P<path>/.*)?",
    re.DOTALL,
)
_NOTHING = _UrlPattern("", "", None, None)
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def listed(names: Sequence[str]) -> tuple[str, ...]:
    """A bare string is one entry, not a list of characters (``"*"`` would allow everything)."""
    return (names,) if isinstance(names, str) else tuple(names)


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))
