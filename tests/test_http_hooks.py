"""HTTP hooks against a real HTTP server on 127.0.0.1: body, answers, failures, pooling, policy."""

from __future__ import annotations

import asyncio
import json
import resource
import socket
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from typing import Any, TypeVar

import httpx
import pytest

from hookline._claude.http import (
    BlockedUrl,
    HttpClients,
    HttpConnectionFailure,
    HttpHook,
    HttpStatusFailure,
    interpolate,
    url_allowed,
    url_refusal,
)
from hookline._decisions import Decision
from hookline._errors import ConfigError, InvalidHookOutput
from hookline._events import PreToolUse, Scope
from hookline._hooks.engine import Dispatch, HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._hooks.resources import HookResources
from local_http import RecordingHandler, RecordingServer, gzip_bomb, serve

T = TypeVar("T")

DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no ls here",
    }
}
#: What the server answers, by path: (status, body). Other paths: 200 with an empty body.
ANSWERS: dict[str, tuple[int, bytes]] = {
    "/deny": (200, json.dumps(DENY).encode()),
    "/empty-object": (200, b"{}"),
    "/blank": (200, b" \n"),
    "/error": (500, b"boom"),
    "/text": (200, b"all good"),
    "/array": (200, b"[]"),
    "/slow": (200, b"{}"),
    "/bom-deny": (200, b"\xef\xbb\xbf" + json.dumps(DENY).encode()),
    "/utf-16-deny": (200, json.dumps(DENY).encode("utf-16")),
    "/deep": (200, b'{"a":' + b"[" * 5_000 + b"]" * 5_000 + b', "decision": "block"}'),
    "/latin-1": (200, '{"systemMessage": "caf\xe9"}'.encode("latin-1")),
}


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: Message
    body: Any
    client_port: int


def as_seen(handler: RecordingHandler, body: Any) -> Seen:
    return Seen("POST", handler.path, handler.headers, body, handler.client_address[1])


HookServer = RecordingServer[Seen]


@pytest.fixture
def server() -> Iterator[HookServer]:
    httpd = RecordingServer(
        ANSWERS,
        record=as_seen,
        default=(200, b""),
        keep_alive=True,
        content_type="application/json",
        slow_wait=3,
    )
    with serve(httpd):
        yield httpd


def event() -> PreToolUse:
    scope = Scope("sess-1", "/tmp/transcript.jsonl", "/work")
    return scope.event(
        PreToolUse, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="toolu_1"
    )


def with_clients(main: Callable[[HttpClients], Awaitable[T]]) -> T:
    """Run ``main(clients)`` in a fresh event loop and close the clients on that loop."""

    async def go() -> T:
        clients = HttpClients()
        try:
            return await main(clients)
        finally:
            await clients.aclose()

    return asyncio.run(go())


def ask(url: str, **options: Any) -> Decision | None:
    """One HttpHook run on ``event()``."""
    return with_clients(lambda clients: HttpHook(url, client=clients, **options).run(event()))


def dispatch(*urls: str, **options: Any) -> Dispatch:
    """``event()`` through an engine with one HttpHook per URL (``options`` go to ``add``)."""

    async def main(clients: HttpClients) -> Dispatch:
        registry = HookRegistry()
        for url in urls:
            registry.add("PreToolUse", HttpHook(url, client=clients), **options)
        return await HookEngine(registry).dispatch(event())

    return with_clients(main)


def test_posts_the_event_payload_as_json(server: HookServer) -> None:
    ask(server.url("/hook"))
    [seen] = server.seen
    assert (seen.method, seen.path) == ("POST", "/hook")
    assert seen.headers["Content-Type"] == "application/json"
    assert seen.body == event().to_payload()
    assert seen.body["hook_event_name"] == "PreToolUse"
    assert seen.body["tool_input"] == {"command": "ls"}
    assert seen.body["tool_use_id"] == "toolu_1"


def test_deny_answer_is_a_deny(server: HookServer) -> None:
    decision = ask(server.url("/deny"))
    assert decision is not None
    assert (decision.permission, decision.reason) == ("deny", "no ls here")


@pytest.mark.parametrize("path", ["/empty", "/blank", "/empty-object"])
def test_empty_body_or_object_is_no_decision(server: HookServer, path: str) -> None:
    assert ask(server.url(path)) is None
    assert len(server.seen) == 1


def test_status_500_fails_open_by_default(server: HookServer) -> None:
    with pytest.raises(HttpStatusFailure, match="HTTP 500"):
        ask(server.url("/error"))
    result = dispatch(server.url("/error"))
    assert result.decision.permission is None
    assert result.runs[0].failure == "http_status"
    assert result.runs[0].handler == "http"


def test_status_500_denies_when_the_hook_fails_closed(server: HookServer) -> None:
    result = dispatch(server.url("/error"), failure="closed")
    assert result.decision.permission == "deny"
    assert "HTTP 500" in (result.decision.reason or "")


@pytest.mark.parametrize("path", ["/text", "/array"])
def test_2xx_body_that_is_not_a_json_object_is_invalid(server: HookServer, path: str) -> None:
    with pytest.raises(InvalidHookOutput):
        ask(server.url(path))
    assert dispatch(server.url(path)).runs[0].failure == "invalid"


@pytest.mark.parametrize("path", ["/bom-deny", "/utf-16-deny"])
def test_a_deny_behind_a_byte_order_mark_or_in_utf_16_is_a_deny(
    server: HookServer, path: str
) -> None:
    decision = ask(server.url(path))
    assert decision is not None
    assert (decision.permission, decision.reason) == ("deny", "no ls here")


@pytest.mark.parametrize("path", ["/deep", "/latin-1"])
def test_a_body_nested_too_deep_or_not_in_a_unicode_encoding_cannot_be_read(
    server: HookServer, path: str
) -> None:
    with pytest.raises(InvalidHookOutput, match="not JSON"):
        ask(server.url(path))
    opened = dispatch(server.url(path)).runs[0]
    assert (opened.failure, opened.decision) == ("invalid", None)
    closed = dispatch(server.url(path), failure="closed")
    assert (closed.runs[0].failure, closed.decision.permission) == ("invalid", "deny")


def test_refused_connection_is_a_connection_failure() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/hook"  # nothing listens there now
    with pytest.raises(HttpConnectionFailure):
        ask(url)
    assert dispatch(url).runs[0].failure == "connection"


def test_slow_endpoint_times_out_before_it_answers(server: HookServer) -> None:
    # /slow answers {} only once released (at teardown) or after 3 s: a dispatch that waited
    # for it would record an answer, not a timeout.
    result = dispatch(server.url("/slow"), timeout=0.3)
    assert result.runs[0].failure == "timeout"
    assert result.decision.permission is None
    assert len(server.seen) == 1


def test_headers_fill_only_allowed_env_vars(server: HookServer) -> None:
    headers = {
        "Authorization": "Bearer $TOKEN",
        "X-Secret": "$SECRET",
        "X-Both": "${TOKEN}:$SECRET",
    }
    env = {"TOKEN": "t0k", "SECRET": "s3cret"}
    ask(server.url("/hook"), headers=headers, allowed_env_vars=["TOKEN"], env=env)
    [seen] = server.seen
    assert seen.headers["Authorization"] == "Bearer t0k"
    assert seen.headers["X-Secret"] == ""
    assert seen.headers["X-Both"] == "t0k:"
    assert not any("s3cret" in value for value in seen.headers.values())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("$TOKEN", "t0k"),
        ("${TOKEN}x", "t0kx"),
        ("$TOKENX", ""),  # another name, not allowed
        ("${UNSET}", ""),  # allowed but not set
        ("$SECRET ${SECRET}", " "),
        ("$ 5 ${} $1", "$ 5 ${} $1"),  # not references
    ],
)
def test_interpolate(value: str, expected: str) -> None:
    env = {"TOKEN": "t0k", "TOKENX": "other", "SECRET": "s3cret"}
    assert interpolate(value, ["TOKEN", "UNSET"], env) == expected


@pytest.mark.parametrize("secret", ["line\nbreak", "caf\u00e9", "nul\x00"])
def test_header_value_that_cannot_be_sent_is_a_config_error(secret: str) -> None:
    with pytest.raises(ConfigError, match="X-Token") as caught:
        HttpHook(
            "http://127.0.0.1/",
            headers={"X-Token": "$T"},
            allowed_env_vars=["T"],
            env={"T": secret},
        )
    assert secret not in str(caught.value)  # the value may be a secret: never shown


@pytest.mark.parametrize("url", ["ftp://example.com/hook", "/relative/hook", "http:///nohost"])
def test_url_that_is_not_http_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError):
        HttpHook(url)


def test_two_calls_reuse_one_connection(server: HookServer) -> None:
    async def twice(clients: HttpClients) -> None:
        hook = HttpHook(server.url("/hook"), client=clients)
        await hook.run(event())
        await HttpHook(server.url("/deny"), client=clients).run(event())

    with_clients(twice)
    assert len(server.seen) == 2
    assert server.seen[0].client_port == server.seen[1].client_port


def test_each_loop_gets_its_own_client_and_aclose_ends_it() -> None:
    async def clients_of(clients: HttpClients) -> tuple[httpx.AsyncClient, ...]:
        first, again = clients.client(), clients.client()
        await clients.aclose()
        return first, again, clients.client()

    first, again, after = with_clients(clients_of)
    assert first is again
    assert after is not first
    assert first.is_closed


def test_an_engine_lends_its_owners_pool_and_a_hook_given_one_keeps_it(
    server: HookServer,
) -> None:
    """Run by an engine, a hook without a pool of its own posts through the one the engine's
    owner lends (``HookResources``); a hook given a pool uses that one wherever it runs."""
    mine = HookResources(http=HttpClients())

    async def main(own: HttpClients) -> list[Dispatch]:
        lending, given = HookRegistry(), HookRegistry()
        lending.add("PreToolUse", HttpHook(server.url("/hook")))
        given.add("PreToolUse", HttpHook(server.url("/deny"), client=own))
        engine = HookEngine(lending, resources=mine)
        try:
            done = [await engine.dispatch(event()), await engine.dispatch(event())]
            done.append(await HookEngine(given, resources=mine).dispatch(event()))
            return done
        finally:
            assert mine.http is not None
            await mine.http.aclose()

    *_, denied = with_clients(main)
    lent_a, lent_b, own = (seen.client_port for seen in server.seen)
    assert lent_a == lent_b != own  # the lent pool kept one connection; the given one is apart
    assert denied.decision.permission == "deny"


def test_without_any_pool_each_request_gets_a_client_of_its_own(server: HookServer) -> None:
    """Outside an engine and given no pool, a hook keeps nothing open between requests."""

    async def twice() -> list[Decision | None]:
        hook = HttpHook(server.url("/deny"))
        return [await hook.run(event()), await hook.run(event())]

    answers = asyncio.run(twice())
    assert [a.permission if a else None for a in answers] == ["deny", "deny"]
    first, second = (seen.client_port for seen in server.seen)
    assert first != second


def test_the_name_of_the_old_shared_pool_is_a_new_pool_each_time() -> None:
    with pytest.warns(DeprecationWarning, match="no longer shared"):
        from hookline._claude.http import HTTP_CLIENTS as first
    with pytest.warns(DeprecationWarning, match="no longer shared"):
        from hookline._claude.http import HTTP_CLIENTS as again
    assert isinstance(first, HttpClients) and first is not again


def test_identical_urls_run_once_per_event(server: HookServer) -> None:
    result = dispatch(server.url("/hook"), server.url("/hook"), server.url("/deny"))
    assert [seen.path for seen in server.seen].count("/hook") == 1
    assert result.decision.permission == "deny"


def test_hook_describes_itself_by_url() -> None:
    hook = HttpHook("https://hooks.example.com/pre")
    assert hook.describe() == "https://hooks.example.com/pre"
    assert hook.key == ("http", "https://hooks.example.com/pre")
    assert (hook.handler, hook.in_process, hook.inline) == ("http", False, False)


@pytest.mark.parametrize(
    ("url", "patterns", "allowed"),
    [
        ("https://hooks.example.com/pre", None, True),
        ("https://hooks.example.com/pre", [], False),
        ("https://hooks.example.com/pre", ["https://hooks.example.com/pre"], True),
        ("https://hooks.example.com/pre", ["https://hooks.example.com/*"], True),
        ("https://hooks.example.com/a/b?x=1", ["https://hooks.example.com/*"], True),
        ("https://hooks.example.com", ["https://hooks.example.com/*"], True),  # path "/"
        ("https://hooks.example.com", ["https://hooks.example.com/a/*"], False),
        ("https://evil.com/?https://hooks.example.com/", ["https://hooks.example.com/*"], False),
        ("http://hooks.example.com/pre", ["https://hooks.example.com/*"], False),
        ("https://api.example.com/pre", ["https://*.example.com/*"], True),
        ("http://localhost:8080/x", ["http://localhost:*"], True),
        ("https://hooks.example.com/pre", ["*"], True),
        ("https://hooks.example.com/pre", ["https://hooks.example.com/pr?"], False),  # ? is literal
        ("https://hooks.example.com/x", ["https://other.com/*", "https://hooks.*/x"], True),
        ("https://hooks.example.com/x", "https://hooks.example.com/*", True),  # one bare string
        ("https://hooks.example.com/x", "https://nope/*", False),
        # matched on the parsed URL: scheme, host, port, path
        ("http://localhost:1@127.0.0.1:8080/", ["http://localhost:*"], False),
        ("http://localhost:8080/x", ["http://localhost/*"], False),  # default port only
        ("http://localhost/x", ["http://localhost/*"], True),
        ("https://hooks.example.com:443/x", ["https://hooks.example.com/*"], True),
        ("http://localhost:8080/x", ["http://localhost:80*/x"], True),
        ("HTTPS://Hooks.Example.COM/x", ["https://hooks.example.com/x"], True),
        ("https://hooks.example.com/X", ["https://hooks.example.com/x"], False),  # path: case
        ("https://hooks.example.com.evil.com/x", ["https://hooks.example.com/*"], False),
        ("https://hooks.example.com/%2e%2e/admin", ["https://hooks.example.com/*"], False),
        ("http://[::1]:9000/x", ["http://[::1]:*/x"], True),
        ("http://localhost:8080/x", ["http://user@localhost:*"], False),  # pattern userinfo
        ("http://localhost:8080/x", ["localhost:*"], False),  # not a URL pattern
    ],
)
def test_url_allowed(url: str, patterns: list[str] | None, allowed: bool) -> None:
    assert url_allowed(url, patterns) is allowed


@pytest.mark.parametrize(
    ("url", "patterns", "refusal"),
    [
        ("http://localhost:1@127.0.0.1:8080/", ["http://127.0.0.1:*"], "userinfo"),
        ("https://user@hooks.example.com/x", None, "userinfo"),  # even with no list
        ("https://user:pw@hooks.example.com/x", ["*"], "userinfo"),
        ("https://hooks.example.com/x", ["https://other/*"], "does not match"),
        ("https://hooks.example.com/x", ["https://hooks.example.com/*"], None),
    ],
)
def test_url_refusal_refuses_userinfo_outright(
    url: str, patterns: list[str] | None, refusal: str | None
) -> None:
    why = url_refusal(url, patterns)
    assert why is None if refusal is None else refusal in (why or "")


def test_a_url_with_userinfo_is_refused_and_never_reaches_the_server(
    server: HookServer,
) -> None:
    sneaky = server.url("/deny").replace("http://", "http://localhost:1@")
    assert sneaky.startswith("http://localhost:1@127.0.0.1:")
    with pytest.raises(BlockedUrl, match="userinfo"):
        ask(sneaky, allowed_urls=["http://localhost:*"])
    with pytest.raises(BlockedUrl, match="userinfo"):
        ask(sneaky)
    assert server.seen == []
    assert ask(server.url("/deny"), allowed_urls=["http://127.0.0.1:*"]) is not None


def test_blocked_url_never_reaches_the_server(server: HookServer) -> None:
    with pytest.raises(BlockedUrl):
        ask(server.url("/deny"), allowed_urls=["https://hooks.example.com/*"])

    async def through_engine(clients: HttpClients) -> Dispatch:
        hook = HttpHook(server.url("/deny"), client=clients, allowed_urls=[])
        registry = HookRegistry()
        registry.add("PreToolUse", hook, failure="closed")
        return await HookEngine(registry).dispatch(event())

    result = with_clients(through_engine)
    assert result.runs[0].failure == "blocked_url"
    assert result.decision.permission == "deny"  # fail-closed policy hook
    assert server.seen == []
    assert ask(server.url("/deny"), allowed_urls=["http://127.0.0.1:*"]) is not None


def test_a_gzip_bomb_answer_is_a_failure_and_memory_stays_bounded() -> None:
    """A 100 KB gzip answer (under the cap as sent) that inflates to 100 MiB is inflated only
    up to the cap, and refused."""
    bomb = gzip_bomb(100)  # built before measuring
    assert len(bomb) < 1 << 20
    answers = {"/bomb": (200, bomb, {"Content-Encoding": "gzip"})}
    httpd = RecordingServer(answers, record=as_seen, content_type="application/json")
    with serve(httpd):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB: the peak so far
        open_ = dispatch(httpd.url("/bomb"))
        closed = dispatch(httpd.url("/bomb"), failure="closed")
        grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert open_.runs[0].failure == "output_over_cap" and open_.decision.permission is None
    assert closed.decision.permission == "deny"
    assert "once decompressed" in (closed.decision.reason or "")
    assert grown_mib < 50
