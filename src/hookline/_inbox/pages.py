"""The inbox's HTML: every value escaped, every form with its CSRF token.

Every URL is relative (the inbox serves on its own and under ``/inbox`` in ``hookline serve``).
What a call shows is the terminal prompt's rows (``Waiting.lines``): already through
``display.shown`` (escapes, bidi and zero-width characters written out, look-alikes flagged),
then through ``html.escape`` here, in a ``<pre>`` that wraps. Nothing a model, a tool or a hook
wrote is ever markup; the page's Content-Security-Policy (``app``) allows no inline script
either, so even a value that slipped through would stay inert.
"""

from __future__ import annotations

import json
import time
from html import escape
from typing import TYPE_CHECKING, Final

from hookline._agent.saved.deadline import when
from hookline._support.display import shown

if TYPE_CHECKING:
    from hookline._inbox.answer import Outcome
    from hookline._inbox.links import Link
    from hookline._inbox.pending import Live, Pending, Waiting

CSS: Final = """
body{font:15px/1.4 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.6rem;margin:.4rem 0}
.session{border:1px solid #ccc;border-radius:6px;padding:.8rem;margin:1rem 0}
.steps{color:#555;font-size:13px}
.fg-red{color:#b00}.fg-yellow{color:#8a6d00}.fg-magenta{color:#909}.fg-cyan{color:#077}
.fg-blue{color:#037}.fg-green{color:#070}.bold{font-weight:bold}.dim{opacity:.7}
form.answer{display:inline-block;vertical-align:top;margin:.3rem 1rem .3rem 0}
textarea{width:34rem;max-width:100%}.flash{padding:.6rem;background:#eef}
.refused{background:#fee}
"""
JS: Final = """
const box = document.getElementById("pending");
function typing() {
  return [...document.querySelectorAll("#pending textarea, #pending input[type=text]")]
    .some((field) => field.value !== field.defaultValue);
}
if (box) {
  const stream = new EventSource("events");
  stream.addEventListener("pending", async (event) => {
    if (event.data === box.dataset.state) return;
    if (typing()) { document.getElementById("changed").hidden = false; return; }
    const reply = await fetch("fragment", {credentials: "same-origin"});
    if (reply.ok) { box.outerHTML = await reply.text(); location.hash = ""; }
  });
}
"""

_LOOK_ONLY: Final = "<p>You may look; only an approver answers.</p>"
#: What makes an approval one for the rest of the session, and what that allows.
_FOR_SESSION: Final = (
    '<input type="hidden" name="for_session" value="1">'
    '<p class="steps">Also allows, for the rest of this session, what this ask offers at the '
    "terminal (all edits in the workspace for a file edit, the command for Bash); never past "
    "a deny rule, the protected set or the dangerous tier.</p>"
)


def page(title: str, body: str, *, user: str | None = None, csrf: str = "") -> str:
    """A whole page around ``body`` (already HTML)."""
    who = ""
    if user is not None:
        who = (
            f'<form method="post" action="logout" class="answer">signed in as '
            f"<b>{escape(shown(user))}</b> {_csrf(csrf)}"
            '<button type="submit">Sign out</button></form>'
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title>"
        '<link rel="stylesheet" href="static/inbox.css"></head><body>'
        f"<h1>{escape(title)}</h1>{who}{body}"
        '<script src="static/inbox.js"></script></body></html>'
    )


def login(csrf: str, *, error: str = "", next: str = "/") -> str:
    said = f'<p class="flash refused">{escape(error)}</p>' if error else ""
    return page(
        "hookline inbox: sign in",
        f'{said}<form method="post" action="login">{_csrf(csrf)}'
        f'<input type="hidden" name="next" value="{escape(next)}">'
        '<p><label>Name <input name="name" autocomplete="username" required></label></p>'
        '<p><label>Password <input name="password" type="password" '
        'autocomplete="current-password" required></label></p>'
        '<button type="submit">Sign in</button></form>',
    )


def pending_list(found: list[Pending], *, csrf: str, may_answer: bool) -> str:
    """The list of paused sessions (the part the live stream replaces)."""
    state = escape(state_of(found))
    items = "".join(_session(p, csrf=csrf, may_answer=may_answer) for p in found)
    empty = "" if found else "<p>No call waits for an answer.</p>"
    changed = '<p id="changed" class="flash" hidden>The list changed: reload to see it.</p>'
    return f'<div id="pending" data-state="{state}">{changed}{empty}{items}</div>'


def state_of(found: list[Pending]) -> str:
    """What the live stream compares: each session, its pause and its waiting calls."""
    return json.dumps(
        [
            [p.session_id, p.paused_at, [w.request.tool_use_id for w in p.calls]]
            + ([p.live.id] if p.live else [])
            for p in found
        ]
    )


def result(outcome: Outcome) -> str:
    kind = "flash" if outcome.applied else "flash refused"
    calls = "".join(
        f"<li>{escape(shown(call))}: {escape(shown(status))}</li>"
        for call, status in outcome.calls.items()
    )
    return (
        f'<p class="{kind}">{escape(shown(outcome.said))}</p>'
        f'<ul>{calls}</ul><p><a href="./">Back to the inbox</a></p>'
    )


def message(text: str, *, refused: bool = True) -> str:
    kind = "flash refused" if refused else "flash"
    return f'<p class="{kind}">{escape(text)}</p><p><a href="./">Back to the inbox</a></p>'


def link_page(p: Pending, waiting: Waiting, link: Link, token: str, csrf: str) -> str:
    """A signed link opened: the call, and one button that answers it (a GET never does)."""
    verb = "Approve" if link.action == "approve" else "Deny"
    deny = ""
    if link.action == "deny":
        deny = _field("message", "Message for the model", "Denied by the user.")
    return (
        _header(p)
        + _call(waiting)
        + f'<form method="post" action="link" class="answer">{_csrf(csrf)}'
        f'<input type="hidden" name="t" value="{escape(token)}">{deny}'
        f"{_field('why', 'Why (for the record)', '')}"
        f'<button type="submit" name="action" value="{escape(link.action)}">{verb}</button></form>'
    )


def _session(p: Pending, *, csrf: str, may_answer: bool) -> str:
    if p.live is not None:
        return _live(p, p.live, csrf=csrf, may_answer=may_answer)
    each = may_answer and len(p.calls) > 1  # several calls: each can be answered on its own
    calls = "".join(_call(w) + (_call_forms(p, w, csrf) if each else "") for w in p.calls)
    forms = _forms(p, csrf) if may_answer else _LOOK_ONLY
    return (
        f'<section class="session" id="s-{escape(p.session_id)}">{_header(p)}{calls}'
        f"{_steps(p)}{forms}</section>"
    )


def _steps(p: Pending) -> str:
    """The session's recent steps (each ``shown`` already), oldest first."""
    steps = "".join(f"<li>{escape(step)}</li>" for step in p.steps)
    return f'<details class="steps"><summary>Recent steps</summary><ol>{steps}</ol></details>'


def _live(p: Pending, live: Live, *, csrf: str, may_answer: bool) -> str:
    """A live ask: the host waits on it, until its deadline: approve, deny or edit."""
    forms = _live_forms(p, live, csrf) if may_answer else _LOOK_ONLY
    return (
        f'<section class="session live" id="a-{escape(live.id)}">{_live_header(p, live)}'
        f"{''.join(_call(w) for w in p.calls)}{_steps(p)}{forms}</section>"
    )


def _live_header(p: Pending, live: Live) -> str:
    named = (
        ("agent", live.agent),
        ("for", p.user),
        ("tenant", p.tenant),
        ("from", live.peer),
        ("session", p.session_id),
    )
    who = ", ".join(f"{label} {escape(shown(value))}" for label, value in named if value)
    until = time.strftime("%H:%M:%S UTC", time.gmtime(live.deadline))
    return (
        f"<h2>{escape(shown(live.host))} waits on this call ({who})</h2>"
        f'<p class="deadline">Answer by {until}: after it, the host gets the answer on '
        "expiry.</p>"
    )


def _live_forms(p: Pending, live: Live, csrf: str) -> str:
    ask = f'<input type="hidden" name="ask" value="{escape(live.id)}">'
    why = _field("why", "Why (for the record)", "")
    message = _field("message", "Message for the model", "Denied by the user.")
    approve = _form(ask, csrf, why, "approve", "Approve")
    if live.grant is not None:
        lasting = (
            '<input type="hidden" name="for_session" value="1">'
            f'<p class="steps">Also allows this session of {escape(shown(live.host))} from now '
            f"on: {escape(shown(live.grant))}; never past a deny rule, an ask rule, the "
            "protected set, hookline's own state or the dangerous tier.</p>"
        )
        approve += _form(ask + lasting, csrf, why, "approve", "Approve for this session")
    return approve + _form(ask, csrf, message + why, "deny", "Deny") + _edit_form(p, ask, csrf)


def _header(p: Pending) -> str:
    if p.live is not None:
        return _live_header(p, p.live)
    user = f", for {escape(shown(p.user))}" if p.user else ""
    tenant = f" (tenant {escape(shown(p.tenant))})" if p.tenant else ""
    return (
        f"<h2>Session <code>{escape(shown(p.session_id))}</code>{user}{tenant}</h2>"
        f"<p>Prompt: {escape(shown(p.prompt)[:300])}</p>{_deadline(p)}"
    )


def _deadline(p: Pending) -> str:
    """A paused session's deadline: answer by it; past it, an answer is refused."""
    if p.deadline is None:
        return ""
    until = when(p.deadline)
    if p.expired():
        return (
            f'<p class="deadline refused">Its deadline passed at {until}: an answer now is '
            "refused, and the waiting calls are denied as expired.</p>"
        )
    return (
        f'<p class="deadline">Answer by {until}: after it, an answer is refused and the '
        "waiting calls are denied.</p>"
    )


def _call(waiting: Waiting) -> str:
    rows = []
    for line in waiting.lines:
        classes = [f"fg-{line.style['fg']}"] if "fg" in line.style else []
        classes += [name for name in ("bold", "dim") if line.style.get(name)]
        kind = f' class="{" ".join(classes)}"' if classes else ""
        rows.append(f"<span{kind}>{escape(line.text)}</span>")
    return f'<pre class="call">{chr(10).join(rows)}</pre>'


def _forms(p: Pending, csrf: str) -> str:
    session = f'<input type="hidden" name="session" value="{escape(p.session_id)}">'
    why = _field("why", "Why (for the record)", "")
    approve = _form(session, csrf, why, "approve", "Approve")
    deny = _form(
        session,
        csrf,
        _field("message", "Message for the model", "Denied by the user.") + why,
        "deny",
        "Deny",
    )
    lasting = _form(session + _FOR_SESSION, csrf, why, "approve", "Approve for this session")
    approve += lasting
    if len(p.calls) != 1:  # an edit is one call's new input
        return approve + deny
    return approve + deny + _edit_form(p, session, csrf)


def _edit_form(p: Pending, hidden: str, csrf: str) -> str:
    """Run another input instead of the one call waiting, judged again before it runs."""
    now = json.dumps(p.calls[0].request.tool_input, ensure_ascii=True, indent=1)
    edit = (
        f"<p><label>New input (JSON; judged again by the hooks and rules before it runs)"
        f'<br><textarea name="edited" rows="4">{escape(now)}</textarea></label></p>'
    )
    why = _field("why", "Why (for the record)", "")
    return _form(hidden, csrf, edit + why, "edit", "Run this instead")


def _call_forms(p: Pending, waiting: Waiting, csrf: str) -> str:
    """Approve or deny one call of several; the others keep waiting (they ask again)."""
    call = escape(waiting.request.tool_use_id)
    hidden = (
        f'<input type="hidden" name="session" value="{escape(p.session_id)}">'
        f'<input type="hidden" name="call" value="{call}">'
    )
    message = _field("message", "Message for the model", "Denied by the user.")
    return (
        f'<div class="one-call">{_form(hidden, csrf, "", "approve", "Approve this call")}'
        f"{_form(hidden, csrf, message, 'deny', 'Deny this call')}</div>"
    )


def _form(hidden: str, csrf: str, fields: str, action: str, label: str) -> str:
    return (
        f'<form method="post" action="answer" class="answer">{_csrf(csrf)}{hidden}'
        f'{fields}<button type="submit" name="action" value="{action}">{label}</button>'
        "</form>"
    )


def _field(name: str, label: str, placeholder: str) -> str:
    return (
        f'<p><label>{escape(label)}<br><input type="text" name="{name}" '
        f'placeholder="{escape(placeholder)}" size="50"></label></p>'
    )


def _csrf(token: str) -> str:
    return f'<input type="hidden" name="csrf" value="{escape(token)}">'
