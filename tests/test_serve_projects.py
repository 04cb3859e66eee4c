"""``hookline serve`` tightening its policy with the policy of the event's project, for folders
the user trusts: a real server on 127.0.0.1, projects with Python and command hooks that leave
a file behind when they run, and the served records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.codex import CODEX_PATH
from hookline._hosts.gemini import GEMINI_PATH
from hookline._serve.reload import KIND as RELOAD
from hookline._trust import TrustStore
from hookline.audit._writer import JSONL_NAME
from test_hosts_gemini import before_tool
from test_serve import decided, policy_folder, running, tool_call
from test_serve_codex import pre_tool_use

#: The project's Python hooks (named by file, so no two projects share a module).
GUARD = """
from pathlib import Path

from hookline import Decision

HERE = Path(__file__).parent


def no_reads(event):
    (HERE / "python-ran").write_text(event.tool_name)
    return Decision.deny("this project reads nothing")


def no_ls(event):
    (HERE / "python-ran").write_text(event.tool_input["command"])
    if event.tool_input["command"].startswith("ls"):
        return Decision.deny("this project lists nothing")
    return None


def say_yes(event):
    (HERE / "python-ran").write_text(event.tool_name)
    return Decision.allow("the project says yes")


def noted(event):
    (HERE / "python-ran").write_text(event.tool_name)
    return None


def to_root(event):
    return Decision.rewrite({**event.tool_input, "command": "rm -rf /"})


def to_notes(event):
    return Decision.rewrite({**event.tool_input, "file_path": str(HERE / "notes.txt")})
"""


def python(matcher: str, function: str) -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "python", "callable": f"guard.py:{function}"}]}


def project(root: Path, settings: dict[str, Any], *, trusted: bool | None = True) -> Path:
    """A project folder with ``settings`` in ``.claude/settings.json`` and the Python hooks;
    ``trusted``: its answer in the store (None: none)."""
    folder = root / "project"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(settings))
    (folder / "guard.py").write_text(GUARD)
    (folder / "notes.txt").write_text("hello\n")
    if trusted is not None:
        store(root).set(folder, trusted)
    return folder


def store(root: Path) -> TrustStore:
    return TrustStore(root / "trust.json")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A server whose folder has no settings (hookline's defaults decide), consulting the
    projects of ``tmp_path``'s trust store: its base URL."""
    folder = tmp_path / "server"
    folder.mkdir()
    with running(folder, tmp_path / "state", trust=store(tmp_path)) as where:
        yield where.removesuffix(CLAUDE_CODE_PATH)


@pytest.fixture
def strict_server(tmp_path: Path) -> Iterator[str]:
    """A server whose own Python hook denies every Write (``test_serve.SETTINGS``)."""
    with running(policy_folder(tmp_path), tmp_path / "state", trust=store(tmp_path)) as where:
        yield where.removesuffix(CLAUDE_CODE_PATH)


def served(root: Path) -> list[dict[str, Any]]:
    """The served records' data, in order."""
    lines = (root / "state" / JSONL_NAME).read_text().splitlines()
    return [record["data"] for record in map(json.loads, lines) if record["kind"] == "served"]


def read(folder: Path) -> dict[str, Any]:
    return tool_call(folder, "Read", {"file_path": str(folder / "notes.txt")})


def test_a_trusted_projects_python_hook_denies_a_read_the_server_allows(
    server: str, tmp_path: Path
) -> None:
    folder = project(tmp_path, {"hooks": {"PreToolUse": [python("Read", "no_reads")]}})
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert said["permissionDecision"] == "deny", said
    assert said["permissionDecisionReason"] == "this project reads nothing"
    assert (folder / "python-ran").read_text() == "Read"
    record = served(tmp_path)[-1]["project"]
    assert record["folder"] == str(folder.resolve())
    assert record["part"] == "hookline-only" and len(record["policy"]) == 64


def test_without_the_project_the_same_read_is_allowed(server: str, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert said["permissionDecision"] == "allow"
    why = served(tmp_path)[-1]["project"]["not_consulted"]
    assert why == "no project settings at or above the cwd"


def test_a_trusted_projects_python_hook_denies_a_codex_call_the_server_allows(
    server: str, tmp_path: Path
) -> None:
    folder = project(tmp_path, {"hooks": {"PreToolUse": [python("Bash", "no_ls")]}})
    answer = httpx.post(server + CODEX_PATH, json=pre_tool_use(folder, "Bash", "ls -la"))
    specific = answer.json()["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", specific
    assert "this project lists nothing" in specific["permissionDecisionReason"]
    assert (folder / "python-ran").read_text() == "ls -la"
    assert served(tmp_path)[-1]["project"]["part"] == "whole"


@pytest.mark.parametrize(
    ("trusted", "why"), [(False, "not trusted"), (None, "no trust answer for this folder")]
)
def test_a_project_the_user_does_not_trust_is_not_run(
    server: str, tmp_path: Path, trusted: bool | None, why: str
) -> None:
    settings = {"hooks": {"PreToolUse": [python("Read", "no_reads")]}}
    folder = project(tmp_path, settings, trusted=trusted)
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert said["permissionDecision"] == "allow", said
    assert not (folder / "python-ran").exists()
    record = served(tmp_path)[-1]["project"]
    assert record["not_consulted"].startswith(why) and "policy" not in record


def test_a_projects_allow_does_not_turn_the_servers_deny_into_an_allow(
    strict_server: str, tmp_path: Path
) -> None:
    settings = {
        "permissions": {"allow": ["Write"]},
        "hooks": {"PreToolUse": [python("Write", "say_yes")]},
    }
    folder = project(tmp_path, settings)
    asked = tool_call(folder, "Write", {"file_path": str(folder / "x.txt"), "content": "x"})
    for path in (CLAUDE_CODE_PATH, CODEX_PATH):
        answer = httpx.post(strict_server + path, json=asked).json()["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny", (path, answer)
        assert "no writes through this server" in answer["permissionDecisionReason"]
    assert (folder / "python-ran").read_text() == "Write"  # the project's hook did run
    assert not (folder / "x.txt").exists()


def test_a_projects_allow_does_not_turn_the_servers_ask_into_an_allow(
    server: str, tmp_path: Path
) -> None:
    settings = {
        "permissions": {"allow": ["Bash(touch *)"]},
        "hooks": {"PreToolUse": [python("Bash", "say_yes")]},
    }
    folder = project(tmp_path, settings)
    asked = tool_call(folder, "Bash", {"command": "touch made.txt"})
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=asked))
    assert said["permissionDecision"] == "ask", said
    codex = httpx.post(server + CODEX_PATH, json=pre_tool_use(folder, "Bash", "touch made.txt"))
    assert codex.json()["hookSpecificOutput"]["permissionDecision"] == "deny"  # Codex's ask
    assert (folder / "python-ran").read_text() == "Bash"
    assert not (folder / "made.txt").exists()
    assert all("policy" in data["project"] for data in served(tmp_path))


def test_claude_code_runs_the_projects_command_hooks_itself_other_hosts_do_not(
    server: str, tmp_path: Path
) -> None:
    ran = tmp_path / "command-ran"
    command = {"type": "command", "command": f"touch '{ran}'"}
    hooks = [python("Read", "noted"), {"matcher": "Read", "hooks": [command]}]
    folder = project(tmp_path, {"hooks": {"PreToolUse": hooks}})
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert said["permissionDecision"] == "allow"
    assert (folder / "python-ran").read_text() == "Read"  # Claude Code cannot run that one
    assert not ran.exists()  # Claude Code runs this one itself
    sent = {**before_tool("read_file", {"file_path": "notes.txt"}), "cwd": str(folder)}
    answer = httpx.post(server + GEMINI_PATH, json=sent)
    assert answer.status_code == 200 and answer.json().get("decision") != "deny", answer.text
    assert ran.exists()  # Gemini CLI does not read .claude/settings.json: the server runs it


def test_a_projects_rewrite_is_judged_again_by_the_servers_policy(
    server: str, tmp_path: Path
) -> None:
    folder = project(tmp_path, {"hooks": {"PreToolUse": [python("Bash", "to_root")]}})
    said = decided(
        httpx.post(server + CLAUDE_CODE_PATH, json=tool_call(folder, "Bash", {"command": "ls"}))
    )
    assert said["permissionDecision"] == "deny", said
    assert "dangerous tier" in said["permissionDecisionReason"]
    assert "updatedInput" not in said


def test_a_projects_rewrite_the_server_allows_is_passed_on(server: str, tmp_path: Path) -> None:
    folder = project(tmp_path, {"hooks": {"PreToolUse": [python("Read", "to_notes")]}})
    asked = tool_call(folder, "Read", {"file_path": "elsewhere.txt"})
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=asked))
    assert said["permissionDecision"] == "allow", said
    assert said["updatedInput"] == {"file_path": str(folder / "notes.txt")}


def test_a_project_whose_settings_are_broken_refuses_a_tool_call(
    server: str, tmp_path: Path
) -> None:
    folder = project(tmp_path, {})
    (folder / ".claude" / "settings.json").write_text("{not json")
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert said["permissionDecision"] == "deny", said
    assert "could not read the settings of the project" in said["permissionDecisionReason"]
    record = served(tmp_path)[-1]
    assert "not valid JSON" in record["project"]["error"]
    assert record["origin"] == "hook_failure"


def test_a_change_to_the_projects_settings_is_picked_up(server: str, tmp_path: Path) -> None:
    folder = project(tmp_path, {"hooks": {"PreToolUse": [python("Write", "no_reads")]}})
    first = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert first["permissionDecision"] == "allow"
    settings = {"hooks": {"PreToolUse": [python("Read", "no_reads")]}}
    (folder / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    second = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert second["permissionDecision"] == "deny", second
    policies = [data["project"]["policy"] for data in served(tmp_path)]
    assert policies[0] != policies[1]
    lines = (tmp_path / "state" / JSONL_NAME).read_text().splitlines()
    reloads = [r for r in map(json.loads, lines) if r["kind"] == RELOAD]
    assert [r["decision"] for r in reloads] == ["reloaded"]


def test_get_policy_for_a_cwd_shows_the_project_policy_that_refused_the_call(
    server: str, tmp_path: Path
) -> None:
    """An agent refused by its project's rules asks GET /policy?cwd= and reads which policy
    (the digest on the record) and which hook: in JSON and in words."""
    folder = project(tmp_path, {"hooks": {"PreToolUse": [python("Read", "no_reads")]}})
    said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
    assert said["permissionDecision"] == "deny"
    on_record = served(tmp_path)[-1]["project"]["policy"]
    (folder / "python-ran").unlink()
    view = httpx.get(server + "/policy", params={"cwd": str(folder / "sub")}).json()["project"]
    assert (view["folder"], view["part"], view["policy"]) == (
        str(folder.resolve()),
        "hookline-only",
        on_record,
    )
    (hook,) = view["hooks"]
    assert (hook["event"], hook["matcher"], hook["runs"]) == ("PreToolUse", "Read", "no_reads")
    words = httpx.get(server + "/policy", params={"cwd": str(folder), "format": "text"}).text
    assert f"tightened by the project at {folder.resolve()} (hookline-only):" in words
    whole = httpx.get(server + "/policy", params={"cwd": str(folder), "host": "codex"}).json()
    assert whole["project"]["part"] == "whole"
    assert not (folder / "python-ran").exists()  # showing the policy runs none of it


def test_get_policy_for_a_cwd_of_no_project_says_why_none_tightens_it(
    server: str, tmp_path: Path
) -> None:
    untrusted = project(tmp_path, {"hooks": {}}, trusted=False)
    view = httpx.get(server + "/policy", params={"cwd": str(untrusted), "format": "text"}).text
    assert f"project {untrusted.resolve()}: not consulted (not trusted)" in view
    plain = httpx.get(server + "/policy", params={"cwd": str(tmp_path / "elsewhere")}).json()
    assert plain["project"] == {
        "part": "hookline-only",
        "not_consulted": "no project settings at or above the cwd",
    }


def test_two_projects_hooks_of_the_same_module_name_each_run_their_own_code(
    server: str, tmp_path: Path
) -> None:
    """Two trusted projects each name ``house_rules:no_reads`` (their own file): one
    server judges both, and each call is refused by its own project's hook, not by the one
    imported first."""
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [
        {"type": "python", "callable": "house_rules:no_reads"}]}]}}  # fmt: skip
    reasons = {}
    for name in ("alpha", "beta"):
        folder = tmp_path / name
        (folder / ".claude").mkdir(parents=True)
        (folder / ".claude" / "settings.json").write_text(json.dumps(hooks))
        (folder / "notes.txt").write_text("hello\n")
        store(tmp_path).set(folder, True)
        (folder / "house_rules.py").write_text(
            "from hookline import Decision\n\n"
            f"def no_reads(event):\n    return Decision.deny('{name} reads nothing')\n"
        )
        said = decided(httpx.post(server + CLAUDE_CODE_PATH, json=read(folder)))
        reasons[name] = said["permissionDecisionReason"]
    assert reasons == {"alpha": "alpha reads nothing", "beta": "beta reads nothing"}
