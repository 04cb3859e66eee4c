"""``hookline replay``: recorded sessions (hookline's own, written by a real run, and Claude
Code's transcript shape) judged by another policy, without running a tool: what changes, who
decides now, the exit code a CI job gates on, and two policies compared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from hookline._cli.main import cli, main


def replay(*args: str) -> Result:
    return CliRunner().invoke(cli, ["replay", *args])


def hookline_session(project: Path, commands: list[str]) -> Path:
    """A real ``hookline run`` in ``project`` whose model runs each Bash command (allowed by a
    rule), then answers; the folder holding its transcript."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "Bash", "input": {"command": command}}]} for command in commands
    ]
    script = project / "script.json"
    script.write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    rules = json.dumps({"permissions": {"allow": ["Bash(touch:*)", "Bash(echo:*)"]}})
    ran = CliRunner().invoke(
        cli,
        ["run", "--cwd", str(project), "--model", f"scripted:{script}", "--settings", rules, "go"],
    )
    assert ran.exit_code == 0, ran.output
    return project / ".hookline" / "state" / "transcripts"


def policy(folder: Path, settings: dict[str, Any]) -> Path:
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(settings))
    return folder


def as_json(result: Result) -> dict[str, Any]:
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def test_a_deny_rule_replayed_over_a_real_session_denies_the_call_and_runs_nothing(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    transcripts = hookline_session(project, ["touch SENTINEL", "echo hi"])
    assert (project / "SENTINEL").exists()  # it ran when it was recorded
    (project / "SENTINEL").unlink()
    strict = policy(tmp_path / "strict", {"permissions": {"deny": ["Bash(touch:*)"]}})
    result = replay(str(transcripts), "--cwd", str(strict), "--json", "--fail-on", "newly-denied")
    assert result.exit_code == 1  # a change --fail-on names
    report = as_json(result)
    [changed] = report["events"]
    assert changed["tool_input"] == {"command": "touch SENTINEL"}
    assert (changed["was"], changed["now"]["permission"]) == ("allow", "deny")
    assert changed["change"] == "newly-denied" and changed["now"]["by"] == "rule"
    assert report["totals"]["by_change"] == {"newly-denied": 1}
    assert report["totals"]["by_tool"] == {"Bash": 1}
    assert not (project / "SENTINEL").exists()  # replay never runs a tool
    same = replay(str(transcripts), "--cwd", str(project), "--fail-on", "newly-denied")
    assert same.exit_code == 0, same.output  # the project's own policy: a "none" is no change


def test_a_call_hookline_denied_is_newly_allowed_under_a_looser_policy(tmp_path: Path) -> None:
    """hookline's own audit says what happened to each call: here, refused by a deny rule."""
    project = policy(tmp_path / "project", {"permissions": {"deny": ["Bash(echo:*)"]}})
    transcripts = hookline_session(project, ["echo no"])
    loose = policy(tmp_path / "loose", {"permissions": {"allow": ["Bash(echo:*)"]}})
    report = as_json(replay(str(transcripts), "--cwd", str(loose), "--json"))
    [changed] = report["events"]
    assert (changed["was"], changed["now"]["permission"]) == ("deny", "allow")
    assert changed["change"] == "newly-allowed"
    text = replay(str(transcripts), "--cwd", str(loose), "--fail-on", "newly-allowed")
    assert text.exit_code == 1
    assert "2 events replayed, 1 changed" in text.output  # the prompt, and the call
    assert "by change: newly-allowed 1" in text.output


def claude_code_transcript(path: Path, cwd: Path) -> Path:
    """A Claude Code session file (the shape of ``~/.claude/projects/<p>/<s>.jsonl``): a
    prompt, then three Bash calls: one that ran, one a PreToolUse hook refused, one that ended
    in an error (a refusal and a failure look alike there)."""
    base = {"cwd": str(cwd), "sessionId": "cc-1", "version": "2.1.332", "userType": "external"}
    lines: list[dict[str, Any]] = [
        {**base, "type": "user", "message": {"role": "user", "content": "clean up"}},
        {"type": "summary", "summary": "not an event"},
    ]
    calls = [
        ("toolu_1", "rm -rf build", False, "removed"),
        ("toolu_2", "git push --force", True, "PreToolUse:Bash hook error: [guard.sh]: no"),
        ("toolu_3", "curl https://example.com", True, "Exit code 6"),
    ]
    for call_id, command, failed, said in calls:
        use = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
        said_by = {"role": "assistant", "content": [use]}
        lines.append({**base, "type": "assistant", "message": said_by})
        result = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": said,
            "is_error": failed,
        }
        lines.append({**base, "type": "user", "message": {"role": "user", "content": [result]}})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    return path


def test_a_claude_code_session_replayed_says_what_each_call_becomes(tmp_path: Path) -> None:
    session = claude_code_transcript(tmp_path / "cc-1.jsonl", tmp_path)
    rules = {"permissions": {"deny": ["Bash(rm:*)", "Bash(curl:*)"], "allow": ["Bash(git:*)"]}}
    strict = policy(tmp_path / "strict", rules)
    report = as_json(replay(str(session), "--cwd", str(strict), "--json", "--all"))
    events = {
        e["tool_input"]["command"] if e["tool_input"] else e["prompt"]: e for e in report["events"]
    }
    assert (
        events["clean up"]["event"] == "UserPromptSubmit" and events["clean up"]["change"] is None
    )
    assert events["rm -rf build"]["change"] == "newly-denied"
    push = events["git push --force"]
    assert push["was"] == "deny"  # a Claude Code hook refused it
    # the rule allows git, and the dangerous tier still asks before a force push
    assert push["change"] == "newly-asked"
    assert push["now"]["by"].startswith("tier:dangerous")
    assert events["curl https://example.com"]["was"] == "error"
    assert events["curl https://example.com"]["change"] == "unclear-before"
    assert report["totals"]["events"] == 4


def test_two_policies_compared_on_the_same_history(tmp_path: Path) -> None:
    session = claude_code_transcript(tmp_path / "cc-1.jsonl", tmp_path)
    old = policy(tmp_path / "old", {"permissions": {"allow": ["Bash(rm:*)"]}})
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    forward = as_json(replay(str(session), "--diff", str(old), str(new), "--json"))
    [changed] = forward["events"]
    assert changed["tool_input"] == {"command": "rm -rf build"}
    assert (changed["was"], changed["now"]["permission"], changed["change"]) == (
        "allow",
        "deny",
        "newly-denied",
    )
    back = as_json(replay(str(session), "--diff", str(new), str(old), "--json"))
    assert [e["change"] for e in back["events"]] == ["newly-allowed"]


HOOKS = """
from hookline import Decision

def no_force(event):
    if "--force" in event.tool_input.get("command", ""):
        return Decision.deny("force pushes rewrite shared history")

def quiet(event):
    command = event.tool_input.get("command", "")
    if command.startswith("rm "):
        return Decision(updated_input={"command": command.replace("-rf", "-r")})

def register(registry):
    registry.add("PreToolUse", no_force, matcher="Bash", name="no_force")
    registry.add("PreToolUse", quiet, matcher="Bash", kind="transformer", name="quiet")
"""


def test_python_hooks_decide_and_rewrite_and_are_named(tmp_path: Path) -> None:
    session = claude_code_transcript(tmp_path / "cc-1.jsonl", tmp_path)
    hooks = tmp_path / "guard.py"
    hooks.write_text(HOOKS)
    folder = policy(tmp_path / "rm-ok", {"permissions": {"allow": ["Bash(rm:*)"]}})
    args = ("--cwd", str(folder), "--hooks", str(hooks), "--json", "--all")
    report = as_json(replay(str(session), *args))
    events = {e["tool_input"]["command"]: e for e in report["events"] if e["tool_input"]}
    rm = events["rm -rf build"]
    assert rm["change"] == "rewritten" and rm["now"]["rewritten"] == {"command": "rm -r build"}
    push = events["git push --force"]
    assert push["now"]["permission"] == "deny" and push["change"] is None  # denied before too
    assert "no_force" in push["now"]["by"]
    assert push["now"]["reason"] == "force pushes rewrite shared history"


def test_command_hooks_run_for_real_unless_left_out(tmp_path: Path) -> None:
    session = claude_code_transcript(tmp_path / "cc-1.jsonl", tmp_path)
    seen = tmp_path / "seen.log"
    script = tmp_path / "deny_rm.sh"
    script.write_text(
        f'#!/bin/sh\ntee -a "{seen}" | grep -q \'"command":"rm \' && exit 2\nexit 0\n'
    )
    script.chmod(0o755)
    hook = {"type": "command", "command": str(script)}
    settings = {
        "permissions": {"allow": ["Bash(rm:*)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
    }
    folder = policy(tmp_path / "hooked", settings)
    ran = as_json(replay(str(session), "--cwd", str(folder), "--json", "--all"))
    rm = next(e for e in ran["events"] if e["tool_input"] == {"command": "rm -rf build"})
    assert rm["change"] == "newly-denied" and rm["now"]["by"] == str(script)
    assert seen.read_text().count('"hook_event_name":"PreToolUse"') == 3  # each call, for real
    seen.unlink()
    skipped = as_json(
        replay(str(session), "--cwd", str(folder), "--json", "--all", "--skip-commands")
    )
    rm = next(e for e in skipped["events"] if e["tool_input"] == {"command": "rm -rf build"})
    assert rm["change"] is None and not seen.exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--fail-on", "newly-blue"], "--fail-on newly-blue: not a kind of change"),
        (["--diff", "nowhere", "nowhere-else"], "--diff nowhere: no such folder or settings file"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    session = claude_code_transcript(tmp_path / "cc-1.jsonl", tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(session), "--cwd", str(tmp_path), *args])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and said in err and "Traceback" not in err


def test_a_missing_session_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(tmp_path / "gone.jsonl")])
    assert exited.value.code == 2
    assert "gone.jsonl: no such file or folder" in capsys.readouterr().err


def test_a_line_separator_inside_a_string_does_not_cut_the_entry(tmp_path: Path) -> None:
    """JavaScript's JSON keeps U+2028 raw in a string; the entry is one line all the same."""
    from hookline._replay import read

    session = tmp_path / "cc.jsonl"
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "echo a\u2028b"}}
    entry = {"cwd": str(tmp_path), "sessionId": "s", "type": "assistant",
             "message": {"content": [use]}}  # fmt: skip
    session.write_text(json.dumps(entry, ensure_ascii=False) + "\n", encoding="utf-8")
    [call] = read(session)
    assert call.tool_input == {"command": "echo a\u2028b"}


def test_a_hostile_session_file_is_read_as_far_as_it_is_json(tmp_path: Path) -> None:
    """A line nested deeper than any JSON reader goes, or one that is not JSON, is skipped;
    the calls around it are read."""
    from hookline._replay import read

    base = {"cwd": str(tmp_path), "sessionId": "s", "type": "assistant"}
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    lines = [
        "[" * 100_000 + "]" * 100_000,
        "{not json",
        json.dumps(base | {"message": {"content": [use]}}),
    ]
    session = tmp_path / "hostile.jsonl"
    session.write_text("\n".join(lines) + "\n")
    [call] = read(session)
    assert call.tool_input == {"command": "ls"}


def test_the_policy_judges_in_its_own_permission_mode(tmp_path: Path) -> None:
    """A policy whose settings say ``dontAsk`` refuses what ``default`` would ask about."""
    session = claude_code_transcript(tmp_path / "cc-1.jsonl", tmp_path)
    rules = {"permissions": {"defaultMode": "dontAsk", "allow": ["Bash(git:*)"]}}
    strict = policy(tmp_path / "never-asks", rules)
    report = as_json(replay(str(session), "--cwd", str(strict), "--json", "--all"))
    rm = next(e for e in report["events"] if e["tool_input"] == {"command": "rm -rf build"})
    assert rm["now"]["permission"] == "deny" and rm["change"] == "newly-denied"


SEVENTH = """
from hookline import Decision

seen = {}

def seventh(event):
    n = seen[event.session_id] = seen.get(event.session_id, 0) + 1
    if n % 7 == 0:
        return Decision.deny(f"the 7th call of {event.session_id}")

def register(registry):
    registry.add("PreToolUse", seventh, name="seventh")
"""


def sessions_of(folder: Path, count: int, calls: int) -> list[Path]:
    """``count`` Claude Code session files of ``calls`` Read calls each, one session each."""
    made = []
    for n in range(count):
        lines = []
        for i in range(calls):
            use = {"type": "tool_use", "id": f"s{n}c{i}", "name": "Read"}
            use["input"] = {"file_path": f"f{i}.txt"}
            done = {"type": "tool_result", "tool_use_id": use["id"], "content": "ok"}
            base = {"cwd": str(folder), "sessionId": f"session-{n}"}
            lines.append({**base, "type": "assistant", "message": {"content": [use]}})
            lines.append({**base, "type": "user", "message": {"content": [done]}})
        path = folder / f"s{n}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        made.append(path)
    return made


def test_several_processes_judge_each_session_whole_and_report_as_one(tmp_path: Path) -> None:
    """A hook that counts a session's calls denies the same calls whether one process judges
    everything or three share the sessions: each session stays whole and in order, and the
    report comes back in the history's order."""
    (tmp_path / "hooks.py").write_text(SEVENTH)
    files = [str(p) for p in sessions_of(tmp_path, 5, 30)]

    def replayed(jobs: int) -> dict[str, Any]:
        hooks = str(tmp_path / "hooks.py")
        args = ["replay", *files, "--cwd", str(tmp_path), "--hooks", hooks, "--jobs", str(jobs)]
        command = [sys.executable, "-m", "hookline", *args, "--json", "--all"]
        ran = subprocess.run(command, capture_output=True, text=True, check=True)
        return json.loads(ran.stdout)  # type: ignore[no-any-return]

    alone, shared = replayed(1), replayed(3)
    assert shared == alone
    denied = [e["tool_use_id"] for e in alone["events"] if e["now"]["permission"] == "deny"]
    assert denied == [f"s{n}c{i}" for n in range(5) for i in (6, 13, 20, 27)]
    assert alone["totals"]["by_who"] == {"newly-denied: seventh": 20}


def test_sessions_are_shared_out_whole_and_in_order() -> None:
    from hookline._replay import Recorded
    from hookline._replay.parallel import processes, shares

    sizes = {"a": 5, "b": 3, "c": 3, "d": 1}
    events = [Recorded(f"x:{i}", s, "/w", "PreToolUse") for s, n in sizes.items() for i in range(n)]
    split = shares(events, 2)
    assert sorted(i for share in split for i in share) == list(range(len(events)))
    for share in split:
        assert share == sorted(share)
    sessions = [{events[i].session_id for i in share} for share in split]
    assert sessions[0].isdisjoint(sessions[1])
    assert sorted(len(share) for share in split) == [6, 6]
    assert shares(events, 9) == [[0, 1, 2, 3, 4], [5, 6, 7], [8, 9, 10], [11]]
    assert processes(100, 4) == 4
    assert processes(100) == 1  # too few events to pay for a second process


def test_a_copy_of_a_process_with_threads_is_never_made() -> None:
    import threading

    from hookline._replay.parallel import start_method

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert start_method() == "spawn"
    finally:
        stop.set()
        thread.join()
