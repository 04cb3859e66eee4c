"""``GET /policy``: the policy serving now, as JSON, or in words (``Accept: text/plain`` or
``?format=text``): its digest (the one on each ``served`` record), when it was loaded, its
files, its hooks and permission rules, and a reload refused since (``reload_refused``). Only to
whom ``may_see`` lets (``Gate.trusted``: this machine, or a valid token); anyone else a 401.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, PlainTextResponse

from hookline._policy.view import described, when
from hookline._policy.words import in_words

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from starlette.requests import Request
    from starlette.responses import Response

    from hookline._serve.policies import Policies


def policy_page(
    policies: Policies, *, may_see: Callable[[Request], bool] = lambda _: True
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint that shows ``policies``' current policy to whom ``may_see`` lets."""

    async def policy(request: Request) -> Response:
        if not may_see(request):
            said = "GET /policy needs a valid token (Authorization: Bearer)\n"
            return PlainTextResponse(said, status_code=401)
        view = current(policies)
        if _wants_text(request):
            return PlainTextResponse(in_words(view))
        return JSONResponse(view)

    return policy


def current(policies: Policies) -> dict[str, Any]:
    """The view of the policy serving now, with the last reload when it was refused."""
    active = policies.current
    view = described(active.judge.project, active.digest, loaded_at=active.loaded_at)
    refused = policies.refused
    if refused is not None:
        said = {"at": when(refused.at), "why": refused.why, "error": refused.error}
        view["reload_refused"] = said
    return view


def _wants_text(request: Request) -> bool:
    asked = request.query_params.get("format")
    if asked is not None:
        return asked == "text"
    accept = request.headers.get("accept", "")
    return "text/plain" in accept and "application/json" not in accept
