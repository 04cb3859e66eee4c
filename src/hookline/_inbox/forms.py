"""What a POST to the inbox says: its url-encoded fields, checked into an ``Answer``.

Read here rather than by Starlette's form parser (which needs python-multipart): a body of at
most ``FORM_LIMIT`` bytes, the first value of each field. An answer is checked as ``hookline
sessions resume`` checks its flags (``answers.answer_from_cli``): a deny has a message (the
terminal's default when none is typed), an edit is a JSON object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final
from urllib.parse import parse_qs

from hookline._cli.answers import answer_from_cli
from hookline._cli.approve_prompt import DENIED_BY_USER
from hookline._errors import ConfigError
from hookline._inbox.answer import Action, Answer

if TYPE_CHECKING:
    from starlette.requests import Request

    from hookline._inbox.signin import Visit
    from hookline._inbox.users import User

#: The largest form body read; a bigger one reads as empty (and so fails its CSRF check).
FORM_LIMIT: Final = 256 * 1024


@dataclass(frozen=True, slots=True)
class Asker:
    """Who posted an answer, signed in as an approver, and what the form holds."""

    visit: Visit
    user: User
    form: dict[str, str]


async def read_form(request: Request) -> dict[str, str]:
    """A url-encoded form's fields (the first of each), at most ``FORM_LIMIT`` bytes."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_LIMIT:
            return {}
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


def answer_of(user: User, action: Action, form: dict[str, str], *, via: str) -> Answer:
    """The answer a form gives; a ConfigError saying what is wrong with it."""
    message = form.get("message", "").strip() or DENIED_BY_USER
    edited = form.get("edited") if action == "edit" else None
    said = answer_from_cli(action == "approve", message if action == "deny" else None, edited)
    for_session = form.get("for_session") == "1"
    if for_session and action != "approve":
        fix = "allow for the session only with an approval"
        raise ConfigError(f"a {action} cannot last the session", key="for_session", fix=fix)
    return Answer(
        action,
        user.name,
        user.role,
        via=via,
        message=said.message,
        edited=said.updated_input,
        why=form.get("why", "").strip(),
        call=form.get("call") or None,
        for_session=for_session,
    )


def local(target: str) -> str:
    """``target`` when it is a path on this server; else ``/`` (no open redirect)."""
    return target if target.startswith("/") and not target.startswith("//") else "/"
