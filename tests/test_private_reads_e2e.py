"""hookline's key, end to end. In default mode, with no rule and no sandbox, a Bash line that
reads the per-user key (which keys the audit's chain and seals paused sessions) or a session's
transcript is not run unasked, so the key never reaches the model, the output or the store.
The key is a canary: its text must appear nowhere in what the run printed. A key that
cannot be used stops `hookline run` in one line, before the model is asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cc_scenarios import bash, calls, say
from cli_runner import hookline
from hookline import Agent, ScriptedModel
from hookline._tools.builtin import Bash
from hookline.permissions import PermissionPolicy, _protected

KEY = "c0ffee" * 10 + "beef"


@pytest.mark.parametrize(
    "line",
    [
        "cat ~/.hookline/keys/state.key",
        "cat $HOME/.hookline/keys/state.key",
        "head -c 80 ~/.hook*/keys/*",
        "grep -r . ~/.hookline",
        "cat keylink",
        "cd ~/.hookline && base64 keys/state.key",
        "od -c ~/.hookline/keys/state.ke[y]",
        "cat /proc/self/root$HOME/.hookline/keys/state.key",
        "cat ../home/.hookline//keys/state.key",
        "tar cf - ~/.hookline",
    ],
)
def test_a_read_of_the_key_is_not_run_unasked(tmp_path: Path, line: str) -> None:
    assert_key_kept(tmp_path, line)


#: Lines whose own words name the key (through wrappers, runners, quotes, escapes, a cd, a
#: glob, a link): not run even in bypassPermissions, which runs everything else unasked.
NAMED_IN_BYPASS = [
    "cat ~/.hookline/keys/state.key",
    "c\\at ~/.hookline/keys/state.key",
    "command cat ~/.hookline/keys/state.key",
    "env cat ~/.hookline/keys/state.key",
    "timeout 5 nice cat ~/.hookline/keys/state.key",
    "sh -c 'cat ~/.hookline/keys/state.key'",
    "bash -c 'cat \"$HOME\"/.hookline/keys/state.key'",
    "cat < ${HOME}/.hookline/keys/state.key",
    "cd ~/.hookline/keys; cat state.key",
    "od -c ~/.hookline/keys/state.ke[y]",
    "sed -n p ~/.hook*/k*/*",
    "cat $(echo ~/.hookline/keys/state.key)",
    "ls ~/.hookline/keys | xargs -I{} cat ~/.hookline/keys/{}",
    "cat keylink",
    "grep -r . ~/.hookline",
    "xxd ~/.hookline/keys/state.key",
    "cp ~/.hookline/keys/state.key leak.txt && cat leak.txt",
    "python3 -c \"print(open('$HOME/.hookline/keys/state.key').read())\"",
]
#: Lines whose path to the key only run time knows: in bypassPermissions, with no sandbox,
#: they still reach it (docs/permissions.md says so). Kept here so a fix shows.
RUN_TIME_IN_BYPASS = [
    "for f in ~/.hookline/keys/*; do cat $f; done",
    "k=~/.hookline/keys; cat $k/state.key",
    "find ~/.hookline -type f -exec cat {} +",
    "cat /proc/self/root$HOME/.hookline/keys/state.key",
]


@pytest.mark.parametrize("line", NAMED_IN_BYPASS)
def test_in_bypass_permissions_a_line_naming_the_key_does_not_run(
    tmp_path: Path, line: str
) -> None:
    assert_key_kept(tmp_path, line, "--permission-mode", "bypassPermissions")


@pytest.mark.xfail(strict=True, reason="a path only run time knows is not judged in bypass mode")
@pytest.mark.parametrize("line", RUN_TIME_IN_BYPASS)
def test_in_bypass_permissions_a_run_time_path_to_the_key_does_not_run(
    tmp_path: Path, line: str
) -> None:
    assert_key_kept(tmp_path, line, "--permission-mode", "bypassPermissions")


def assert_key_kept(tmp_path: Path, line: str, *flags: str) -> None:
    """``line`` as the model's one Bash call of a ``hookline run`` in a workspace beside a home
    holding the key: the call did not run, and the key is nowhere in what the run printed."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    keys = home / ".hookline" / "keys"
    keys.mkdir(parents=True)
    (keys / "state.key").write_text(KEY)
    ws.mkdir()
    (ws / "keylink").symlink_to(keys / "state.key")
    script = {"turns": [{"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": line}}]},
                        {"text": "done"}]}  # fmt: skip
    (ws / "script.json").write_text(json.dumps(script))

    done = hookline("run", "read the key", "--model", "scripted:script.json", "--output-format",
                    "json", *flags, cwd=ws, env={"HOME": str(home)})  # fmt: skip

    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["tool_calls"]
    assert call["status"] != "executed", call
    assert KEY not in done.stdout + done.stderr
    assert (keys / "state.key").read_text() == KEY
    assert not (ws / "leak.txt").exists()


@pytest.mark.parametrize(("flag", "code"), [("run", 2), ("-p", 1)])
def test_an_unusable_key_stops_the_run_in_one_line_before_the_model(
    tmp_path: Path, flag: str, code: int
) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    keys = home / ".hookline" / "keys"
    keys.mkdir(parents=True)
    (keys / "state.key").write_text("not hex at all\n")
    (keys / "state.key").chmod(0o600)
    ws.mkdir()
    script = {"turns": [{"tool_calls": [{"id": "t1", "name": "Bash",
                                         "input": {"command": "touch sentinel"}}]},
                        {"text": "done"}]}  # fmt: skip
    (ws / "script.json").write_text(json.dumps(script))

    done = hookline(flag, "go", "--model", "scripted:script.json", "--permission-mode",
                    "bypassPermissions", cwd=ws, env={"HOME": str(home)})  # fmt: skip

    assert (done.returncode, done.stdout) == (code, ""), done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"hookline: error: {keys / 'state.key'}: ") and "not hex" in line
    assert not (ws / "sentinel").exists()


@pytest.mark.parametrize(
    "line",
    [
        "cat {account}/.hookline/keys/state.key",
        "cat {account}//.hookline/./keys/state.key",
        "head -c 80 {account}/.hook*/keys/*",
        "grep -r . {account}/.hookline",
    ],
)
def test_the_accounts_key_is_not_read_unasked_where_home_names_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    """``$HOME`` need not be the account's home, where ``~user`` leads: the key kept there is
    hookline's too, and a line that reads it is not run unasked (in-process, so the account's
    home can be a folder of the test's; the key is the canary)."""
    home, account, ws = tmp_path / "home", tmp_path / "account", tmp_path / "ws"
    keys = account / ".hookline" / "keys"
    keys.mkdir(parents=True)
    (keys / "state.key").write_text(KEY)
    home.mkdir()
    ws.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(_protected, "account_home", lambda: str(account))
    command = line.format(account=account)
    turns = [calls(bash(command)), say("done")]
    agent = Agent(ScriptedModel(turns), tools=[Bash()], cwd=ws, permissions=PermissionPolicy())

    result = agent.run_sync("read the key")

    (call,) = result.tool_calls
    assert call.status != "executed", call
    assert KEY not in json.dumps([m.to_dict() for m in agent.session.messages], default=str)
    assert KEY not in Path(result.transcript_path).read_text()


@pytest.mark.parametrize(
    "line",
    [
        "cat /proc/self/cwd/../home/.hookline/keys/state.key",
        "cat /proc/thread-self/cwd/../home/.hookline/keys/state.key",
        "head -c 80 /proc/self/cwd/../home/.hook*/keys/*",
    ],
)
def test_a_read_through_the_commands_own_view_in_proc_is_not_run_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    """``/proc/self/cwd`` is the shell's folder when the command runs, and hookline's own
    when hookline resolves it: an agent whose process works in another folder than its session
    (in-process here: the test's folder is the repository) must not read the key that way."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    keys = home / ".hookline" / "keys"
    keys.mkdir(parents=True)
    (keys / "state.key").write_text(KEY)
    ws.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert Path.cwd() != ws
    agent = Agent(ScriptedModel([calls(bash(line)), say("done")]), tools=[Bash()], cwd=ws,
                  permissions=PermissionPolicy())  # fmt: skip

    result = agent.run_sync("read the key")

    (call,) = result.tool_calls
    assert call.status != "executed", call
    assert KEY not in Path(result.transcript_path).read_text()
