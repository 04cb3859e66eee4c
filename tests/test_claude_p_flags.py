"""``hookline -p`` against ``claude -p``, flag by flag: the same command lines, with ``claude``
changed to ``hookline``, compared with the real CLI's recorded output
(``tests/fixtures/claude_p/flags``: one scenario per flag, recorded from Claude Code 2.1.332).

Compared: the exit code; for a refused command line, an empty stdout and one line on stderr;
for text, what is printed; for json, the result object's keys and JSON types and the values
a scenario fixes (``subtype``, ``is_error``, ``num_turns``, the session id where a flag chooses
it); for stream-json, the kinds of Claude Code's lines in order. Never the model's text where
the model differs: hookline is driven by a scripted model playing the recorded model turns
(or, where the flag is about the model, by its Anthropic client against a fake API here).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from fake_claude_api import fake_claude_api
from hookline._cli.claude_flags import NOT_SUPPORTED, refusal
from hookline.models._choice import claude_model

FLAGS = Path(__file__).parent / "fixtures" / "claude_p" / "flags"
SCENARIOS: dict[str, dict[str, Any]] = json.loads((FLAGS / "scenarios.json").read_text())
#: The result object's keys hookline promises, as in ``test_claude_p``.
RESULT_KEYS = (
    "type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms",
    "duration_api_ms", "total_cost_usd", "permission_denials", "usage", "uuid",
)  # fmt: skip
INIT_KEYS = ("type", "subtype", "cwd", "session_id", "tools", "model", "permissionMode", "uuid")
#: The lines of Claude Code's kinds hookline prints in stream-json.
STREAMED = {("system", "init"), ("assistant", None), ("user", None), ("result", "success"),
            ("system", "hook_started"), ("system", "hook_response")}  # fmt: skip
#: Scenarios about the model itself: run on hookline's Anthropic client, against a fake API.
ON_CLIENT = {"model_alias", "include_partial_messages"}
ROOT = os.geteuid() == 0


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FLAGS / f"{name}.json").read_text())
    return data


def json_type(value: object) -> str:
    kinds = {bool: "boolean", int: "number", float: "number", str: "string"}
    kinds.update({list: "array", dict: "object", type(None): "null"})
    return kinds[type(value)]


def typed(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, str]:
    return {key: json_type(data[key]) if key in data else "missing" for key in keys}


def script(scenario: dict[str, Any]) -> dict[str, Any]:
    """The recorded model turns, as a hookline model script."""
    calls = [
        {"tool_calls": [{"name": t["name"], "input": t["input"]}]}
        for t in scenario.get("tools", [])
    ]
    return {"turns": [*calls, {"text": scenario["final"]}] * 2}  # enough for a run before


def run_like_claude(folder: Path, name: str) -> tuple[Any, dict[str, Any]]:
    """``hookline`` with the scenario's command line, in a folder laid out as the recording's;
    the finished process and the recording."""
    scenario, claude = SCENARIOS[name], recorded(name)
    (folder / ".claude").mkdir()
    settings: dict[str, Any] = {}
    if scenario.get("hooks"):
        hook = {"type": "command", "command": "cat > /dev/null"}
        settings["hooks"] = {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}
    (folder / ".claude" / "settings.json").write_text(json.dumps(settings))
    for rel, content in (scenario.get("files") or {}).items():
        (folder / rel).write_text(content)
    for rel in scenario.get("dirs", []):
        (folder / rel).mkdir()
    (folder / "script.json").write_text(json.dumps(script(scenario)))
    env = {"IS_SANDBOX": "1"} if scenario.get("user") else {}
    if "--fallback-model" in scenario["args"]:  # the fallback's client is made, never called
        env["ANTHROPIC_API_KEY"] = "sk-test"
    model = [] if name in ON_CLIENT else ["--model", "scripted:script.json"]
    if scenario.get("before"):
        before = hookline(*scenario["before"], *model, cwd=folder, env=env)
        assert before.returncode == 0, before.stderr
        session = json.loads(before.stdout)["session_id"]
        scenario = {**scenario, "args": [a.replace("@SESSION@", session) for a in scenario["args"]]}
        claude = {**claude, "ours_before": session}
    done = hookline(*scenario["args"], *model, cwd=folder, stdin=scenario.get("stdin"), env=env)
    return done, claude


def lines(stdout: str) -> list[Any]:
    out: list[Any] = []
    for line in stdout.splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            out.append(line)
    return out


def kinds(found: list[Any]) -> list[tuple[str, str | None]]:
    """The kinds of Claude Code's lines hookline prints, in order."""
    seen = [(o["type"], o.get("subtype")) for o in found if isinstance(o, dict)]
    return [kind for kind in seen if kind in STREAMED]


GENERAL = sorted(set(SCENARIOS) - ON_CLIENT - {"dangerously_skip_as_root"})


@pytest.mark.parametrize("name", GENERAL)
def test_hookline_answers_a_claude_p_command_line_as_claude_does(tmp_path: Path, name: str) -> None:
    done, claude = run_like_claude(tmp_path, name)
    ours = lines(done.stdout)
    assert done.returncode == claude["rc"], done.stderr
    if not claude["stdout"]:  # refused: nothing on stdout, one line on stderr
        assert ours == [] and len(done.stderr.splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr
        return
    assert "Traceback" not in done.stderr
    theirs = claude["stdout"]
    if not isinstance(theirs[-1], dict):  # text: the result alone
        assert len(ours) == len(theirs) and all(isinstance(o, str) and o for o in ours)
        if name == "max_turns_text":
            assert ours == theirs
        return
    assert kinds(ours) == kinds(theirs)
    mine = [o for o in ours if isinstance(o, dict) and o["type"] == "result"][-1]
    result = theirs[-1]
    assert typed(mine, RESULT_KEYS) == typed(result, RESULT_KEYS)
    exact = ("type", "subtype", "is_error", "num_turns")
    assert {k: mine[k] for k in exact} == {k: result[k] for k in exact}
    assert [d["tool_name"] for d in mine["permission_denials"]] == [
        d["tool_name"] for d in result["permission_denials"]
    ]
    init = [o for o in ours if isinstance(o, dict) and o.get("subtype") == "init"]
    for line in init:
        recorded_init = next(
            o for o in theirs if isinstance(o, dict) and o.get("subtype") == "init"
        )
        assert typed(line, INIT_KEYS) == typed(recorded_init, INIT_KEYS)
        assert line["permissionMode"] == recorded_init["permissionMode"]
    _session_as_recorded(name, mine, result, claude)
    if "structured_output" in result:
        assert mine["structured_output"] == result["structured_output"]
        assert json.loads(mine["result"]) == json.loads(result["result"])
    assert ("made.txt" in claude["files"]) == (tmp_path / "made.txt").exists()


def _session_as_recorded(
    name: str, mine: dict[str, Any], result: dict[str, Any], claude: dict[str, Any]
) -> None:
    """The session a flag chose is the one Claude Code chose, relative to the run before."""
    if claude.get("before_session_id"):
        same = result["session_id"] == claude["before_session_id"]
        assert (mine["session_id"] == claude["ours_before"]) == same, name
    if "--session-id" in SCENARIOS[name]["args"]:
        assert mine["session_id"] == result["session_id"]


@pytest.mark.skipif(not ROOT, reason="Claude Code refuses the flag only as root")
def test_dangerously_skip_permissions_is_refused_as_root_as_claude_refuses_it(
    tmp_path: Path,
) -> None:
    done, claude = run_like_claude(tmp_path, "dangerously_skip_as_root")
    assert (done.returncode, done.stdout) == (claude["rc"], "")
    (line,) = done.stderr.splitlines()
    assert claude["stderr"][0] in line


def test_a_claude_model_alias_names_the_model_claude_code_calls(tmp_path: Path) -> None:
    claude = recorded("model_alias")
    called = next(iter(claude["stdout"][-1]["modelUsage"]))
    assert claude_model("sonnet", {}) == called
    with fake_claude_api() as api:
        env = {"ANTHROPIC_BASE_URL": api.url(""), "ANTHROPIC_API_KEY": "sk-test"}
        done = hookline("-p", "Say hi.", "--output-format", "json", "--model", "sonnet",
                        "--no-audit", cwd=tmp_path, env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert {body["model"] for body in api.bodies()} == {called}
    assert list(json.loads(done.stdout)["modelUsage"]) == [called]


def test_partial_messages_stream_text_deltas_in_claude_codes_shape(tmp_path: Path) -> None:
    theirs = [o for o in recorded("include_partial_messages")["stdout"] if isinstance(o, dict)]
    deltas = [o for o in theirs if o["type"] == "stream_event"
              and o["event"]["type"] == "content_block_delta"]  # fmt: skip
    with fake_claude_api() as api:
        env = {"ANTHROPIC_BASE_URL": api.url(""), "ANTHROPIC_API_KEY": "sk-test"}
        flags = ["--output-format", "stream-json", "--verbose", "--include-partial-messages"]
        done = hookline("-p", "Say hi.", *flags, "--no-audit", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    ours = [o for o in lines(done.stdout) if o["type"] == "stream_event"]
    keys = ("type", "event", "session_id", "parent_tool_use_id", "uuid")
    assert ours and all(typed(o, keys) == typed(deltas[0], keys) for o in ours)
    assert {o["event"]["delta"]["type"] for o in ours} == {"text_delta"}
    text = "".join(o["event"]["delta"]["text"] for o in ours)
    assert text == lines(done.stdout)[-1]["result"]  # the deltas add up to the result


@pytest.mark.parametrize("flag", ["--effort", "--tools", "--bare", "-w", "--max-budget-usd"])
def test_a_claude_flag_hookline_lacks_is_refused_by_name_in_one_line(
    tmp_path: Path, flag: str
) -> None:
    done = hookline("-p", "Say hi.", flag, "x", "--model", "rules", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")  # as claude -p ends a usage error
    (line,) = done.stderr.splitlines()
    assert f"{flag} is a claude flag hookline does not support" in line
    assert "No such option" not in line


def test_every_claude_flag_is_taken_or_refused_with_a_reason() -> None:
    """Each flag of ``claude --help`` 2.1.332 is either one hookline run takes or one it
    refuses, saying why (the list is the recorded help's)."""
    from hookline._cli.run_cmd import run

    taken = {name for param in run.params for name in (*param.opts, *param.secondary_opts)}
    claude = set((FLAGS / "claude_help_flags.txt").read_text().split())
    assert claude - taken - set(NOT_SUPPORTED) - {"-h", "--help", "-v", "--version"} == set()
    assert all(refusal(f).startswith(f"{f} is a claude flag") for f in NOT_SUPPORTED)


def test_the_conformance_table_in_the_docs_names_every_recorded_scenario() -> None:
    docs = (Path(__file__).parents[1] / "docs" / "compatibility.md").read_text()
    table = docs.split("a drop-in for `claude -p`", 1)[1].split("Differences that remain", 1)[0]
    assert [name for name in SCENARIOS if f"`{name}`" not in table] == []
