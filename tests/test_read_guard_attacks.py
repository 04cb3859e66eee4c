"""The README's guard example (a hook that refuses what names ``.env``, and a ``Read(./.env)``
deny rule) keeps the secret from the model, whatever the spelling.

The example's files are taken from the README itself. Each spelling is first run by Bash in a
folder with no guard, where it must print the canary (so it is a real read of ``.env``); then
a scripted model makes every spelling as a Bash call, in one turn, through ``hookline run`` in
the example's folder, with nobody to approve: each is refused, and the canary is nowhere in
what the run printed, its JSON result or its transcript, while the control call's own canary
(a file no rule covers) is there. In bypassPermissions only the sandbox's ``denyRead`` keeps
it out, as docs/permissions.md says: the same calls run, and the canary still stays out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline.permissions._sandbox.config import SandboxConfig

README = Path(__file__).resolve().parents[1] / "README.md"
CANARY = "sk-live-CANARY-4b1d"
CONTROL = "notes-CONTROL-93e2"
#: Bash lines that print ``.env`` where nothing guards it (each checked to).
SPELLINGS = [
    "cat .env", "cat .en?", "cat .e*", 'cat "$(echo .env)"', "cat ./.env", "cat $PWD/.env",
    "head .env", "grep . .env", "cp .env x; cat x", "< .env cat", "cat < .e?v",
    ". ./.env; echo $API_KEY", "source .e''nv; echo $API_KEY", "cat .[e]nv", "tail -n 1 .e\\nv",
    "grep -r sk- .", "grep -R -h API .", "cat {.e,.x}nv", "cat ~+/.e?v", "sort .e?v",
    "diff .e?v /dev/null", "od -An -c .e?v | tr -d ' \\n'", "tac .e?v", "rev .e?v | rev",
    "jq -R . .e?v", "strings .e?v", "head -c 100 -- .e?v", "F=.e?v; cat $F",
    "xargs cat <<< .e''nv", "ln -s .e?v l && cat l", "find . -name '.e*' -exec cat {} +",
    "while read l; do echo $l; done < .e?v", "shopt -s dotglob; cat *",
    "python3 -c \"print(open('.e'+'nv').read())\"", "awk 1 .e?v", "cat sub/../.e?v",
]  # fmt: skip


def readme_files() -> dict[str, str]:
    """The files the README's guard example writes with ``cat > FILE <<'EOF'``."""
    text = README.read_text(encoding="utf-8")
    start = text.index('mkdir -p .claude/hooks && echo "API_KEY')
    block = text[start : text.index("```", start)]
    found = re.findall(r"cat > (\S+) <<'EOF'\n(.*?)\nEOF\n", block, flags=re.DOTALL)
    return {path: body + "\n" for path, body in found}


def make(folder: Path, *, guarded: bool) -> Path:
    (folder / "sub").mkdir(parents=True)
    (folder / ".env").write_text(f"API_KEY={CANARY}\n")
    (folder / "notes.txt").write_text(f"{CONTROL}\n")
    if guarded:
        for name, body in readme_files().items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(body)
        (folder / ".claude/hooks/guard-env.sh").chmod(0o755)
    return folder


def test_the_readme_example_is_what_is_tested() -> None:
    files = readme_files()
    assert set(files) == {".claude/hooks/guard-env.sh", ".claude/settings.json"}
    assert json.loads(files[".claude/settings.json"])["permissions"]["deny"] == ["Read(./.env)"]


@pytest.mark.parametrize("line", SPELLINGS)
def test_each_spelling_reads_the_secret_where_nothing_guards_it(tmp_path: Path, line: str) -> None:
    folder = make(tmp_path / "open", guarded=False)
    done = subprocess.run(["bash", "-c", line], cwd=folder, capture_output=True, text=True)
    assert CANARY in done.stdout + done.stderr, (done.stdout, done.stderr)


def run(folder: Path, home: Path, *flags: str) -> tuple[dict[str, Any], str]:
    """``hookline run`` of one turn of every spelling and the control, with nobody to approve:
    its JSON result, and everything the run printed or kept (its transcript) as text."""
    calls = [{"id": f"t{i}", "name": "Bash", "input": {"command": line}}
             for i, line in enumerate([*SPELLINGS, "cat notes.txt"])]  # fmt: skip
    script = folder.parent / "script.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "done"}]}))
    done = hookline(
        "run", "go", "--model", f"scripted:{script}", "--output-format", "json", *flags,
        cwd=folder, env={"HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    kept = Path(result["transcript_path"]).read_text(encoding="utf-8")
    return result, done.stdout + done.stderr + kept


def test_no_spelling_gets_the_secret_past_the_guard(tmp_path: Path) -> None:
    folder = make(tmp_path / "guarded", guarded=True)
    result, seen = run(folder, tmp_path / "home")
    assert CANARY not in seen
    assert CONTROL in seen  # what a call returns does reach the model and the transcript
    calls = result["tool_calls"]
    assert [c["status"] for c in calls] == ["blocked"] * len(SPELLINGS) + ["executed"]
    assert not (folder / "x").exists() and not (folder / "l").exists()  # cp, ln never ran


@pytest.mark.skipif(SandboxConfig(enabled=True).unavailable() is not None, reason="no sandbox")
def test_in_bypass_permissions_only_the_sandbox_deny_read_keeps_it_out(tmp_path: Path) -> None:
    folder = make(tmp_path / "guarded", guarded=True)
    settings = json.loads((folder / ".claude/settings.json").read_text())
    settings["sandbox"] = {"enabled": True, "filesystem": {"denyRead": [".env"]}}
    (folder / ".claude/settings.json").write_text(json.dumps(settings))
    result, seen = run(folder, tmp_path / "home", "--permission-mode", "bypassPermissions")
    statuses = {c["input"]["command"]: c["status"] for c in result["tool_calls"]}
    assert statuses["cat .en?"] != "blocked" and statuses["cat .env"] == "blocked"  # the hook
    assert CANARY not in seen and CONTROL in seen
    shutil.rmtree(folder)


def test_a_hard_link_to_the_key_in_the_workspace_is_not_read_catted_searched_or_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules judge names; a hard link is the key under a name they allow. The canary stays
    out of what the model sees, and the key is not overwritten (acceptEdits allows the Write)."""
    from hookline import Agent, ScriptedModel
    from hookline.permissions import PermissionPolicy

    home, work = tmp_path / "home", tmp_path / "work"
    keys = home / ".hookline" / "keys"
    keys.mkdir(parents=True)
    work.mkdir()
    key = keys / "state.key"
    key.write_text("KEY-CANARY\n")
    os.link(key, work / "notes.txt")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("HOOKLINE_STATE_KEY_FILE", raising=False)
    target = str(work / "notes.txt")
    script = [
        {"tool_calls": [{"id": "t1", "name": "Read", "input": {"file_path": target}}]},
        {"tool_calls": [{"id": "tb", "name": "Bash", "input": {"command": "cat notes.txt"}}]},
        {"tool_calls": [{"id": "tk", "name": "Bash", "input": {"command": f"cat {key}"}}]},
        {"tool_calls": [{"id": "t0", "name": "Grep",
                         "input": {"pattern": "CANARY", "output_mode": "content"}}]},
        {"tool_calls": [{"id": "t2", "name": "Write",
                         "input": {"file_path": target, "content": "forged"}}]},
        {"text": "ok"},
    ]  # fmt: skip
    agent = Agent(ScriptedModel(script), cwd=work, instructions=False,
                  permissions=PermissionPolicy(mode="acceptEdits"))  # fmt: skip
    result = agent.run_sync("go")
    statuses = [c.status for c in result.tool_calls]
    # acceptEdits took a line that only reads for an edit, and never asked what it reads: the
    # key by its own name, or by another; both ask now (and nobody answers here)
    assert statuses == ["failed", "blocked", "blocked", "executed", "failed"]
    assert result.tool_calls[3].output["skipped"] == 1  # the walk leaves it out, and says so
    assert "KEY-CANARY" not in repr(result.tool_calls) + repr(agent.session.messages)
    assert key.read_text() == "KEY-CANARY\n"
