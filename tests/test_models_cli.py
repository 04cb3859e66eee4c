"""``hookline run`` with real model clients: ``--model`` and its default, the text streamed to
the terminal, rules kept against the model's calls, and a failed call as one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import hookline, src_env
from hookline import RuleModel, ScriptedModel
from hookline._errors import ConfigError
from hookline.models._anthropic import AnthropicModel
from hookline.models._choice import NO_PROVIDER, default_spec, model_from_spec
from hookline.models._openai import OpenAIModel
from model_servers import (
    Events,
    anthropic_events,
    fragments,
    model_server,
    openai_chunks,
    openai_error,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    return tmp_path


def test_model_from_spec_names_each_kind_of_model(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('{"turns": [{"text": "done"}]}')
    env = {"OPENAI_API_KEY": "sk", "ANTHROPIC_API_KEY": "sk-ant", "OPENAI_MODEL": "gpt-x"}
    assert isinstance(model_from_spec("rules"), RuleModel)
    assert isinstance(model_from_spec(f"scripted:{script}"), ScriptedModel)
    openai = model_from_spec("openai:gpt-4o", env=env)
    assert isinstance(openai, OpenAIModel) and openai.name == "gpt-4o"
    assert model_from_spec("openai", env=env).name == "gpt-x"  # OPENAI_MODEL
    anthropic = model_from_spec("anthropic:claude-haiku-4-5", env=env)
    assert isinstance(anthropic, AnthropicModel) and anthropic.name == "claude-haiku-4-5"
    with pytest.raises(ConfigError, match=r"--model: unknown model 'gpt-4o'.*openai:NAME"):
        model_from_spec("gpt-4o")


@pytest.mark.parametrize(
    ("env", "spec"),
    [
        ({}, "rules"),
        ({"OPENAI_API_KEY": "sk"}, "openai:gpt-4o"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OPENAI_MODEL": "qwen3"}, "openai:qwen3"),
        ({"ANTHROPIC_API_KEY": "sk-ant"}, "anthropic:claude-sonnet-4-5"),
        ({"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk"}, "openai:gpt-4o"),
        ({"OPENAI_MODEL": "gpt-4o"}, "rules"),  # a model name alone configures nothing
    ],
)
def test_without_model_the_first_configured_provider_is_used(
    env: dict[str, str], spec: str
) -> None:
    chosen, note = default_spec(env)
    assert chosen == spec
    assert (note == NO_PROVIDER) is (spec == "rules")


def test_run_without_a_provider_uses_the_rule_model_and_says_so_in_one_line(
    project: Path,
) -> None:
    done = hookline("run", "read notes.txt", "--output-format", "json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tool_calls"][0]["name"] == "Read"
    (note,) = done.stderr.splitlines()
    assert note == f"hookline: {NO_PROVIDER}"


def test_run_without_model_picks_the_provider_the_environment_configures(project: Path) -> None:
    with model_server([Events(anthropic_events(["Hi from the server."]))]) as server:
        env = {"ANTHROPIC_BASE_URL": server.url(""), "ANTHROPIC_MODEL": "claude-test"}
        done = hookline("run", "hello", "--output-format", "json", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout)["final_text"] == "Hi from the server."
    assert server.bodies()[0]["model"] == "claude-test"


def test_a_deny_rule_holds_against_the_remote_models_tool_call(project: Path) -> None:
    sentinel = project / "sentinel"
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(touch *)"]}})
    )
    call = ("call_1", "Bash", fragments(json.dumps({"command": f"touch {sentinel}"}), 4))
    turns = [
        Events(openai_chunks(["I'll create it."], [call], usage=(50, 10, 0))),
        Events(openai_chunks(["It was refused."], usage=(70, 5, 40))),
    ]
    with model_server(turns) as server:
        done = hookline(
            "run", "make the sentinel", "--model", "openai:test-model", "--permission-mode",
            "bypassPermissions", "--output-format", "json", cwd=project,
            env={"OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test"},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    (blocked,) = out["tool_calls"]
    assert blocked["status"] == "blocked" and "Bash(touch *)" in blocked["reason"]
    assert not sentinel.exists()
    assert out["stop_reason"] == "end_turn" and out["final_text"] == "It was refused."
    assert out["usage"] == {
        "input_tokens": 80,
        "output_tokens": 15,
        "cache_read_input_tokens": 40,
        "cache_creation_input_tokens": 0,
    }
    tool_message = server.bodies()[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "Bash(touch *)" in tool_message["content"]
    assert [body["model"] for body in server.bodies()] == ["test-model", "test-model"]


def test_text_mode_shows_the_streamed_text_once_each_line_quoted(project: Path) -> None:
    pieces = ["Line o", "ne\nLi", "ne two", "\x1b[31m!"]
    with model_server([Events(openai_chunks(pieces))]) as server:
        env = {"OPENAI_BASE_URL": server.url("/v1")}
        done = hookline("run", "talk", "--model", "openai:test-model", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["> Line one", "> Line two\\x1b[31m!"]  # escaped, as printed text is
    assert done.stdout.count("Line one") == 1  # not again in the summary
    assert lines[2].startswith("-- end_turn · 1 model calls")


def test_json_mode_streams_nothing_and_prints_one_object(project: Path) -> None:
    with model_server([Events(openai_chunks(["Hel", "lo"]))]) as server:
        env = {"OPENAI_BASE_URL": server.url("/v1")}
        done = hookline(
            "run", "talk", "--model", "openai:test-model", "--output-format", "json",
            cwd=project, env=env,
        )  # fmt: skip
    assert json.loads(done.stdout)["final_text"] == "Hello"


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_refused_key_is_one_line_exit_2_and_the_run_is_on_record(
    project: Path, output: str
) -> None:
    with model_server([openai_error(401, "Incorrect API key provided")]) as server:
        env = {"OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-wrong"}
        done = hookline(
            "run", "hello", "--model", "openai:test-model", "--output-format", output,
            cwd=project, env=env,
        )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line == (
        "hookline: error: OPENAI_API_KEY was refused (401: Incorrect API key provided): "
        "set a valid key"
    )
    if output == "json":
        out = json.loads(done.stdout)
        assert out["stop_reason"] == "model_error" and out["model_calls"] == 0
    else:
        assert "-- model_error (OPENAI_API_KEY was refused" in done.stdout


def test_a_missing_sdk_says_how_to_install_it(project: Path) -> None:
    """The SDK made unimportable in a fresh process: ``import openai`` fails as when it is not
    installed."""
    code = (
        "import sys; sys.modules['openai'] = None; from hookline._cli.main import main; "
        "main(['run', 'hi', '--model', 'openai:gpt-4o'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        env=src_env({"OPENAI_API_KEY": "sk"}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'hookline[openai]'" in done.stderr
    assert len(done.stderr.splitlines()) == 1
