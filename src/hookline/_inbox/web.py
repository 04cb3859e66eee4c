"""The inbox's responses: the headers every page carries, the cookie, the way to sign-in.

The headers forbid inline script, framing and a Referer (a link's token never leaves in one).
Redirects name paths under the app's ``root_path``: ``/inbox`` when ``hookline serve`` mounts
it, nothing when it serves on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from starlette.responses import RedirectResponse, Response

from hookline._inbox.signin import COOKIE, LIFETIME

if TYPE_CHECKING:
    from starlette.requests import Request

    from hookline._inbox.signin import Visit

HEADERS: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # a link's token never leaves in a Referer
    "Cache-Control": "no-store",
}


def to_login(request: Request, visit: Visit) -> Response:
    """To the sign-in page, and back here after it."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    response = RedirectResponse(f"{root(request)}/login?next={quote(target)}", status_code=303)
    new = getattr(request.state, "new_cookie", None)
    return with_cookie(request, response, new) if new else response


def root(request: Request) -> str:
    """Where the app is mounted (``/inbox`` in ``hookline serve``; ``""`` on its own)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def with_cookie(request: Request, response: Response, value: str) -> Response:
    """``response`` setting the cookie (Secure over TLS), with the pages' headers."""
    secure = request.url.scheme == "https"
    response.set_cookie(
        COOKIE, value, max_age=LIFETIME, httponly=True, samesite="strict", secure=secure, path="/"
    )
    for name, header in HEADERS.items():
        response.headers.setdefault(name, header)
    return response


def static(text: str, kind: str) -> Callable[[Request], Any]:
    async def serve(request: Request) -> Response:
        return Response(text, media_type=kind, headers=HEADERS)

    return serve
