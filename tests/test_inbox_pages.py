"""What the inbox's pages show of a call: the terminal prompt's rows, escaped again as HTML.

Hostile input (markup, terminal escapes, bidi overrides, look-alike letters, a very long line)
must reach the page inert: no tag of its own, no control or bidi character, every line there,
and the look-alike flagged as the prompt flags it.
"""

from __future__ import annotations

import re

from hookline._inbox import pages
from hookline._inbox.pending import Pending, Waiting
from hookline._tools.approvals import ApprovalRequest

HOSTILE = {
    "command": "<script>alert(1)</script>\x1b[2J\u202eevil\u200b" + "x" * 3000 + "END",
    "url": 'https://раypal.com/"><img src=x onerror=alert(2)>',
}


def hostile_session(**overrides: object) -> Pending:
    request = ApprovalRequest(
        session_id="s1",
        tool_use_id="t1",
        tool_name="Bash<b>",
        tool_input=HOSTILE,
        original_input={"command": "ls"},
        reason="</pre><script>alert(3)</script>",
        source="a PreToolUse hook",
    )
    values: dict[str, object] = {
        "session_id": "s1",
        "paused_at": 1.0,
        "user": "<i>mallory</i>",
        "tenant": None,
        "prompt": "<script>alert(4)</script>",
        "calls": (Waiting(request),),
        "steps": ("assistant: <svg onload=alert(5)>",),
    }
    return Pending(**(values | overrides))  # type: ignore[arg-type]


def rendered(may_answer: bool = True) -> str:
    body = pages.pending_list([hostile_session()], csrf="tok", may_answer=may_answer)
    return pages.page("hookline inbox", body, user="ann", csrf="tok")


def test_hostile_input_is_inert_markup_and_no_control_or_bidi_character_survives() -> None:
    html = rendered()
    assert re.findall(r"<script\b[^>]*>", html) == ['<script src="static/inbox.js">']
    assert "<img" not in html and "<svg" not in html and "<i>" not in html
    assert html.count("<b>") == 1  # the page's own: who is signed in
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\x1b" not in html and "\u202e" not in html and "\u200b" not in html
    assert "\\x1b[2J" in html and "\\u202e" in html and "\\u200b" in html


def test_a_long_line_is_wrapped_with_the_prompt_marks_and_nothing_is_dropped() -> None:
    html = rendered()
    rows = re.findall(r"<span[^>]*>([^<]*)</span>", html)
    assert all(len(row) <= 2 * 100 for row in rows)  # escaped, at most twice the prompt's width
    assert sum(row.count("x") for row in rows if "↪" in row) > 2000
    assert "END" in html


def test_look_alike_letters_and_the_rewrite_are_flagged_as_at_the_terminal() -> None:
    html = rendered()
    assert "url: `раypal` mixes scripts (CYRILLIC, LATIN)" in html
    assert "rewritten by a hook (original → rewritten):" in html


def test_a_viewer_gets_no_answer_form() -> None:
    assert 'value="approve"' in rendered(may_answer=True)
    html = rendered(may_answer=False)
    assert 'action="answer"' not in html and "only an approver answers" in html


def test_every_form_carries_the_csrf_token() -> None:
    html = rendered()
    forms = re.findall(r"<form\b.*?</form>", html, flags=re.S)
    assert len(forms) == 5  # sign out, approve, approve for the session, deny, edit
    assert all('name="csrf" value="tok"' in form for form in forms)


def test_the_live_state_changes_when_a_call_is_added() -> None:
    one = pages.state_of([hostile_session()])
    two = pages.state_of([hostile_session(), hostile_session(session_id="s2")])
    assert one != two and "s2" in two and "s2" not in one
