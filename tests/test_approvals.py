"""Approvals: a real pseudo-terminal prompt, a real HTTP approver, the chain, the caller's policy
and the four replies an approver gives (allow or edit, deny, defer, unavailable with a reason)."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import select
import socket
import termios
import threading
from collections.abc import Iterator
from dataclasses import replace
from email.message import Message
from typing import Any

import pytest

from hookline import Agent, PermissionPolicy, ScriptedModel, tool
from hookline._claude.http import HttpClients
from hookline._cli.answers import answer_from_cli
from hookline._cli.approve_prompt import DENIED_BY_USER, TerminalApprover
from hookline._errors import ConfigError
from hookline._tools.approvals import (
    Approval,
    ApprovalRequest,
    Approver,
    ChainApprover,
    HttpApprover,
    NoApprover,
    Unavailable,
    request_approval,
)
from hookline.permissions._rules import PermissionRule
from hookline.permissions._session import SessionGrant
from local_http import RecordingServer, as_path_headers_body, ask_approver, serve

REQUEST = ApprovalRequest(
    session_id="sess-1",
    tool_use_id="toolu_1",
    tool_name="Bash",
    tool_input={"command": "ls -la"},
    reason="lists the home folder",
    source="PreToolUse hook guard.sh",
    user="ada",
    tenant="acme",
)
REWRITTEN = ApprovalRequest(
    session_id="sess-1",
    tool_use_id="toolu_2",
    tool_name="Bash",
    tool_input={"command": "rm -r /tmp/x --dry-run", "cwd": "/tmp"},
    original_input={"command": "rm -r /tmp/x", "force": True},
    reason="deletes files",
    source="PreToolUse hook safety.py",
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# -- the terminal, through a real pseudo-terminal ----------------------------------------------


class Terminal:
    """A pty: the approver reads and writes the slave end; the test plays the user at the master,
    sending each reply once the next prompt (``"> "``) shows."""

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        self.stdin = os.fdopen(slave, "r", encoding="utf-8")
        self.stdout = os.fdopen(os.dup(slave), "w", encoding="utf-8")
        self.raw = b""

    def close(self) -> None:
        self.stdin.close()
        self.stdout.close()
        os.close(self.master)

    @property
    def shown(self) -> str:
        """What the user saw (their own typing echoed), without colours and carriage returns."""
        return ANSI.sub("", self.raw.decode(errors="replace")).replace("\r", "")

    def run(self, *replies: bytes, request: ApprovalRequest = REQUEST, timeout: float = 10) -> Any:
        approver = TerminalApprover(self.stdin, self.stdout)
        done = threading.Event()
        user = threading.Thread(target=self._user, args=(list(replies), done), daemon=True)
        user.start()

        async def ask() -> Approval | Unavailable:
            return await asyncio.wait_for(approver.approve(request), timeout)

        try:
            return asyncio.run(ask())
        finally:
            done.set()
            user.join(5)
            self._drain(0)

    def _user(self, replies: list[bytes], done: threading.Event) -> None:
        prompts = 0
        while not done.is_set():
            self._drain(0.02)
            while replies and self.raw.count(b"> ") > prompts:
                prompts += 1
                os.write(self.master, replies.pop(0))

    def _drain(self, wait: float) -> None:
        while select.select([self.master], [], [], wait)[0]:
            self.raw += os.read(self.master, 65536)
            wait = 0


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    try:
        yield term
    finally:
        term.close()


def test_terminal_a_approves_and_shows_the_call(terminal: Terminal) -> None:
    assert terminal.run(b"a\n") == Approval("allow", approver="terminal")
    shown = terminal.shown
    assert "Bash needs your approval" in shown
    assert "  input (21 characters, 1 field):\n    command: ls -la\n" in shown  # field by field
    assert "asked by: PreToolUse hook guard.sh" in shown
    assert "reason:   lists the home folder" in shown
    assert "rewritten" not in shown


@pytest.mark.parametrize(
    ("replies", "message"),
    [
        ((b"d\n", b"use the staging database\n"), "use the staging database"),
        ((b"no\n", b"\n"), DENIED_BY_USER),
    ],
)
def test_terminal_deny_with_a_message_for_the_model(
    terminal: Terminal, replies: tuple[bytes, ...], message: str
) -> None:
    assert terminal.run(*replies) == Approval("deny", message, approver="terminal")


def test_terminal_edit_says_why_bad_json_is_refused_and_reads_on_until_it_parses(
    terminal: Terminal,
) -> None:
    replies = (b"e\n", b'{"command" "pwd"}\n', b'["pwd"]\n', b'{"command":\n', b'"pwd"}\n')
    answer = terminal.run(*replies)
    assert answer == Approval("allow", updated_input={"command": "pwd"}, approver="terminal")
    shown = terminal.shown
    assert "Not valid JSON: Expecting ':' delimiter" in shown
    assert "The input must be a JSON object, not an array." in shown
    assert "... > " in shown  # the unfinished object was read on over the next line
    assert 'now: {"command": "ls -la"}' in shown


def test_terminal_edit_with_an_empty_line_goes_back_to_the_question(terminal: Terminal) -> None:
    assert terminal.run(b"e\n", b"\n", b"y\n") == Approval("allow", approver="terminal")


def test_terminal_help_and_unknown_answers_ask_again(terminal: Terminal) -> None:
    assert terminal.run(b"?\n", b"abort\n", b"a\n") == Approval("allow", approver="terminal")
    assert "e: edit" in terminal.shown
    assert "Answer a, d, e or ?." in terminal.shown


GRANTED = replace(
    REQUEST,
    tool_input={"command": "npm test"},
    source="tier:mutating",
    session_grant=SessionGrant((PermissionRule.parse("Bash(npm test *)"),)),
)


def test_terminal_s_allows_for_the_session_what_the_request_offers(terminal: Terminal) -> None:
    answer = terminal.run(b"?\n", b"s\n", request=GRANTED)
    assert answer == Approval("allow", approver="terminal", scope="session")
    shown = terminal.shown
    assert "s allows for the rest of this session: Bash(npm test *)" in shown
    assert "Approve? [a/s/d/e/?] > " in shown
    assert "s: approve, and don't ask again this session for: Bash(npm test *)" in shown


def test_terminal_s_is_no_answer_where_nothing_can_be_allowed_for_the_session(
    terminal: Terminal,
) -> None:
    assert terminal.run(b"s\n", b"a\n") == Approval("allow", approver="terminal")
    shown = terminal.shown
    assert "Answer a, d, e or ?." in shown and "[a/s/" not in shown
    assert "rest of this session" not in shown


@pytest.mark.parametrize("key", [b"\x04", b"\x03"], ids=["ctrl-d", "ctrl-c"])
def test_terminal_end_of_input_or_ctrl_c_denies_saying_the_user_did_not_answer(
    terminal: Terminal, key: bytes
) -> None:
    answer = terminal.run(key)
    assert answer.permission == "deny"
    assert answer.message == "Bash was not run: the user did not answer the prompt."
    assert termios.tcgetattr(terminal.stdin.fileno())[3] & termios.ISIG  # Ctrl-C restored


def test_terminal_shows_the_rewrite_as_a_coloured_diff_of_keys(terminal: Terminal) -> None:
    terminal.run(b"a\n", request=REWRITTEN)
    shown = terminal.shown
    assert "rewritten by a hook (original → rewritten):" in shown
    assert '~ command: "rm -r /tmp/x" → "rm -r /tmp/x --dry-run"' in shown
    assert "- force: true" in shown
    assert '+ cwd: "/tmp"' in shown
    assert "asked by: PreToolUse hook safety.py" in shown
    assert "reason:   deletes files" in shown
    assert "\x1b[31m    - force: true" in terminal.raw.decode()  # red: click coloured it


def test_terminal_escapes_control_characters_so_input_cannot_restyle_the_prompt(
    terminal: Terminal,
) -> None:
    sneaky = ApprovalRequest("s", "t", "Bash", {"command": "ls\u009b2J"}, reason="\x1b]0;x\x07")
    terminal.run(b"a\n", request=sneaky)
    assert "\x9b" not in terminal.raw.decode() and "\x1b]" not in terminal.raw.decode()
    assert r"reason:   \x1b]0;x\x07" in terminal.shown  # display.shown's escapes
    assert r"ls\x9b2J" in terminal.shown


def test_terminal_prompt_cancelled_stops_reading_and_restores_the_terminal(
    terminal: Terminal,
) -> None:
    raised: list[BaseException] = []

    def nobody_answers() -> None:
        try:
            terminal.run(timeout=0.3)
        except BaseException as exc:  # whatever it was, the test looks at it
            raised.append(exc)

    # asyncio.run returns only once the reading thread has ended; were it still reading, this
    # thread would wait forever, and the (generous) join turns that hang into a failure.
    asker = threading.Thread(target=nobody_answers, daemon=True)
    asker.start()
    asker.join(60)
    assert not asker.is_alive(), "the reading thread never ended"
    assert [type(exc) for exc in raised] == [TimeoutError]
    assert termios.tcgetattr(terminal.stdin.fileno())[3] & termios.ISIG


def test_terminal_is_not_available_when_either_end_is_a_pipe(terminal: Terminal) -> None:
    assert TerminalApprover(terminal.stdin, terminal.stdout).available()
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as stdin, os.fdopen(write_fd, "w") as stdout:
        for ends in [(stdin, stdout), (stdin, terminal.stdout), (terminal.stdin, stdout)]:
            approver = TerminalApprover(*ends)
            assert not approver.available()
            answer = asyncio.run(approver.approve(REQUEST))
            assert answer == Unavailable(
                "there is no terminal to ask (stdin or stdout is not a TTY)"
            )


# -- the HTTP approver, against a real server --------------------------------------------------

HOOK_SHAPED = {
    "hookEventName": "PermissionRequest",
    "decision": {"behavior": "deny", "message": "no"},
}
ANSWERS: dict[str, tuple[int, Any]] = {
    "/allow": (200, {"behavior": "allow"}),
    "/deny": (200, {"behavior": "deny", "message": "not on Fridays"}),
    "/edit": (200, {"behavior": "allow", "updatedInput": {"command": "ls"}}),
    "/hook-shaped": (200, {"hookSpecificOutput": HOOK_SHAPED}),
    "/accepted": (202, None),
    "/no-content": (204, None),
    "/pending": (200, {"behavior": "pending"}),
    "/error": (500, {"behavior": "allow"}),
    "/redirect": (302, None),
    "/text": (200, "all good"),
    "/empty": (200, None),
    "/array": (200, ["allow"]),
    "/maybe": (200, {"behavior": "maybe"}),
    "/bad-input": (200, {"behavior": "allow", "updatedInput": "ls"}),
    "/session": (200, {"behavior": "allow", "scope": "session", "approver": "ann", "version": 1}),
    "/session-deny": (200, {"behavior": "deny", "scope": "session"}),
    "/session-edit": (200, {"behavior": "allow", "scope": "session", "updatedInput": {}}),
    "/version-2": (200, {"behavior": "allow", "version": 2}),
}


def encode(answer: Any) -> bytes:
    """A table answer as the server sends it: None is empty, text as is, anything else JSON."""
    raw = b"" if answer is None else (answer if isinstance(answer, str) else json.dumps(answer))
    return raw.encode() if isinstance(raw, str) else raw


#: Each request as ``(path, headers, JSON body)``; unknown paths are 404 with an empty body.
ApprovalServer = RecordingServer[tuple[str, Message, Any]]


@pytest.fixture
def server() -> Iterator[ApprovalServer]:
    answers = {path: (status, encode(answer)) for path, (status, answer) in ANSWERS.items()}
    httpd = RecordingServer(answers, record=as_path_headers_body, default=(404, b""), slow_wait=5)
    with serve(httpd):
        yield httpd


def ask_http(url: str, **options: Any) -> tuple[Approval | Unavailable, HttpApprover]:
    return ask_approver(url, REQUEST, **options)


def why_unavailable(answer: Approval | Unavailable) -> str:
    """The reason of an Unavailable reply; fails the test for any other."""
    assert isinstance(answer, Unavailable), answer
    return answer.why


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/allow", Approval("allow")),
        ("/deny", Approval("deny", "not on Fridays")),
        ("/edit", Approval("allow", updated_input={"command": "ls"})),
        ("/hook-shaped", Approval("deny", "no")),
    ],
)
def test_http_answers_become_approvals(
    server: ApprovalServer, path: str, expected: Approval
) -> None:
    answer, _ = ask_http(server.url(path))
    url = server.url(path)
    assert answer == Approval(
        expected.permission, expected.message, expected.updated_input, f"http:{url}"
    )
    assert isinstance(answer, Approval) and answer.origin == "approver"


def test_http_posts_every_request_field_as_json(server: ApprovalServer) -> None:
    ask_http(server.url("/allow"), headers={"Authorization": "Bearer t0k"})
    [(path, headers, body)] = server.seen
    assert path == "/allow"
    assert headers["Content-Type"] == "application/json"
    assert headers["Authorization"] == "Bearer t0k"
    assert body == {
        "version": 1,
        "session_id": "sess-1",
        "tool_use_id": "toolu_1",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "original_input": None,
        "reason": "lists the home folder",
        "source": "PreToolUse hook guard.sh",
        "user": "ada",
        "tenant": "acme",
        "cwd": None,
        "session_scope": None,
    }


def test_http_scope_session_allows_for_the_session(server: ApprovalServer) -> None:
    answer, approver = ask_http(server.url("/session"))
    assert answer == Approval("allow", approver=f"ann via http:{approver.host}", scope="session")


@pytest.mark.parametrize("path", ["/accepted", "/no-content", "/pending"])
def test_http_pending_is_a_deferral_by_that_approver(server: ApprovalServer, path: str) -> None:
    answer, _ = ask_http(server.url(path))
    assert answer == Approval.defer(approver=f"http:{server.url(path)}")
    assert isinstance(answer, Approval) and answer.permission == "defer"


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/error", "answered HTTP 500 Internal Server Error"),
        ("/redirect", "answered HTTP 302"),
        ("/text", "not a JSON object"),
        ("/empty", "not a JSON object"),
        ("/array", "not a JSON object"),
        ("/maybe", "with behavior 'maybe', not"),
        ("/bad-input", "an updatedInput that is not a JSON object"),
        ("/session-deny", 'scope "session" with something other than an allow of the input'),
        ("/session-edit", 'scope "session" with something other than an allow of the input'),
        ("/version-2", "version 2; this hookline reads version 1"),
    ],
)
def test_http_failures_are_unavailable_with_a_logged_reason(
    server: ApprovalServer, path: str, error: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer, _ = ask_http(server.url(path))
    why = why_unavailable(answer)
    assert error in why
    assert why in caplog.text


def free_port() -> int:
    """A port that was free a moment ago: nobody listens there."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_http_unreachable_is_unavailable_with_a_reason() -> None:
    port = free_port()
    answer, _ = ask_http(f"http://127.0.0.1:{port}/approve?token=s3cret#x")
    why = why_unavailable(answer)
    assert why.startswith(f"the approver at http://127.0.0.1:{port}/approve could not be reached")
    assert "ConnectError" in why
    assert "s3cret" not in why  # credentials stay out of logs and prompts


def test_http_timeout_is_unavailable_with_a_reason(server: ApprovalServer) -> None:
    answer, _ = ask_http(server.url("/slow"), timeout=0.2)
    assert "did not answer within 0.2s" in why_unavailable(answer)


def test_http_url_outside_allowed_urls_sends_nothing(server: ApprovalServer) -> None:
    answer, _ = ask_http(server.url("/allow"), allowed_urls=["https://approvals.example/*"])
    assert "allowedHttpHookUrls" in why_unavailable(answer)
    assert server.seen == []


def test_http_uses_only_the_clients_it_is_given_and_refuses_bad_urls() -> None:
    """Without a pool given, each request gets a client of its own (no pool is shared)."""
    pool = HttpClients()
    assert HttpApprover("http://127.0.0.1:9/approve", clients=pool).clients is pool
    assert HttpApprover("http://127.0.0.1:9/approve").clients is None
    with pytest.raises(ConfigError, match="not an http"):
        HttpApprover("ftp://approvals.example/")
    with pytest.raises(ConfigError, match="cannot be sent"):
        HttpApprover("http://approvals.example/", headers={"X-Name": "Zoë"})


# -- no approver, chains and the caller's policy -----------------------------------------------


class Scripted(Approver):
    """Replies ``reply`` and counts the requests."""

    def __init__(self, reply: Approval | Unavailable) -> None:
        self.reply, self.asked = reply, 0

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        self.asked += 1
        return self.reply


ALLOW = Approval.allow(approver="hook:first")
DENY = Approval.deny("not on Fridays", approver="ann")
LATER = Approval.defer("queued as ticket 7", approver="ann")
DOWN = "the approver at http://x/ answered HTTP 500"
DOWN_ = DOWN + "."  # at the end of a sentence


def test_no_approver_is_unavailable_and_says_why() -> None:
    assert asyncio.run(NoApprover().approve(REQUEST)) == Unavailable("no approver is configured")


def test_chain_takes_the_first_answer_after_unavailable_ones() -> None:
    first, second, third = Scripted(Unavailable("no terminal")), Scripted(ALLOW), Scripted(ALLOW)
    assert asyncio.run(ChainApprover(first, second, third).approve(REQUEST)) is ALLOW
    assert (first.asked, second.asked, third.asked) == (1, 1, 0)


def test_chain_stops_at_a_deferral() -> None:
    later = Scripted(ALLOW)
    assert asyncio.run(ChainApprover(Scripted(LATER), later).approve(REQUEST)) is LATER
    assert later.asked == 0


def test_chain_without_answers_joins_the_reasons() -> None:
    chain = ChainApprover(Scripted(Unavailable("no terminal")), NoApprover())
    joined = Unavailable("no terminal; no approver is configured")
    assert asyncio.run(chain.approve(REQUEST)) == joined
    empty = Unavailable("no approver is configured")
    assert asyncio.run(ChainApprover().approve(REQUEST)) == empty


NOT_RUN = "Bash was not run: it needs approval (lists the home folder) and nobody gave it: "
PENDING = "the answer is pending and this run cannot wait for it."
NOT_A_REPLY = "Scripted replied None, not an Approval."


@pytest.mark.parametrize(
    ("reply", "can_defer", "expected", "origin"),
    [
        (ALLOW, False, ALLOW, "approver"),
        (DENY, True, DENY, "approver"),
        (LATER, True, LATER, "approver"),  # the approver holds it, and the run can wait
        (LATER, False, Approval.deny(NOT_RUN + PENDING, approver="none"), "unanswered"),
        (Unavailable(DOWN), True, Approval.defer(DOWN, approver="none"), "unanswered"),
        (Unavailable(DOWN), False, Approval.deny(NOT_RUN + DOWN_, approver="none"), "unanswered"),
        (None, False, Approval.deny(NOT_RUN + NOT_A_REPLY, approver="none"), "unanswered"),
    ],
    ids=[
        "allowed",
        "denied",
        "deferred",
        "deferred-cannot-wait",
        "unavailable-run-waits",
        "unavailable-denies",
        "not-a-reply-denies",
    ],
)
def test_request_approval_keeps_answers_pauses_when_it_may_and_otherwise_denies(
    reply: Any, can_defer: bool, expected: Approval, origin: str
) -> None:
    answer = asyncio.run(request_approval(Scripted(reply), REQUEST, can_defer=can_defer))
    assert answer == expected
    assert answer.origin == origin


def test_approval_keeps_its_former_name_for_the_permission() -> None:
    assert Approval.deny("no").behavior == Approval.deny("no").permission == "deny"


# -- in a run: what each reply does to the call ------------------------------------------------


def asking_agent(tmp_path: Any, approver: Approver, **options: Any) -> tuple[Agent, Any]:
    """An agent whose one tool needs approval (the default tiers ask), and the sentinel file
    its body makes."""
    sentinel = tmp_path / "SENTINEL"

    @tool
    def make_sentinel() -> str:
        """Make the sentinel file."""
        sentinel.write_text("ran")
        return "made"

    agent = Agent(ScriptedModel([]), tools=[make_sentinel], cwd=tmp_path,
                  permissions=PermissionPolicy(), approver=approver, **options)  # fmt: skip
    return agent, sentinel


def run_asking(tmp_path: Any, approver: Approver, **options: Any) -> tuple[Any, Any]:
    """The result of the one call that needs approval, and the sentinel its body would make."""
    agent, sentinel = asking_agent(tmp_path, approver, **options)
    return asyncio.run(agent.call_tool("make_sentinel", {})), sentinel


def test_in_a_run_an_approval_runs_the_call_and_says_who_allowed_it(tmp_path: Any) -> None:
    result, sentinel = run_asking(tmp_path, Scripted(Approval.allow(approver="ann")))
    assert (result.status, result.permission, result.origin) == ("executed", "allow", "approver")
    assert result.approver == "ann" and sentinel.exists()


def test_in_a_run_an_approvers_refusal_blocks_with_origin_approver(tmp_path: Any) -> None:
    result, sentinel = run_asking(tmp_path, Scripted(DENY))
    assert (result.status, result.permission, result.origin) == ("blocked", "deny", "approver")
    assert result.reason == "not on Fridays" and result.approver == "ann"
    assert not sentinel.exists()


def test_in_a_run_a_deferral_pauses_when_asks_may_wait(tmp_path: Any) -> None:
    result, sentinel = run_asking(tmp_path, Scripted(LATER), defer_asks=True)
    assert (result.status, result.permission, result.origin) == ("deferred", "defer", "approver")
    assert not sentinel.exists()


def test_in_a_run_an_unreachable_http_approver_fails_closed(tmp_path: Any) -> None:
    approver = HttpApprover(f"http://127.0.0.1:{free_port()}/approve")
    result, sentinel = run_asking(tmp_path, approver)
    assert (result.status, result.permission, result.origin) == ("blocked", "deny", "unanswered")
    assert "nobody gave it: the approver at http://127.0.0.1:" in (result.reason or "")
    assert "could not be reached" in (result.reason or "")
    assert not sentinel.exists()


def test_in_a_run_an_unavailable_approver_pauses_when_asks_may_wait(tmp_path: Any) -> None:
    result, sentinel = run_asking(tmp_path, NoApprover(), defer_asks=True)
    assert (result.status, result.permission, result.origin) == ("deferred", "defer", "unanswered")
    assert not sentinel.exists()


def test_in_a_run_a_permission_request_hook_answers_with_its_own_origin(tmp_path: Any) -> None:
    agent, sentinel = asking_agent(tmp_path, Scripted(ALLOW))
    refusal = {"behavior": "deny", "message": "not here"}
    said = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": refusal}}
    agent.registry.add("PermissionRequest", lambda e: said, name="gate")
    result = asyncio.run(agent.call_tool("make_sentinel", {}))
    assert (result.status, result.permission, result.origin) == ("blocked", "deny", "json")
    assert (result.reason, result.approver) == ("not here", "hook:gate")
    assert not sentinel.exists()


# -- answers given on the command line ---------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ((True, None, None), Approval("allow", approver="cli")),
        ((False, " use staging ", None), Approval("deny", "use staging", approver="cli")),
        ((False, None, '{"command": "ls"}'), Approval("allow", None, {"command": "ls"}, "cli")),
    ],
)
def test_answer_from_cli(flags: tuple[bool, str | None, str | None], expected: Approval) -> None:
    assert answer_from_cli(*flags) == expected


@pytest.mark.parametrize(
    ("flags", "key", "message"),
    [
        ((False, None, None), "--approve/--deny/--edit", "no answer was given"),
        ((True, "no", None), "--approve/--deny/--edit", "--approve and --deny were given together"),
        ((False, "", "{}"), "--approve/--deny/--edit", "--deny and --edit were given together"),
        ((False, "  ", None), "--deny", "the message is empty"),
        ((False, None, '{"command": '), "--edit", "not valid JSON"),
        ((False, None, '["ls"]'), "--edit", "must be a JSON object, not an array"),
        ((False, None, '"ls"'), "--edit", "must be a JSON object, not a string"),
    ],
)
def test_answer_from_cli_errors_name_the_flag_and_the_fix(
    flags: tuple[bool, str | None, str | None], key: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        answer_from_cli(*flags)
    assert caught.value.key == key
    assert message in caught.value.message
    assert caught.value.fix
