"""Approvals: a real pseudo-terminal prompt, a real HTTP approver, the chain, the CLI answers."""

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
import time
from collections.abc import Iterator
from email.message import Message
from typing import Any

import pytest

from hookline.claude.http import HTTP_CLIENTS
from hookline.cli.approve_prompt import DENIED_BY_USER, TerminalApprover
from hookline.errors import ConfigError
from hookline.tools.approvals import (
    Approval,
    ApprovalRequest,
    Approver,
    ChainApprover,
    HttpApprover,
    NoApprover,
    answer_from_cli,
    request_approval,
)
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

        async def ask() -> Approval | None:
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


@pytest.mark.parametrize("key", [b"\x04", b"\x03"], ids=["ctrl-d", "ctrl-c"])
def test_terminal_end_of_input_or_ctrl_c_denies_saying_the_user_did_not_answer(
    terminal: Terminal, key: bytes
) -> None:
    answer = terminal.run(key)
    assert answer.behavior == "deny"
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
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        terminal.run(timeout=0.3)  # nobody answers
    assert time.monotonic() - started < 3  # the reading thread ended: asyncio.run returned
    assert termios.tcgetattr(terminal.stdin.fileno())[3] & termios.ISIG


def test_terminal_is_not_available_when_either_end_is_a_pipe(terminal: Terminal) -> None:
    assert TerminalApprover(terminal.stdin, terminal.stdout).available()
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as stdin, os.fdopen(write_fd, "w") as stdout:
        for ends in [(stdin, stdout), (stdin, terminal.stdout), (terminal.stdin, stdout)]:
            approver = TerminalApprover(*ends)
            assert not approver.available()
            assert asyncio.run(approver.approve(REQUEST)) is None
            assert "not a TTY" in (approver.last_error or "")


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


def ask_http(url: str, **options: Any) -> tuple[Approval | None, HttpApprover]:
    return ask_approver(url, REQUEST, **options)


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
    answer, approver = ask_http(server.url(path))
    url = server.url(path)
    assert answer == Approval(
        expected.behavior, expected.message, expected.updated_input, f"http:{url}"
    )
    assert approver.last_error is None


def test_http_posts_every_request_field_as_json(server: ApprovalServer) -> None:
    ask_http(server.url("/allow"), headers={"Authorization": "Bearer t0k"})
    [(path, headers, body)] = server.seen
    assert path == "/allow"
    assert headers["Content-Type"] == "application/json"
    assert headers["Authorization"] == "Bearer t0k"
    assert body == {
        "session_id": "sess-1",
        "tool_use_id": "toolu_1",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "original_input": None,
        "reason": "lists the home folder",
        "source": "PreToolUse hook guard.sh",
        "user": "ada",
        "tenant": "acme",
    }


@pytest.mark.parametrize("path", ["/accepted", "/no-content", "/pending"])
def test_http_pending_is_none_without_an_error(server: ApprovalServer, path: str) -> None:
    answer, approver = ask_http(server.url(path))
    assert answer is None
    assert approver.last_error is None


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/error", "answered HTTP 500 Internal Server Error"),
        ("/redirect", "answered HTTP 302"),
        ("/text", "not a JSON object"),
        ("/empty", "not a JSON object"),
        ("/array", "not a JSON object"),
        ("/maybe", "answered behavior 'maybe'"),
        ("/bad-input", "not an object"),
    ],
)
def test_http_failures_are_none_with_a_logged_reason(
    server: ApprovalServer, path: str, error: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer, approver = ask_http(server.url(path))
    assert answer is None
    assert error in (approver.last_error or "")
    assert (approver.last_error or "?") in caplog.text


def test_http_refused_connection_is_none_with_a_reason() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    answer, approver = ask_http(f"http://127.0.0.1:{port}/approve?token=s3cret#x")
    assert answer is None
    error = approver.last_error or ""
    assert error.startswith(f"the approver at http://127.0.0.1:{port}/approve could not be reached")
    assert "ConnectError" in error
    assert "s3cret" not in error  # credentials stay out of logs and prompts


def test_http_timeout_is_none_with_a_reason(server: ApprovalServer) -> None:
    answer, approver = ask_http(server.url("/slow"), timeout=0.2)
    assert answer is None
    assert "did not answer within 0.2s" in (approver.last_error or "")


def test_http_url_outside_allowed_urls_sends_nothing(server: ApprovalServer) -> None:
    answer, approver = ask_http(server.url("/allow"), allowed_urls=["https://approvals.example/*"])
    assert answer is None
    assert "allowedHttpHookUrls" in (approver.last_error or "")
    assert server.seen == []


def test_http_shares_the_hook_clients_and_refuses_bad_urls() -> None:
    assert HttpApprover("http://127.0.0.1:9/approve").clients is HTTP_CLIENTS
    with pytest.raises(ConfigError, match="not an http"):
        HttpApprover("ftp://approvals.example/")
    with pytest.raises(ConfigError, match="cannot be sent"):
        HttpApprover("http://approvals.example/", headers={"X-Name": "Zoë"})


# -- no approver, chains and the caller's policy -----------------------------------------------


class Scripted(Approver):
    """Answers ``answer``, with ``error`` as ``last_error`` when it gives None."""

    def __init__(self, answer: Approval | None = None, error: str | None = None) -> None:
        self.answer, self.error, self.asked = answer, error, 0

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        self.asked += 1
        self.last_error = None if self.answer else self.error
        return self.answer


ALLOW = Approval.allow(approver="hook:first")
DOWN = "the approver at http://x/ answered HTTP 500"


def test_no_approver_never_answers_and_says_why() -> None:
    approver = NoApprover()
    assert asyncio.run(approver.approve(REQUEST)) is None
    assert approver.last_error == "no approver is configured"


def test_chain_takes_the_first_answer_after_failures() -> None:
    first, second, third = Scripted(error="no terminal"), Scripted(ALLOW), Scripted(ALLOW)
    assert asyncio.run(ChainApprover(first, second, third).approve(REQUEST)) is ALLOW
    assert (first.asked, second.asked, third.asked) == (1, 1, 0)


def test_chain_stops_at_a_pending_approver() -> None:
    later = Scripted(ALLOW)
    chain = ChainApprover(Scripted(None), later)
    assert asyncio.run(chain.approve(REQUEST)) is None
    assert chain.last_error is None
    assert later.asked == 0


def test_chain_without_answers_joins_the_reasons() -> None:
    chain = ChainApprover(Scripted(error="no terminal"), NoApprover())
    assert asyncio.run(chain.approve(REQUEST)) is None
    assert chain.last_error == "no terminal; no approver is configured"
    empty = ChainApprover()
    assert asyncio.run(empty.approve(REQUEST)) is None
    assert empty.last_error == "no approver is configured"


NOT_RUN = "Bash was not run: it needs approval (lists the home folder) and nobody gave it: "


@pytest.mark.parametrize(
    ("approver", "can_defer", "expected"),
    [
        (Scripted(ALLOW), False, ALLOW),
        (Scripted(None), True, None),  # pending, and the run can wait: defer
        (
            Scripted(None),
            False,
            Approval.deny(NOT_RUN + "the answer is pending and this run cannot wait for it."),
        ),
        (Scripted(error=DOWN), True, Approval.deny(NOT_RUN + DOWN + ".")),  # never defers
        (NoApprover(), True, Approval.deny(NOT_RUN + "no approver is configured.")),
    ],
    ids=["answer", "pending-defers", "pending-cannot-wait", "failure-denies", "none-denies"],
)
def test_request_approval_defers_only_a_pending_request_and_otherwise_denies(
    approver: Approver, can_defer: bool, expected: Approval | None
) -> None:
    answer = asyncio.run(request_approval(approver, REQUEST, can_defer=can_defer))
    if expected is not None and expected.behavior == "deny":
        expected = Approval.deny(expected.message or "", approver="none")
    assert answer == expected


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
