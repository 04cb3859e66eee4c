"""No process-wide state shared between agents: two agents in one process, on one event loop,
each with its own HTTP pool, MCP servers and plug-ins.

One agent closing while a hook of the other is in flight never touches that hook: the hook
completes, its deny holds, and the tool it denies never runs (its sentinel file stays absent).
Barriers prove the hook is in flight when the other agent closes: the HTTP server sets an event
when the request arrives, the MCP tool connects to the test's socket, and each waits for the
test to let it go. Once, every HTTP hook shared one pool and ``mcp_tool`` hooks found their
servers in a table keyed by session id: one agent's ``close`` cut the other's request, the hook
failed open, and the tool ran unjudged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import struct
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ConfigError, HookRegistry, ScriptedModel
from hookline._agent import sessions
from hookline._agent.model import named
from hookline._agent.runtime import DEFAULTS, Runtime
from hookline._agent.saved.store import SessionStore
from hookline._claude.http import HttpHook
from hookline._project import load_project
from hookline.storage import SqliteStore
from local_http import RecordingServer, serve

PROBE = str(Path(__file__).parent / "mcp_servers" / "probe.py")
#: Both MCP agents work in a session of this id (two folders, one name), the key under which
#: ``mcp_tool`` hooks once found their servers.
SHARED_ID = "0f0e0d0c-0b0a-4908-8706-050403020100"


def deny(reason: str) -> bytes:
    decision = {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": reason}  # fmt: skip
    return json.dumps({"hookSpecificOutput": decision}).encode()


@pytest.fixture
def hook_server() -> Iterator[RecordingServer[Any]]:
    """``/allow`` answers no decision at once; ``/slow`` is held until released, then denies."""
    answers = {"/allow": (200, b"{}"), "/slow": (200, deny("B's gate says no"))}
    httpd = RecordingServer(
        answers, record=lambda h, body: (h.path, h.client_address[1]), keep_alive=True,
        content_type="application/json", slow_wait=60,
    )  # fmt: skip
    with serve(httpd):
        yield httpd


def write(folder: Path, name: str, call_id: str = "w1") -> dict[str, Any]:
    """A model turn asking to Write ``name`` in ``folder``: the file is the call's sentinel."""
    call = {"id": call_id, "name": "Write",
            "input": {"file_path": str(folder / name), "content": name}}  # fmt: skip
    return {"tool_calls": [call]}


def writer(folder: Path, hook: dict[str, Any], *turns: dict[str, Any], **extra: Any) -> Agent:
    """An agent in ``folder`` whose settings allow Write and gate it with ``hook``."""
    made(folder)
    settings = {"permissions": {"allow": ["Write", "mcp__probe"]},
                "hooks": {"PreToolUse": [{"matcher": "Write|mcp__probe__touch", "hooks": [hook]}]},
                **extra}  # fmt: skip
    project = load_project(folder, settings=[json.dumps(settings)])
    return Agent(ScriptedModel([*turns, {"text": "done"}]), **project.agent_options())


# -- HTTP hooks --------------------------------------------------------------------------------


def test_closing_one_agent_leaves_the_others_http_hook_in_flight_to_finish(
    tmp_path: Path, hook_server: RecordingServer[Any]
) -> None:
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    a = writer(a_dir, {"type": "http", "url": hook_server.url("/allow")}, write(a_dir, "a.txt"))
    b = writer(b_dir, {"type": "http", "url": hook_server.url("/slow")}, write(b_dir, "b.txt"))

    async def main() -> tuple[Any, ...]:
        first = await a.run("write a")  # A's pool now holds a connection on this loop
        a_client = a.runtime.http.client()
        b_run = asyncio.create_task(b.run("write b"))
        assert await asyncio.to_thread(hook_server.entered.wait, 60)  # B's hook is in flight
        await a.close()
        closed = a_client.is_closed
        hook_server.release.set()
        second = await b_run
        b_client = b.runtime.http.client()
        await b.close()
        return first, closed, second, b_client

    first, a_closed, second, b_client = asyncio.run(main())
    assert first.tool_calls[0].status == "executed" and (a_dir / "a.txt").exists()
    assert a_closed  # A closed its own pool ...
    (b_call,) = second.tool_calls
    assert b_call.status == "blocked" and "B's gate says no" in (b_call.reason or "")
    assert not (b_dir / "b.txt").exists()  # ... and B's denied Write never ran
    (b_hook,) = [r for r in second.hook_runs if r.event == "PreToolUse"]
    assert (b_hook.failure, b_hook.decision) == (None, "deny")  # answered, not failed
    assert b_client.is_closed  # B closed its own when it closed
    assert [path for path, _ in hook_server.seen] == ["/allow", "/slow"]


def test_two_agents_given_one_registry_post_through_their_own_pools(
    tmp_path: Path, hook_server: RecordingServer[Any]
) -> None:
    """One HttpHook object, in one registry both agents run: each agent's engine lends it that
    agent's pool, so A closing still leaves B's request in flight to finish."""
    registry = HookRegistry()
    registry.add("PreToolUse", HttpHook(hook_server.url("/slow")), matcher="Write")
    a_dir, b_dir = made(tmp_path / "a"), made(tmp_path / "b")
    a, b = (
        Agent(ScriptedModel([write(d, "x.txt"), {"text": "done"}]), hooks=registry, cwd=d)
        for d in (a_dir, b_dir)
    )

    async def main() -> tuple[Any, ...]:
        hook_server.release.set()  # A's request is answered at once
        first = await a.run("write")
        a_client = a.runtime.http.client()
        hook_server.release.clear()
        hook_server.entered.clear()
        b_run = asyncio.create_task(b.run("write"))
        assert await asyncio.to_thread(hook_server.entered.wait, 60)  # B's hook is in flight
        await a.close()
        closed = a_client.is_closed
        hook_server.release.set()
        second = await b_run
        await b.close()
        return first, closed, second

    first, a_closed, second = asyncio.run(main())
    assert first.tool_calls[0].status == "blocked" and a_closed
    (b_call,) = second.tool_calls
    assert b_call.status == "blocked" and "B's gate says no" in (b_call.reason or "")
    assert not (a_dir / "x.txt").exists() and not (b_dir / "x.txt").exists()
    (b_hook,) = [r for r in second.hook_runs if r.event == "PreToolUse"]
    assert (b_hook.failure, b_hook.decision) == (None, "deny")
    a_port, b_port = (port for _, port in hook_server.seen)
    assert a_port != b_port  # two pools, two connections


def test_an_http_gate_whose_answer_breaks_mid_read_denies_when_it_fails_closed(
    tmp_path: Path,
) -> None:
    """A connection reset while the answer is read (a read error) is a failure: a fail-closed
    gate denies, and the tool does not run; a fail-open one lets the rules decide."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def reset_each_request() -> None:
        for _ in range(2):
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{"hookSpecific')
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()  # with linger 0: a reset, in the middle of the body

    server = threading.Thread(target=reset_each_request, daemon=True)
    server.start()
    url = f"http://127.0.0.1:{port}/gate"
    results = {}
    for policy in ("block", "continue"):
        folder = tmp_path / policy
        hook = {"type": "http", "url": url, "onFailure": policy}
        results[policy] = writer(folder, hook, write(folder, "x.txt")).run_sync("write")
    server.join(30)
    listener.close()
    closed, open_ = results["block"], results["continue"]
    (run,) = [r for r in closed.hook_runs if r.event == "PreToolUse"]
    assert run.failure == "connection" and run.decision == "deny"
    assert closed.tool_calls[0].status == "blocked"
    assert not (tmp_path / "block" / "x.txt").exists()
    (run,) = [r for r in open_.hook_runs if r.event == "PreToolUse"]
    assert run.failure == "connection" and run.decision is None
    assert (tmp_path / "continue" / "x.txt").exists()  # fail open: the allow rule decided


def test_a_subagent_posts_through_its_parents_pool_and_leaves_it_open(
    tmp_path: Path, hook_server: RecordingServer[Any]
) -> None:
    """The subagent's hook and the parent's next one share one kept-alive connection: the
    subagent neither has a pool of its own nor closes the parent's; the parent closes it."""
    agent_call = {"id": "t_agent", "name": "Agent",
                  "input": {"description": "Write", "prompt": "write sub.txt"}}  # fmt: skip
    parent = writer(
        tmp_path, {"type": "http", "url": hook_server.url("/allow")},
        {"tool_calls": [agent_call]}, write(tmp_path, "sub.txt", "w_sub"), {"text": "sub done"},
        write(tmp_path, "parent.txt", "w_parent"),
    )  # fmt: skip

    async def main() -> bool:
        result = await parent.run("delegate, then write")
        assert [c.status for c in result.tool_calls] == ["executed", "executed"]
        client = parent.runtime.http.client()
        assert not client.is_closed
        await parent.close()
        return client.is_closed

    assert asyncio.run(main())
    assert (tmp_path / "sub.txt").exists() and (tmp_path / "parent.txt").exists()
    (sub_port, parent_port) = [port for path, port in hook_server.seen]
    assert sub_port == parent_port


# -- MCP servers and mcp_tool hooks --------------------------------------------------------------


def probe(folder: Path) -> dict[str, Any]:
    files = {"PROBE_SENTINEL": str(folder / "sentinel"), "PROBE_PID_FILE": str(folder / "pid")}
    return {"command": sys.executable, "args": [PROBE], "env": files}


def touch(call_id: str = "t1") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "mcp__probe__touch", "input": {"name": "x"}}]}


def alive(folder: Path) -> bool:
    try:
        os.kill(int((folder / "pid").read_text()), 0)
    except ProcessLookupError:
        return False
    return True


def test_closing_one_agent_leaves_the_others_mcp_tool_hook_in_flight_to_finish(
    tmp_path: Path,
) -> None:
    """A and B each have a probe server; B's gate calls its ``held`` tool, which reaches the
    test's barrier. B starts first and A after it, under the same session id: the order in
    which a table keyed by session id once sent B's hook to A's server."""
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"

    async def main() -> tuple[Any, ...]:
        entered, release = asyncio.Event(), asyncio.Event()

        async def barrier(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readline()
            entered.set()
            await release.wait()
            writer.write(b"go\n")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(barrier, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        held = {"type": "mcp_tool", "server": "probe", "tool": "held",
                "input": {"port": port, "tool_name": "${tool_name}"}}  # fmt: skip
        allow = {"type": "mcp_tool", "server": "probe", "tool": "echo", "input": {"text": "ok"}}
        a = writer(a_dir, allow, touch(), mcpServers={"probe": probe(a_dir)})
        b = writer(b_dir, held, touch(), mcpServers={"probe": probe(b_dir)})
        for agent in (b, a):
            sessions.name(agent, SHARED_ID)
            await agent.start()
        first = await a.run("touch")
        b_run = asyncio.create_task(b.run("touch"))
        await entered.wait()  # B's hook is in flight, inside B's server
        await a.close()
        a_alive, b_alive = alive(a_dir), alive(b_dir)
        release.set()
        second = await b_run
        await b.close()
        server.close()
        await server.wait_closed()
        return first, a_alive, b_alive, second

    first, a_alive, b_alive, second = asyncio.run(main())
    assert first.tool_calls[0].status == "executed" and (a_dir / "sentinel").exists()
    assert not a_alive and b_alive  # A's close stopped A's server, not B's
    (b_call,) = second.tool_calls
    assert b_call.status == "blocked"
    assert "mcp__probe__touch refused after the hold" in (b_call.reason or "")
    assert not (b_dir / "sentinel").exists()  # B's denied call never reached its server
    (b_hook,) = [r for r in second.hook_runs if r.handler == "mcp_tool"]
    assert (b_hook.failure, b_hook.decision) == (None, "deny")
    assert not alive(b_dir)


# -- plug-ins: each agent its own, the defaults fixed --------------------------------------------


def made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_an_agent_resolves_model_names_through_its_own_resolver_only(tmp_path: Path) -> None:
    asked: list[str] = []

    def mine(spec: str) -> ScriptedModel:
        asked.append(spec)
        return ScriptedModel([{"text": "mine"}])

    own = Agent(ScriptedModel([]), tools=[], cwd=made(tmp_path / "own"),
                runtime=Runtime(resolver=mine))  # fmt: skip
    other = Agent(ScriptedModel([]), tools=[], cwd=made(tmp_path / "other"))

    async def main() -> tuple[Any, Any]:
        switched = await own.switch_model("house:model")
        with pytest.raises(ConfigError, match="unknown model 'house:model'"):
            await other.switch_model("house:model")  # the default resolver knows no such name
        return switched, own.model

    switched, model = asyncio.run(main())
    assert switched.switched and asked == ["house:model"]
    assert isinstance(model, ScriptedModel)


def test_an_agent_opens_its_store_through_its_own_opener_only(tmp_path: Path) -> None:
    opened: list[tuple[str | None, Path]] = []

    def mine(url_or_path: str | None, *, state_dir: Path) -> SessionStore:
        opened.append((url_or_path, state_dir))
        return SqliteStore(tmp_path / "mine.db")

    own = Agent(ScriptedModel([]), tools=[], cwd=made(tmp_path / "own"),
                store="house://sessions", runtime=Runtime(opener=mine))  # fmt: skip
    other = Agent(ScriptedModel([]), tools=[], cwd=made(tmp_path / "other"))
    try:
        assert isinstance(own.store, SqliteStore)
        assert opened == [("house://sessions", own.session.state_dir)]
        assert isinstance(other.store, SqliteStore) and len(opened) == 1
        assert Path(other.store.path).parent == other.session.state_dir  # the default's place
    finally:
        own.store.close()
        other.store.close()


def test_each_runtime_holds_the_default_plug_ins_as_named_constants() -> None:
    first, second = Runtime(), Runtime()
    assert (first.opener, first.resolver, first.audit) == (
        DEFAULTS["opener"],
        DEFAULTS["resolver"],
        DEFAULTS["audit"],
    )
    assert first.http is not second.http  # each its own pool, the plug-ins constants
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS["resolver"].where = "elsewhere:hijack"  # type: ignore[misc]
    assert type(named("rules", second.resolver)).__name__ == "RuleModel"
