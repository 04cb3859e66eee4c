"""MCP servers as tools: real server processes over stdio and streamable HTTP, and every rule
(hooks, permission rules, the audit) holding for their tools as for any other.

The servers are ``tests/mcp_servers/probe.py`` (echo, touch a sentinel file, fail, crash,
hang, answer a hook) and ``out_of_schema.py`` (answers outside the protocol's schema).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ConfigError, Decision, ScriptedModel
from hookline._claude.mcp_tool import fill
from hookline._claude.settings import load_settings
from hookline._project import load_project
from hookline.audit import verify_jsonl
from hookline.mcp import McpServers, project_servers
from hookline.mcp._config import parse_server

SERVERS = Path(__file__).parent / "mcp_servers"
PROBE = str(SERVERS / "probe.py")


def probe(tmp_path: Path, **env: str) -> dict[str, Any]:
    """A server entry for the probe, its sentinel and pid files in ``tmp_path``."""
    files = {"PROBE_SENTINEL": str(tmp_path / "sentinel"), "PROBE_PID_FILE": str(tmp_path / "pid")}
    return {"command": sys.executable, "args": [PROBE], "env": {**files, **env}}


def call(tool: str, id: str, /, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": id, "name": tool, "input": tool_input}]}


def agent(tmp_path: Path, turns: list[dict[str, Any]], **options: Any) -> Agent:
    script = [*turns, {"text": "done"}]
    return Agent(ScriptedModel(script), tools=[], cwd=tmp_path, **options)


def gone(pid_file: Path) -> bool:
    """Whether the process that wrote ``pid_file`` has exited and been reaped."""
    try:
        os.kill(int(pid_file.read_text()), 0)
    except ProcessLookupError:
        return True
    return False


def audit_of(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / ".hookline" / "state" / "audit.jsonl"
    assert verify_jsonl(path) is None  # the chain is whole
    return [json.loads(line) for line in path.read_text().splitlines()]


def outcomes(records: list[dict[str, Any]]) -> dict[str, str]:
    """Each call's final tool record: tool_use_id -> its decision (executed, failed, ...)."""
    return {r["tool_use_id"]: r["decision"] for r in records if r["kind"] == "tool"}


# -- configuration ------------------------------------------------------------------------------


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def servers_in(project: Path) -> tuple[list[str], list[str]]:
    configs, warnings = project_servers(load_settings(project), project)
    return [c.name for c in configs], [str(w) for w in warnings]


def test_a_project_server_starts_only_once_the_settings_approve_it(tmp_path):
    write(tmp_path / ".mcp.json", {"mcpServers": {"orders": {"command": "orders-server"}}})
    names, (warning,) = servers_in(tmp_path)
    assert names == []
    assert ".mcp.json: mcpServers.orders: a project server starts only once approved" in warning
    assert '"enabledMcpjsonServers": ["orders"]' in warning
    write(tmp_path / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["orders"]})
    assert servers_in(tmp_path) == (["orders"], [])
    write(tmp_path / ".claude" / "settings.json", {"disabledMcpjsonServers": ["orders"]})
    names, (warning,) = servers_in(tmp_path)
    assert names == [] and "disabledMcpjsonServers" in warning


def test_a_bad_mcp_json_is_one_warning_naming_the_file_and_key(tmp_path):
    write(tmp_path / ".mcp.json", '{"mcpServers": {')
    names, (warning,) = servers_in(tmp_path)
    assert names == [] and warning.startswith(f"{tmp_path / '.mcp.json'}: not valid JSON")
    servers = {"good": {"command": "ok"}, "bad": {"args": ["x"]}, "web": {"type": "sse"}}
    write(tmp_path / ".mcp.json", {"mcpServers": servers})
    write(tmp_path / ".claude" / "settings.json", {"enableAllProjectMcpServers": True})
    names, warnings = servers_in(tmp_path)
    assert names == ["good"]
    assert [w.split(": ", 2)[1] for w in warnings] == [
        "mcpServers.bad.command",
        "mcpServers.web.type",
    ]
    assert "command is missing (fix: write" in warnings[0]


def test_variables_expand_and_an_unset_one_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_TOKEN", "t0k")
    entry = {"type": "http", "url": "http://127.0.0.1:${PORT:-9}/mcp",
             "headers": {"Authorization": "Bearer ${PROBE_TOKEN}"}}  # fmt: skip
    config = parse_server("web", entry, file="f.json", key="mcpServers")
    assert (config.url, dict(config.headers)) == (
        "http://127.0.0.1:9/mcp", {"Authorization": "Bearer t0k"})  # fmt: skip
    monkeypatch.delenv("PROBE_TOKEN")
    with pytest.raises(ConfigError) as caught:
        parse_server("web", entry, file="f.json", key="mcpServers")
    assert str(caught.value).startswith("f.json: mcpServers.web.headers.Authorization: ${PROBE_")


def test_a_bad_server_given_to_the_agent_is_a_config_error_naming_it(tmp_path):
    with pytest.raises(ConfigError, match=r"mcp_servers\.orders\.command: command is missing"):
        agent(tmp_path, [], mcp_servers={"orders": {"args": ["server.py"]}})


def test_a_mcp_json_path_given_to_the_agent_is_read_as_it_is(tmp_path):
    write(tmp_path / "tools" / "servers.json", {"mcpServers": {"probe": probe(tmp_path)}})
    (config,) = McpServers.of(tmp_path / "tools" / "servers.json").configs.values()
    assert (config.name, config.command, config.cwd) == (
        "probe", sys.executable, str(tmp_path / "tools"))  # fmt: skip
    with pytest.raises(ConfigError, match="no such file"):
        McpServers.of(tmp_path / "missing.json")


def test_without_the_sdk_servers_are_a_config_error_with_the_install_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp now raises ImportError
    with pytest.raises(ConfigError) as caught:
        agent(tmp_path, [], mcp_servers={"probe": probe(tmp_path)})
    assert "pip install 'hookline[mcp]'" in str(caught.value)


# -- stdio ---------------------------------------------------------------------------------------


def test_a_stdio_servers_tools_go_through_hooks_and_the_audit_and_it_stops_after(tmp_path):
    seen: list[tuple[str, str, Any]] = []
    bot = agent(tmp_path, [call("mcp__probe__echo", "t1", text="hi")],
                mcp_servers={"probe": probe(tmp_path)}, audit=True)  # fmt: skip
    for event in ("PreToolUse", "PostToolUse"):
        bot.registry.add(event, lambda e: seen.append(
            (e.name, e.tool_name, e.tool_response if e.name == "PostToolUse" else e.tool_input)),
            matcher="mcp__probe__.*", kind="observer")  # fmt: skip
    result = bot.run_sync("say hi")
    (done,) = result.tool_calls
    assert (done.status, done.content) == ("executed", "echo: hi")
    assert seen == [
        ("PreToolUse", "mcp__probe__echo", {"text": "hi"}),
        ("PostToolUse", "mcp__probe__echo", [{"type": "text", "text": "echo: hi"}]),
    ]
    assert outcomes(audit_of(tmp_path)) == {"t1": "executed"}
    transcript = Path(result.transcript_path).read_text()
    assert "mcp__probe__echo" in transcript and "echo: hi" in transcript
    assert gone(tmp_path / "pid")


def test_a_stdio_server_gets_no_credential_of_hooklines_but_those_passed_on_or_named(
    tmp_path, monkeypatch
):
    """The server starts with a small environment (``PATH``, ``HOME``, ...: not even an
    ordinary variable of hookline's) and none of hookline's credentials; the user's passthrough
    and the server's own ``env`` pass one on by name, a project's passthrough does not."""
    planted = {"HOOKLINE_APPROVER_TOKEN": "approver-1", "ANTHROPIC_API_KEY": "anthropic-2",
               "OPENAI_API_KEY": "openai-3", "AZURE_OPENAI_API_KEY": "azure-4",
               "CLAUDE_CODE_OAUTH_TOKEN": "oauth-5", "PROBE_ORDINARY": "ordinary-6"}  # fmt: skip
    for name, value in planted.items():
        monkeypatch.setenv(name, value)
    passing = {"hookline": {"env": {"passthrough": ["ANTHROPIC_API_KEY"]}}}
    write(Path(os.environ["HOME"]) / ".hookline" / "settings.json", passing)
    write(tmp_path / ".claude" / "settings.json", {
        "mcpServers": {"probe": probe(tmp_path, OPENAI_API_KEY="${OPENAI_API_KEY}")},
        "permissions": {"allow": ["mcp__probe"]},
        "hookline": {"env": {"passthrough": ["AZURE_OPENAI_API_KEY"]}},  # a project's: ignored
    })  # fmt: skip
    project = load_project(tmp_path)
    assert any("passthrough" in str(w) for w in project.warnings)
    names = [*planted, "HOOKLINE_MANAGED_SETTINGS_DIR", "PATH", "HOME"]
    bot = Agent(ScriptedModel([call("mcp__probe__environ", "t1", names=names), {"text": "ok"}]),
                **project.agent_options(), tools=[])  # fmt: skip
    (reported,) = bot.run_sync("go").tool_calls
    assert reported.status == "executed", reported.content
    seen = json.loads(reported.content)
    assert seen == {"ANTHROPIC_API_KEY": "anthropic-2", "OPENAI_API_KEY": "openai-3",
                    "PATH": os.environ["PATH"], "HOME": os.environ["HOME"]}  # fmt: skip


def test_deny_rules_keep_calls_from_reaching_the_server_and_allow_lets_them(tmp_path):
    """One server per rule form: the tool, a wildcard, the whole server; and one allowed."""
    names = ("exact", "wildcard", "server", "allowed")
    for name in names:
        (tmp_path / name).mkdir()
    rules = {"deny": ["mcp__exact__touch", "mcp__wildcard__*", "mcp__server"],
             "allow": ["mcp__allowed"]}  # fmt: skip
    servers = {name: probe(tmp_path / name) for name in names}
    settings = {"mcpServers": servers, "permissions": rules}
    project = load_project(tmp_path, settings=[json.dumps(settings)])
    turns = [call(f"mcp__{name}__touch", name, name=name) for name in names]
    bot = Agent(ScriptedModel([*turns, {"text": "ok"}]), **project.agent_options(), tools=[])
    results = {r.call.id: r for r in bot.run_sync("touch them").tool_calls}
    for name, rule in zip(names[:3], rules["deny"], strict=True):
        assert results[name].status == "blocked" and rule in (results[name].reason or "")
        assert not (tmp_path / name / "sentinel").exists()
    assert results["allowed"].status == "executed"
    assert (tmp_path / "allowed" / "sentinel").read_text() == "allowed"


def test_a_pre_tool_use_hook_denies_an_mcp_tool_before_the_server_sees_it(tmp_path):
    bot = agent(tmp_path, [call("mcp__probe__touch", "t1", name="x")],
                mcp_servers={"probe": probe(tmp_path)})  # fmt: skip
    bot.registry.add(
        "PreToolUse", lambda e: Decision.deny("not today"), matcher="mcp__probe__touch"
    )
    (refused,) = bot.run_sync("touch it").tool_calls
    assert refused.status == "blocked" and "not today" in refused.content
    assert not (tmp_path / "sentinel").exists()


def test_two_servers_with_the_same_tool_name_are_two_tools(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    bot = agent(tmp_path, [call("mcp__b__touch", "t1", name="from b")],
                mcp_servers={"a": probe(a), "b": probe(b)})  # fmt: skip
    bot.run_sync("touch b")
    assert {"mcp__a__touch", "mcp__b__touch"} <= set(bot.tools.names())
    assert not (a / "sentinel").exists() and (b / "sentinel").read_text() == "from b"


def test_an_error_the_tool_reports_is_a_failed_call_with_its_message(tmp_path):
    failures: list[str] = []
    bot = agent(tmp_path, [call("mcp__probe__fail", "t1", why="no stock")],
                mcp_servers={"probe": probe(tmp_path)})  # fmt: skip
    bot.registry.add("PostToolUseFailure", lambda e: failures.append(e.error), kind="observer")
    (failed,) = bot.run_sync("fail").tool_calls
    assert failed.status == "failed" and "no stock" in failed.content
    assert failures == [failed.content]


# -- when a server fails --------------------------------------------------------------------------


def test_a_server_that_cannot_start_is_named_to_the_model_and_the_rest_runs(tmp_path):
    missing = {"command": str(tmp_path / "no-such-server")}
    turns = [call("mcp__gone__anything", "t1"), call("mcp__probe__echo", "t2", text="still here")]
    bot = agent(tmp_path, turns, mcp_servers={"gone": missing, "probe": probe(tmp_path)},
                audit=True)  # fmt: skip
    result = bot.run_sync("go")
    first, second = result.tool_calls
    assert first.status == "failed" and "mcp__gone__anything" in first.content
    assert (second.status, second.content) == ("executed", "echo: still here")
    opening = bot.session.messages[0].text
    assert "MCP server 'gone' is not available in this session" in opening
    assert "No such file or directory" in opening and "mcp__gone__*" in opening
    assert result.stop_reason == "end_turn"
    assert outcomes(audit_of(tmp_path)) == {"t1": "failed", "t2": "executed"}


def test_a_server_that_dies_mid_call_fails_that_call_and_the_next(tmp_path):
    turns = [call("mcp__probe__crash", "t1"), call("mcp__probe__echo", "t2", text="anyone?")]
    bot = agent(tmp_path, turns, mcp_servers={"probe": probe(tmp_path)}, audit=True)
    result = bot.run_sync("crash")
    crashed, after = result.tool_calls
    assert crashed.status == after.status == "failed"
    assert "MCP server 'probe' is not available: the connection closed" in crashed.content
    assert "crashing on purpose" in crashed.content  # the last line of its stderr
    assert after.content == crashed.content
    assert result.final_text == "done"
    assert outcomes(audit_of(tmp_path)) == {"t1": "failed", "t2": "failed"}
    assert gone(tmp_path / "pid")


def test_a_call_past_its_timeout_fails_and_the_server_stays_usable(tmp_path):
    servers = McpServers.of({"probe": probe(tmp_path)}, call_timeout=2)
    turns = [call("mcp__probe__hang", "t1"), call("mcp__probe__echo", "t2", text="ok")]
    result = agent(tmp_path, turns, mcp_servers=servers, audit=True).run_sync("hang")
    hung, after = result.tool_calls
    assert hung.status == "failed"  # hang never answers, whatever the machine's speed
    assert "MCP server 'probe' did not answer hang within 2s" in hung.content
    assert (after.status, after.content) == ("executed", "echo: ok")
    assert outcomes(audit_of(tmp_path)) == {"t1": "failed", "t2": "executed"}


def test_a_server_that_never_answers_at_start_times_out_and_is_stopped(tmp_path):
    pid = tmp_path / "pid"
    code = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    silent = {"command": sys.executable, "args": ["-c", code, str(pid)]}
    servers = McpServers.of({"silent": silent}, start_timeout=0.5)
    bot = agent(tmp_path, [call("mcp__silent__x", "t1")], mcp_servers=servers)
    (failed,) = bot.run_sync("go").tool_calls
    assert failed.status == "failed"
    assert "it did not answer within 0.5s of starting" in bot.session.messages[0].text
    assert gone(pid)


def test_an_answer_out_of_the_protocols_schema_is_a_failed_call(tmp_path):
    raw = {"command": sys.executable, "args": [str(SERVERS / "out_of_schema.py")]}
    bot = agent(tmp_path, [call("mcp__raw__weird", "t1")], mcp_servers={"raw": raw})
    (failed,) = bot.run_sync("go").tool_calls
    assert failed.status == "failed"
    assert failed.content.startswith("MCP server 'raw' failed on weird:")
    assert "content" in failed.content


# -- streamable HTTP ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_probe(tmp_path: Path) -> Iterator[str]:
    """The probe serving streamable HTTP on a free port of 127.0.0.1; its URL. Stopped after."""
    port = free_port()
    env = {**os.environ, **probe(tmp_path)["env"]}
    server = subprocess.Popen([sys.executable, PROBE, "--http", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        while True:  # until it listens (or it exits, which fails the test)
            assert server.poll() is None, "the HTTP probe exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_streamable_http_servers_tools_run_and_its_rules_hold(tmp_path, http_probe):
    web = {"type": "http", "url": http_probe, "headers": {"X-Probe": "yes"}}
    turns = [call("mcp__web__touch", "t1", name="prod"), call("mcp__web__echo", "t2", text="hi")]
    bot = agent(tmp_path, turns, mcp_servers={"web": web})
    bot.registry.add(
        "PreToolUse", lambda e: Decision.deny("no touching"), matcher="mcp__web__touch"
    )
    refused, echoed = bot.run_sync("go").tool_calls
    assert refused.status == "blocked" and not (tmp_path / "sentinel").exists()
    assert (echoed.status, echoed.content) == ("executed", "echo: hi")
    again = agent(tmp_path, [call("mcp__web__touch", "t3", name="ok")], mcp_servers={"web": web})
    assert again.run_sync("go").tool_calls[0].status == "executed"
    assert (tmp_path / "sentinel").read_text() == "ok"


# -- mcp_tool hooks -------------------------------------------------------------------------------


def mcp_tool_project(tmp_path: Path, handler: dict[str, Any], event: str = "PreToolUse") -> Any:
    settings = {
        "mcpServers": {"probe": probe(tmp_path)},
        "permissions": {"allow": ["mcp__probe"]},
        "hooks": {event: [{"matcher": "mcp__probe__touch" if event == "PreToolUse" else "",
                           "hooks": [{"type": "mcp_tool", "server": "probe", **handler}]}]},
    }  # fmt: skip
    return load_project(tmp_path, settings=[json.dumps(settings)])


VERDICT = {
    "tool": "verdict",
    "input": {"tool_name": "${tool_name}", "command": "${tool_input.name}"},
}


def test_an_mcp_tool_hook_denies_with_the_servers_json_and_ignores_its_plain_text(tmp_path):
    project = mcp_tool_project(tmp_path, VERDICT)
    turns = [call("mcp__probe__touch", "t1", name="prod-db"),
             call("mcp__probe__touch", "t2", name="staging")]  # fmt: skip
    bot = Agent(ScriptedModel([*turns, {"text": "ok"}]), **project.agent_options(), tools=[])
    result = bot.run_sync("go")
    refused, ran = result.tool_calls
    assert refused.status == "blocked"
    assert "policy server: mcp__probe__touch may not touch prod" in refused.content
    assert ran.status == "executed"  # plain text on PreToolUse decides nothing
    assert (tmp_path / "sentinel").read_text() == "staging"  # only the second call touched it
    runs = {r.tool_use_id: r.decision for r in result.hook_runs if r.handler == "mcp_tool"}
    assert runs == {"t1": "deny", "t2": None}


def test_an_mcp_tool_hooks_text_on_session_start_is_context(tmp_path):
    echo = {"tool": "echo", "input": {"text": "session ${session_id}"}}
    project = mcp_tool_project(tmp_path, echo, event="SessionStart")
    bot = Agent(ScriptedModel([{"text": "ok"}]), **project.agent_options(), tools=[])
    bot.run_sync("hello")
    opening = bot.session.messages[0].text
    assert f"echo: session {bot.session.id}" in opening


@pytest.mark.parametrize("block", [False, True])
def test_an_mcp_tool_hook_whose_server_is_missing_fails_open_or_closed(tmp_path, block):
    handler = {"server": "nowhere", "tool": "x", **({"onFailure": "block"} if block else {})}
    project = mcp_tool_project(tmp_path, handler)
    bot = Agent(ScriptedModel([call("mcp__probe__touch", "t1", name="x"), {"text": "ok"}]),
                **project.agent_options(), tools=[])  # fmt: skip
    result = bot.run_sync("go")
    (run,) = [r for r in result.hook_runs if r.hook == "mcp_tool nowhere/x"]
    assert run.failure == "mcp_error" and "'nowhere'" in (run.error or "")
    assert result.tool_calls[0].status == ("blocked" if block else "executed")
    assert (tmp_path / "sentinel").exists() is not block


def test_an_mcp_tool_handler_without_a_server_stops_the_load_naming_the_key(tmp_path):
    """A gate that cannot load is an error (a warning only with ``lenient``)."""
    bad = {"hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "tool": "x"}]}]}}
    with pytest.raises(ConfigError, match=r"hooks\.PreToolUse\[0\]\.hooks\[0\]\.server"):
        load_project(tmp_path, settings=[json.dumps(bad)])
    project = load_project(tmp_path, settings=[json.dumps(bad)], lenient=True)
    (warning,) = [str(w) for w in project.warnings]
    assert "hooks.PreToolUse[0].hooks[0].server: server is missing" in warning


def test_placeholders_keep_a_whole_values_type_and_write_out_the_rest():
    payload = {"session_id": "s1", "tool_input": {"n": 3, "tags": ["a"], "path": "/x"}}
    template = {"n": "${tool_input.n}", "line": "${session_id}:${tool_input.n}",
                "tags": ["${tool_input.tags}"], "gone": "${tool_input.nope}",
                "left": "$x"}  # fmt: skip
    assert fill(template, payload) == {
        "n": 3, "line": "s1:3", "tags": [["a"]], "gone": None, "left": "$x"}  # fmt: skip
