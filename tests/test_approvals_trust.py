"""The HTTP approver can be trusted: a bearer token, https or loopback, no redirects, a bounded
answer, a timeout from the flags, and the person who answered in the audit. Real servers on
127.0.0.1; the CLI run for real in a subprocess."""

from __future__ import annotations

import asyncio
import gzip
import json
import resource
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

import hookline
from cli_runner import hookline as run_hookline
from hookline import Agent, Decision, ScriptedModel
from hookline._claude.http import HttpClients
from hookline._cli.launch import Launch
from hookline._errors import ConfigError
from hookline._tools.approvals import (
    DEFAULT_MAX_BYTES,
    Approval,
    ApprovalRequest,
    HttpApprover,
    Unavailable,
    request_approval,
)
from local_http import RecordingHandler, RecordingServer, ask_approver, gzip_bomb, serve

TOKEN = "t0k-right.Secret_9"
REQUEST = ApprovalRequest("sess-1", "toolu_1", "Bash", {"command": "ls"}, reason="lists")
ANN = {"behavior": "allow", "approver": "ann@example.com"}


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    length: bool = True  # send Content-Length (else the body ends when the connection closes)


def as_json(data: Any, **headers: str) -> Reply:
    return Reply(200, json.dumps(data).encode(), {"Content-Type": "application/json", **headers})


class TrustHandler(RecordingHandler):
    """Answers ``server.replies[path]``; 401 when the server wants a token and did not get it."""

    server: TrustServer

    def do_POST(self) -> None:
        httpd = self.server
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        httpd.seen.append((self.path, self.headers))
        reply = httpd.replies.get(self.path, Reply(404))
        if httpd.token and self.headers.get("Authorization") != f"Bearer {httpd.token}":
            reply = Reply(401, b'{"error": "who are you?"}')
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.length:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)


class TrustServer(RecordingServer[tuple[str, Message]]):
    def __init__(self, replies: dict[str, Reply], *, token: str | None = None) -> None:
        super().__init__({}, record=lambda handler, body: (handler.path, handler.headers))
        self.RequestHandlerClass = TrustHandler
        self.replies, self.token = replies, token


@pytest.fixture
def other() -> Iterator[TrustServer]:
    """Where a redirect points: it must never be asked."""
    httpd = TrustServer({"/approve": as_json({"behavior": "allow"})})
    with serve(httpd):
        yield httpd


@pytest.fixture
def server(other: TrustServer) -> Iterator[TrustServer]:
    replies = {
        "/approve": as_json(ANN),
        "/redirect": Reply(307, headers={"Location": other.url("/approve")}),
        "/bomb": Reply(200, gzip_bomb(), {"Content-Encoding": "gzip"}, length=False),
        "/small-gzip": Reply(
            200, gzip.compress(json.dumps(ANN).encode()), {"Content-Encoding": "gzip"}
        ),
        "/big": as_json({"behavior": "allow", "message": "x" * DEFAULT_MAX_BYTES}),
        "/big-unsized": Reply(200, b" " * (2 * DEFAULT_MAX_BYTES) + b"{}", length=False),
        "/brotli": Reply(200, b"\x0b\x02\x80{}\x03", {"Content-Encoding": "br"}),
        "/control": as_json({"behavior": "allow", "approver": "ann\x1b[2J"}),
        "/not-a-name": as_json({"behavior": "allow", "approver": ["ann"]}),
    }
    httpd = TrustServer(replies, token=TOKEN)
    with serve(httpd):
        yield httpd


def ask(url: str, **options: Any) -> tuple[Approval | Unavailable, HttpApprover]:
    return ask_approver(url, REQUEST, **options)


def why_unavailable(answer: Approval | Unavailable) -> str:
    """The reason of an Unavailable reply; fails the test for any other."""
    assert isinstance(answer, Unavailable), answer
    return answer.why


# -- the token --------------------------------------------------------------------------------


def test_the_token_arrives_as_a_bearer_token_and_the_answer_names_who_gave_it(
    server: TrustServer,
) -> None:
    answer, _ = ask(server.url("/approve"), token=TOKEN)
    host = server.url("").removeprefix("http://")
    assert answer == Approval("allow", approver=f"ann@example.com via http:{host}")
    [(_, headers)] = server.seen
    assert headers["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("token", [None, "t0k-wrong"])
def test_a_missing_or_wrong_token_answered_401_is_no_answer_and_the_call_is_refused(
    server: TrustServer, token: str | None
) -> None:
    answer, approver = ask(server.url("/approve"), token=token)
    assert "answered HTTP 401 Unauthorized" in why_unavailable(answer)
    refused = asyncio.run(request_approval(approver, REQUEST))  # the caller's policy: a deny
    assert (refused.permission, refused.origin) == ("deny", "unanswered")
    assert "HTTP 401" in (refused.message or "")


@pytest.mark.parametrize("token", ["", "two words", "line\nbreak", "z\u00f6e"])
def test_a_token_that_cannot_be_sent_is_refused_without_showing_it(token: str) -> None:
    with pytest.raises(ConfigError) as caught:
        HttpApprover("https://approvals.example/", token=token)
    assert caught.value.key == "--approver-token"
    assert "HOOKLINE_APPROVER_TOKEN" in (caught.value.fix or "")
    assert not token or token not in str(caught.value)


def test_the_token_is_masked_in_a_reason_and_absent_from_reprs() -> None:
    approver = HttpApprover("http://127.0.0.1:9/approve", token=TOKEN)
    assert approver._masked(f"x {TOKEN} y") == "x [token] y"
    assert TOKEN not in repr(approver.headers)
    assert TOKEN not in repr(Launch(cwd="/", approver_token=TOKEN))
    assert "approver_token" not in Launch(cwd="/", approver_token=TOKEN).to_dict()  # never saved


# -- where it may go ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://example.com/approve", "plain http to another host"),
        ("http://10.0.0.7:8080/approve", "plain http to another host"),
        ("http://127.0.0.1.example.com/", "plain http to another host"),
        ("https://bot:pw@approvals.example/approve", "carries userinfo"),
        ("http://localhost@example.com/", "carries userinfo"),
        ("ftp://approvals.example/", "not an http(s) URL"),
    ],
)
def test_an_url_that_is_not_https_or_loopback_or_has_userinfo_is_refused_when_built(
    url: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        HttpApprover(url, clients=_Untouchable())  # no network: no client is ever made
    assert caught.value.key == "--approver-url"
    assert message in caught.value.message
    assert caught.value.fix
    assert "pw" not in str(caught.value)


def test_the_fix_for_plain_http_is_the_https_url() -> None:
    with pytest.raises(ConfigError) as caught:
        HttpApprover("http://example.com/approve?token=s3cret")
    assert "https://example.com/approve" in (caught.value.fix or "")
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    ["https://approvals.example/", "http://127.0.0.1:1/", "http://127.8.9.10/",
     "http://[::1]:8000/", "http://localhost:8000/", "http://LOCALHOST/"],
)  # fmt: skip
def test_https_anywhere_and_http_to_loopback_are_accepted(url: str) -> None:
    assert HttpApprover(url).url == url


class _Untouchable(HttpClients):
    def client(self) -> Any:
        raise AssertionError("a refused URL must not touch the network")


# -- what it answers ---------------------------------------------------------------------------


def test_a_redirect_is_not_followed(server: TrustServer, other: TrustServer) -> None:
    answer, _ = ask(server.url("/redirect"), token=TOKEN)
    why = why_unavailable(answer)
    assert "answered HTTP 307 Temporary Redirect, a redirect" in why
    assert "never followed" in why
    assert other.seen == []


def test_a_gzip_bomb_is_refused_and_memory_stays_bounded(server: TrustServer) -> None:
    bomb = gzip_bomb()  # built before measuring
    assert len(bomb) < 1_200_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, the peak so far
    answer, _ = ask(server.url("/bomb"), token=TOKEN)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert "more than the 1048576-byte limit on an answer once decompressed" in (
        why_unavailable(answer)
    )  # refused for its size: the bomb is a well-formed gzip stream
    assert grown_mib < 200


def test_a_small_gzip_answer_is_read(server: TrustServer) -> None:
    answer, _ = ask(server.url("/small-gzip"), token=TOKEN)
    assert isinstance(answer, Approval) and answer.permission == "allow"
    assert answer.approver.startswith("ann@example.com via http:")
    [(_, headers)] = server.seen
    assert headers["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    ("path", "max_bytes", "error"),
    [
        ("/big", DEFAULT_MAX_BYTES, "more than the 1048576-byte limit"),
        ("/big-unsized", DEFAULT_MAX_BYTES, "more than the 1048576-byte limit"),
        ("/approve", 20, "more than the 20-byte limit"),
        ("/brotli", DEFAULT_MAX_BYTES, "answered Content-Encoding 'br'"),
        ("/control", DEFAULT_MAX_BYTES, "control or invisible characters"),
        ("/not-a-name", DEFAULT_MAX_BYTES, "an approver that is not a string"),
    ],
)
def test_an_answer_too_big_oddly_encoded_or_naming_nobody_sensible_is_no_answer(
    server: TrustServer, path: str, max_bytes: int, error: str
) -> None:
    answer, _ = ask(server.url(path), token=TOKEN, max_bytes=max_bytes)
    assert error in why_unavailable(answer)


@pytest.mark.parametrize("timeout", [0, -1.0])
def test_a_timeout_that_is_not_positive_is_refused(timeout: float) -> None:
    with pytest.raises(ConfigError) as caught:
        HttpApprover("https://approvals.example/", timeout=timeout)
    assert caught.value.key == "--approver-timeout"


# -- in a run: the refusal, and the audit ------------------------------------------------------


def agent_run(tmp_path: Path, url: str, **options: Any) -> tuple[Path, list[dict[str, Any]]]:
    """A run whose one call needs approval from the approver at ``url``: the sentinel its body
    makes, and the audit's approval records."""
    sentinel = tmp_path / "SENTINEL"

    @hookline.tool
    def make_sentinel() -> str:
        """Make the sentinel file."""
        sentinel.write_text("ran")
        return "made"

    script: list[dict[str, Any]] = [
        {"tool_calls": [{"id": "t1", "name": "make_sentinel", "input": {}}]},
        {"text": "ok"},
    ]
    agent = Agent(ScriptedModel(script), tools=[make_sentinel], cwd=tmp_path, audit=True,
                  approver=HttpApprover(url, **options))  # fmt: skip
    agent.registry.add("PreToolUse", lambda e: Decision.ask("a person must look"), name="asker")
    agent.run_sync("go")
    lines = (tmp_path / ".hookline" / "state" / "audit.jsonl").read_text().splitlines()
    return sentinel, [r for r in map(json.loads, lines) if r["kind"] == "approval"]


def test_in_a_run_the_identity_that_answered_is_in_the_audit(
    server: TrustServer, tmp_path: Path
) -> None:
    sentinel, [approval] = agent_run(tmp_path, server.url("/approve"), token=TOKEN)
    host = server.url("").removeprefix("http://")
    assert sentinel.exists()
    assert approval["data"]["answered_by"] == f"ann@example.com via http:{host}"
    assert TOKEN not in (tmp_path / ".hookline" / "state" / "audit.jsonl").read_text()


def test_in_a_run_a_401_refuses_the_call(server: TrustServer, tmp_path: Path) -> None:
    sentinel, [approval] = agent_run(tmp_path, server.url("/approve"), token="t0k-wrong")
    assert not sentinel.exists()
    assert approval["decision"] == "deny"
    assert "HTTP 401" in approval["data"]["message"]


# -- the flags, for real -----------------------------------------------------------------------

BASH_SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "echo hi > made.txt"}}]},
        {"text": "done"},
    ]
}


def cli_run(tmp_path: Path, *flags: str, env: dict[str, str] | None = None) -> Any:
    (tmp_path / "script.json").write_text(json.dumps(BASH_SCRIPT))
    return run_hookline("run", "go", "--model", "scripted:script.json", *flags,
                        cwd=tmp_path, stdin="", env=env)  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "env"),
    [
        (("--approver-token", TOKEN), {"HOOKLINE_APPROVER_TOKEN": "t0k-wrong"}),  # the flag wins
        ((), {"HOOKLINE_APPROVER_TOKEN": TOKEN}),
    ],
    ids=["flag", "environment"],
)
def test_cli_sends_the_token_from_the_flag_or_the_environment(
    server: TrustServer, tmp_path: Path, flags: tuple[str, ...], env: dict[str, str]
) -> None:
    done = cli_run(tmp_path, "--approver-url", server.url("/approve"), "--approver-timeout",
                   "30", *flags, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [h["Authorization"] for _, h in server.seen] == [f"Bearer {TOKEN}"]
    assert (tmp_path / "made.txt").exists()
    assert TOKEN not in done.stdout + done.stderr
    audit = (tmp_path / ".hookline" / "state" / "audit.jsonl").read_text()
    assert "ann@example.com via http:127.0.0.1:" in audit


def test_cli_refuses_plain_http_to_another_host_before_running(tmp_path: Path) -> None:
    done = cli_run(tmp_path, "--approver-url", "http://example.com/approve")
    assert done.returncode == 2
    assert "--approver-url" in done.stderr and "https://example.com/approve" in done.stderr
    assert not (tmp_path / ".hookline").exists()  # nothing ran


def test_cli_refuses_a_timeout_that_is_not_positive(tmp_path: Path) -> None:
    done = cli_run(tmp_path, "--approver-url", "https://a.example/", "--approver-timeout", "0")
    assert done.returncode == 2
    assert "--approver-timeout" in done.stderr
