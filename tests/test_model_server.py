"""``hookline model-server``: a scripted model behind the OpenAI and Anthropic APIs on 127.0.0.1.

hookline's own clients (the official SDKs) are driven against it, streamed and whole, in this
process; the command itself runs as a real subprocess that ``hookline run`` talks to, and is
stopped by its pid.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, hookline, src_env
from hookline import Agent, Message, ToolCall
from hookline.models._anthropic import AnthropicModel
from hookline.models._openai import OpenAIModel
from hookline.models._scripted import Script
from hookline.models._serve import ScriptServer, Served, answer

SCRIPT = Script.model_validate(
    {
        "turns": [
            {
                "text": "Let me look at the notes, then write a summary of what they say.",
                "tool_calls": [
                    {"id": "call_read", "name": "Read", "input": {"file_path": "notes.txt"}},
                    {
                        "name": "Bash",
                        "input": {"command": "touch ran.txt", "description": "mark it ü"},
                    },
                ],
            },
            {"text": "The notes say: remember the milk."},
        ],
        "final_text": "Nothing more to do.",
    }
)
TOOLS = [
    {"name": n, "description": n, "input_schema": {"type": "object"}} for n in ("Read", "Bash")
]
CLIENTS = {"openai": OpenAIModel, "anthropic": AnthropicModel}


@pytest.fixture
def server() -> Iterator[tuple[ScriptServer, list[Served]]]:
    served: list[Served] = []
    with ScriptServer(SCRIPT, on_request=served.append) as httpd:
        yield httpd, served


def client(api: str, url: str, *, stream: bool) -> Any:
    base = f"{url}/v1" if api == "openai" else url
    return CLIENTS[api]("scripted-model", base_url=base, api_key="unused", stream=stream,
                        max_retries=0)  # fmt: skip


def ask(model: Any, messages: list[Message]) -> Message:
    async def once() -> Message:
        try:
            return await model.complete(messages, TOOLS, system="Be brief.")
        finally:
            await model.aclose()

    return asyncio.run(once())


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_the_real_clients_read_each_turn_of_the_script(
    server: tuple[ScriptServer, list[Served]], api: str, stream: bool
) -> None:
    httpd, served = server
    first = ask(client(api, httpd.url, stream=stream), [Message.user("read my notes")])
    assert first.text == SCRIPT.turns[0].text
    assert list(first.tool_calls) == [
        ToolCall("call_read", "Read", {"file_path": "notes.txt"}),
        ToolCall("toolu_01_2", "Bash", {"command": "touch ran.txt", "description": "mark it ü"}),
    ]
    results = Message("user", ())  # what the loop sends back is not read by the server
    second = ask(client(api, httpd.url, stream=stream), [Message.user("x"), first, results])
    third = ask(client(api, httpd.url, stream=stream), [Message.user("x"), first, results,
                                                        second, Message.user("and?")])  # fmt: skip
    assert (second.text, list(second.tool_calls)) == ("The notes say: remember the milk.", [])
    assert third.text == "Nothing more to do."
    assert served == [Served(api, 0, stream), Served(api, 1, stream), Served(api, None, stream)]
    assert first.usage is not None and first.usage.output_tokens > 0


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_request_that_is_not_one_is_refused_in_the_apis_own_shape(api: str) -> None:
    refused = answer(SCRIPT, api, {"model": "x"})  # type: ignore[arg-type]
    assert refused.status == 400 and refused.events is None and refused.body is not None
    error = refused.body["error"]
    assert 'a "messages" list' in error["message"]
    assert (refused.body.get("type") == "error") is (api == "anthropic")
    odd = answer(SCRIPT, api, {"messages": [], "stream": True, "stream_options": "yes"})  # type: ignore[arg-type]
    assert odd.status == 200 and odd.events  # an odd stream_options: no usage chunk asked
    assert (b'"prompt_tokens"' in b"".join(odd.events)) is False


def test_an_agent_runs_on_the_server_through_the_openai_client(
    server: tuple[ScriptServer, list[Served]], tmp_path: Path
) -> None:
    httpd, _ = server
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    agent = Agent(client("openai", httpd.url, stream=True), cwd=tmp_path)
    result = agent.run_sync("read my notes")
    assert [c.status for c in result.tool_calls] == ["executed", "executed"]
    assert "remember the milk" in result.tool_calls[0].content
    assert (tmp_path / "ran.txt").exists()
    assert result.final_text == "The notes say: remember the milk."


# -- the command ------------------------------------------------------------------------------


@pytest.fixture
def command(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``hookline model-server`` on a free port, and its URL (from its first line)."""
    script = tmp_path / "script.json"
    script.write_text(SCRIPT.model_dump_json())
    process = subprocess.Popen(
        [*HOOKLINE, "model-server", "--script", str(script), "--port", "0"],
        env=src_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = process.stdout.readline() if process.stdout else ""
        assert " on http://127.0.0.1:" in first, first
        yield process, first.rsplit(" on ", 1)[1].strip()
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)  # closes its pipes


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_hookline_run_works_against_the_command_and_sigterm_stops_it_quietly(
    command: tuple[subprocess.Popen[str], str], tmp_path: Path, api: str
) -> None:
    process, url = command
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("remember the milk\n")
    env = {"OPENAI_BASE_URL": f"{url}/v1", "ANTHROPIC_BASE_URL": url}

    done = hookline("run", "read my notes", "--model", f"{api}:scripted", "--permission-mode",
                    "acceptEdits", "--output-format", "json", cwd=project, env=env)  # fmt: skip
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=10)

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "The notes say: remember the milk."
    assert (project / "ran.txt").exists()  # the scripted Bash call ran
    assert process.returncode == 0
    assert err.splitlines() == [
        f"{api}: turn 1, streamed (HTTP 200)",
        f"{api}: turn 2, streamed (HTTP 200)",
        "hookline model-server: stopped",
    ]


def test_a_bad_script_or_a_taken_port_is_one_line(
    command: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    _, url = command
    bad = tmp_path / "bad.json"
    bad.write_text('{"turns": [{"txt": "hi"}]}')
    script = tmp_path / "script.json"
    port = url.rsplit(":", 1)[1]

    broken = hookline("model-server", "--script", str(bad))
    taken = hookline("model-server", "--script", str(script), "--port", port)

    assert broken.returncode == 2
    (line,) = broken.stderr.splitlines()
    assert line.startswith(f"hookline: error: {bad}: turns[0].txt: ")
    assert taken.returncode == 2
    (line,) = taken.stderr.splitlines()
    assert line.startswith(f"hookline: error: --port: cannot listen on 127.0.0.1:{port}")
    assert "Traceback" not in broken.stderr + taken.stderr
