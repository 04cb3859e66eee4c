"""``hookline run`` speaks ``claude -p``: its tool-rule flags, and json / stream-json output
compared field by field with output recorded from the real Claude Code CLI
(``tests/fixtures/claude_p``: the same scenario, the model turns and ids taken from it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._cli.tool_rules import split_rules
from hookline._errors import ConfigError

RECORDED = Path(__file__).parent / "fixtures" / "claude_p"
SCENARIO = json.loads((RECORDED / "scenario.json").read_text())
STREAM = [json.loads(line) for line in (RECORDED / "stream.jsonl").read_text().splitlines()]
RESULT = json.loads((RECORDED / "result.json").read_text())
MAX_TURNS = json.loads((RECORDED / "max_turns.json").read_text())

#: The keys hookline promises, per kind of line, with the JSON type Claude Code gives each.
RESULT_KEYS = (
    "type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms",
    "duration_api_ms", "total_cost_usd", "permission_denials", "usage", "uuid",
)  # fmt: skip
USAGE_KEYS = (
    "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
)  # fmt: skip
INIT_KEYS = ("type", "subtype", "cwd", "session_id", "tools", "model", "permissionMode", "uuid")
MESSAGE_KEYS = ("type", "message", "parent_tool_use_id", "session_id", "uuid", "timestamp")
ASSISTANT_KEYS = ("id", "type", "role", "model", "content", "stop_reason", "stop_sequence")
BODY_KEYS = {
    "assistant": (*ASSISTANT_KEYS, "usage"),
    "user": ("role", "content"),
}
BLOCK_KEYS = {
    "text": ("type", "text"),
    "tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
}
#: What hookline observes with: its own hook_run lines must show up beside Claude Code's.
WATCH_HOOK = """
def register(registry):
    registry.add("PreToolUse", lambda event: None, name="watch")
"""


def json_type(value: object) -> str:
    kinds = {bool: "boolean", int: "number", float: "number", str: "string"}
    kinds.update({list: "array", dict: "object", type(None): "null"})
    return kinds[type(value)]


def typed(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, str]:
    """``data``'s ``keys`` and their JSON types (a missing key shows as "missing")."""
    return {key: json_type(data[key]) if key in data else "missing" for key in keys}


def model_script(*, denied_id: str | None = None) -> dict[str, Any]:
    """The recorded model turns, as a hookline script (with the recorded tool_use ids; the
    denied call's id replaced by ``denied_id``, for a recording from another run)."""
    turns: list[dict[str, Any]] = []
    for line in STREAM:
        if line["type"] != "assistant":
            continue
        calls = [
            {"id": b["id"], "name": b["name"], "input": b["input"]}
            for b in line["message"]["content"]
            if b["type"] == "tool_use"
        ]
        for call in calls:
            if denied_id and call["input"]["command"].startswith("rm"):
                call["id"] = denied_id
        text = "".join(b["text"] for b in line["message"]["content"] if b["type"] == "text")
        turns.append({"tool_calls": calls} if calls else {"text": text})
    return {"turns": turns}


def run_scenario(folder: Path, *flags: str, script: dict[str, Any] | None = None) -> Any:
    """``hookline run`` on the recorded scenario with the recorded flags (and ``flags``)."""
    for name, content in SCENARIO["files"].items():
        (folder / name).write_text(content)
    (folder / "script.json").write_text(json.dumps(script or model_script()))
    (folder / "watch.py").write_text(WATCH_HOOK)
    return hookline(
        "run", SCENARIO["prompt"], "--model", "scripted:script.json", "--hooks", "watch.py",
        "--no-audit", *SCENARIO["flags"], *flags, cwd=folder,
    )  # fmt: skip


@pytest.fixture
def streamed(tmp_path: Path) -> list[dict[str, Any]]:
    done = run_scenario(tmp_path, "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "notes.txt").read_text() == "keep me\n"  # the denied rm never ran
    return [json.loads(line) for line in done.stdout.splitlines()]


def claude_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines of Claude Code's kinds that hookline emits (not its permission_denied)."""
    return [
        line
        for line in lines
        if line["type"] in ("assistant", "user", "result")
        or (line["type"] == "system" and line.get("subtype") == "init")
    ]


# -- json -----------------------------------------------------------------------------------


def test_json_result_has_claude_codes_keys_and_types_and_keeps_hooklines(tmp_path: Path) -> None:
    denied = RESULT["permission_denials"][0]["tool_use_id"]
    done = run_scenario(tmp_path, "--output-format", "json", script=model_script(denied_id=denied))
    assert done.returncode == 0, done.stderr
    ours = json.loads(done.stdout)
    assert typed(ours, RESULT_KEYS) == typed(RESULT, RESULT_KEYS)
    assert typed(ours["usage"], USAGE_KEYS) == typed(RESULT["usage"], USAGE_KEYS)
    exact = ("type", "subtype", "is_error", "result", "num_turns", "permission_denials")
    assert {k: ours[k] for k in exact} == {k: RESULT[k] for k in exact}
    assert ours["stop_reason"] == "end_turn" and ours["final_text"] == RESULT["result"]
    assert [(c["name"], c["status"]) for c in ours["tool_calls"]] == [
        ("Bash", "executed"),
        ("Bash", "blocked"),
    ]
    assert (tmp_path / "notes.txt").exists()  # the denied rm never ran


def test_json_max_turns_is_claude_codes_error_max_turns(tmp_path: Path) -> None:
    done = run_scenario(tmp_path, "--output-format", "json", "--max-turns", "1")
    ours = json.loads(done.stdout)
    keys = (*(k for k in RESULT_KEYS if k != "result"), "errors")  # Claude Code has no result
    assert typed(ours, keys) == typed(MAX_TURNS, keys)
    exact = ("type", "subtype", "is_error", "num_turns", "errors", "permission_denials")
    assert {k: ours[k] for k in exact} == {k: MAX_TURNS[k] for k in exact}
    assert ours["stop_reason"] == "max_turns" and ours["model_calls"] == 1


# -- stream-json ----------------------------------------------------------------------------


def test_stream_json_lines_come_in_claude_codes_order(streamed: list[dict[str, Any]]) -> None:
    kinds = [(line["type"], line.get("subtype")) for line in claude_lines(streamed)]
    assert kinds == [(line["type"], line.get("subtype")) for line in claude_lines(STREAM)]
    assert streamed[0]["type"] == "system" and streamed[-1]["type"] == "result"
    assert {line["session_id"] for line in claude_lines(streamed)} == {streamed[0]["session_id"]}
    own = {line["type"] for line in streamed} - {"system", "assistant", "user", "result"}
    assert own == {"event", "hook_run", "tool_call"}  # hookline's own lines, beside them
    assert [r["hook"] for r in streamed if r["type"] == "hook_run"] == ["watch", "watch"]


def test_stream_json_init_has_claude_codes_keys(streamed: list[dict[str, Any]]) -> None:
    init, recorded = streamed[0], STREAM[0]
    assert typed(init, INIT_KEYS) == typed(recorded, INIT_KEYS)
    assert (init["permissionMode"], init["model"]) == ("default", "scripted")
    assert (
        "Bash" in init["tools"]
        and init["cwd"] == streamed[-1]["transcript_path"].split("/.hookline/")[0]
    )


@pytest.mark.parametrize("kind", ["assistant", "user"])
def test_stream_json_messages_have_claude_codes_shape(
    streamed: list[dict[str, Any]], kind: str
) -> None:
    ours = [line for line in streamed if line["type"] == kind]
    recorded = [line for line in STREAM if line["type"] == kind]
    assert len(ours) == len(recorded) == {"assistant": 3, "user": 2}[kind]
    for mine, theirs in zip(ours, recorded, strict=True):
        assert typed(mine, MESSAGE_KEYS) == typed(theirs, MESSAGE_KEYS)
        body, keys = mine["message"], BODY_KEYS[kind]
        assert typed(body, keys) == typed(theirs["message"], keys)
        blocks = [(b["type"], typed(b, BLOCK_KEYS[b["type"]])) for b in body["content"]]
        recorded_blocks = theirs["message"]["content"]
        assert blocks == [(b["type"], typed(b, BLOCK_KEYS[b["type"]])) for b in recorded_blocks]
        if kind == "assistant":
            assert body["content"] == recorded_blocks  # the same calls, ids and text
            assert typed(body["usage"], USAGE_KEYS) == typed(theirs["message"]["usage"], USAGE_KEYS)
        else:
            same = ("tool_use_id", "is_error")
            assert [{k: b[k] for k in same} for b in body["content"]] == [
                {k: b[k] for k in same} for b in recorded_blocks
            ]
    if kind == "user":  # the command ran: its output is what Claude Code's was
        assert ours[0]["message"]["content"][0]["content"] == "hello"


def test_stream_json_result_matches_the_json_result(streamed: list[dict[str, Any]]) -> None:
    ours, recorded = streamed[-1], STREAM[-1]
    assert typed(ours, RESULT_KEYS) == typed(recorded, RESULT_KEYS)
    exact = ("type", "subtype", "is_error", "result", "num_turns", "permission_denials")
    assert {k: ours[k] for k in exact} == {k: recorded[k] for k in exact}


# -- --allowedTools / --disallowedTools ----------------------------------------------------


@pytest.mark.parametrize(
    ("values", "rules"),
    [
        (["Bash(git log:*) Edit"], ("Bash(git log:*)", "Edit")),
        (["Read,Glob", "Grep"], ("Read", "Glob", "Grep")),
        (["Bash(a, b),  WebFetch ,"], ("Bash(a, b)", "WebFetch")),
        (["Read", "Read"], ("Read",)),
    ],
)
def test_tool_rules_split_on_commas_and_spaces_outside_parentheses(
    values: list[str], rules: tuple[str, ...]
) -> None:
    assert split_rules(values, flag="--allowedTools") == rules


def test_a_malformed_tool_rule_names_its_flag() -> None:
    with pytest.raises(ConfigError, match="--disallowedTools"):
        split_rules(["Bash(rm:*"], flag="--disallowedTools")


def test_a_malformed_tool_rule_stops_the_run_before_any_tool(tmp_path: Path) -> None:
    done = run_scenario(tmp_path, "--disallowed-tools", "Bash(rm:*")
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "--disallowedTools" in line and "Traceback" not in done.stderr
    assert not list(tmp_path.rglob("transcripts/*.jsonl"))  # no session started


TOUCH = {"turns": [{"tool_calls": [{"name": "Bash", "input": {"command": "touch made.txt"}}]}]}


def touch_run(folder: Path, *flags: str) -> Any:
    (folder / "script.json").write_text(json.dumps({"turns": [*TOUCH["turns"], {"text": "ok"}]}))
    done = hookline(
        "run", "make it", *flags, "--model", "scripted:script.json", "--output-format", "json",
        "--no-audit", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_allowed_tools_take_several_values_and_allow_the_call(tmp_path: Path) -> None:
    out = touch_run(tmp_path, "--allowedTools", "Read", "Bash(touch:*)")
    assert out["tool_calls"][0]["status"] == "executed" and out["permission_denials"] == []
    assert (tmp_path / "made.txt").exists()


def test_without_the_allow_rule_the_call_is_denied(tmp_path: Path) -> None:
    out = touch_run(tmp_path, "--allowedTools", "Read")
    assert [d["tool_input"] for d in out["permission_denials"]] == [{"command": "touch made.txt"}]
    assert not (tmp_path / "made.txt").exists()


def test_a_settings_deny_rule_beats_an_allowed_tools_rule(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    deny = {"permissions": {"deny": ["Bash(touch:*)"]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(deny))
    out = touch_run(tmp_path, "--allowed-tools", "Bash(touch:*)")
    assert out["tool_calls"][0]["status"] == "blocked"
    assert "project settings" in out["tool_calls"][0]["reason"]
    assert not (tmp_path / "made.txt").exists()


def test_disallowed_tools_beat_a_settings_allow_rule(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    allow = {"permissions": {"allow": ["Bash(touch:*)"]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(allow))
    out = touch_run(tmp_path, "--disallowedTools", "Bash(touch:*)")
    assert "--disallowedTools rule Bash(touch:*)" in out["tool_calls"][0]["reason"]
    assert not (tmp_path / "made.txt").exists()


def test_a_prompt_taken_by_a_rule_flag_is_a_one_line_error_saying_where_to_put_it(
    tmp_path: Path,
) -> None:
    done = hookline("run", "--allowedTools", "Read", "read notes.txt", "--model", "rules",
                    cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "missing the prompt" in line and "put the prompt before --allowedTools" in line


def test_after_double_dash_the_prompt_is_not_a_rule(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me\n")
    done = hookline(
        "run", "--model", "rules", "--no-audit", "--output-format", "json",
        "--allowedTools", "Read", "Glob", "--", "read notes.txt", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [(c["name"], c["origin"]) for c in out["tool_calls"]] == [("Read", "rule")]
