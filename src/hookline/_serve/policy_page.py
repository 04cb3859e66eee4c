"""``GET /policy``: the policy serving now, as JSON, or in words (``Accept: text/plain`` or
``?format=text``): its digest (the one on each ``served`` record), when it was loaded, its
files, its hooks and permission rules, and a reload refused since (``reload_refused``). Only to
whom ``may_see`` lets (``Gate.trusted``: this machine, or a valid token); anyone else a 401.

``?cwd=DIR`` adds the project policy that tightens the server's for a host's event from
``DIR`` (``project``: the same view, with which folder and part were consulted), or why none
is (``hookline._serve.projects``): what an agent refused by its project's rules reads to learn
why. The part is what Claude Code gets (its project's Python hooks and ``hookline`` settings),
or the whole of it with ``&host=gemini`` (``codex``, ``cursor``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, PlainTextResponse

from hookline._policy.view import described, when
from hookline._policy.words import in_words
from hookline._serve.projects import HOOKLINE_ONLY, WHOLE

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from starlette.requests import Request
    from starlette.responses import Response

    from hookline._serve.policies import Policies
    from hookline._serve.projects import Projects


def policy_page(
    policies: Policies,
    *,
    may_see: Callable[[Request], bool] = lambda _: True,
    projects: Projects | None = None,
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint that shows ``policies``' current policy to whom ``may_see`` lets, and with
    ``?cwd=`` the policy of that folder's project among ``projects``."""

    async def policy(request: Request) -> Response:
        if not may_see(request):
            said = "GET /policy needs a valid token (Authorization: Bearer)\n"
            return PlainTextResponse(said, status_code=401)
        view = current(policies)
        cwd = request.query_params.get("cwd")
        if cwd is not None and projects is not None:
            host = request.query_params.get("host", "claude-code")
            view["project"] = await _project(
                projects, cwd, HOOKLINE_ONLY if host == "claude-code" else WHOLE
            )
        if _wants_text(request):
            return PlainTextResponse(in_words(view))
        return JSONResponse(view)

    return policy


async def _project(projects: Projects, cwd: str, part: str) -> dict[str, Any]:
    """What ``GET /policy?cwd=`` says of the project: which was consulted and its policy, or
    why none was."""
    async with projects.using(cwd, part) as (said, active):
        if active is None:
            return said.fields()
        view = described(active.judge.project, active.digest, loaded_at=active.loaded_at)
        return {**said.fields(), **view}


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
