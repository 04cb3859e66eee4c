"""The read-only tier runs a Bash line unasked only when it proves the line opens no file a
Read deny rule covers (``hookline.permissions._reads``): every word read as a path, globs
expanded, words only run time knows counted as any file, folders read whole walked.

Each row is judged by ``evaluate`` in a real folder (``.env``, a hidden folder, links, a
``secrets`` folder); what the lines do for real is in tests/test_read_guard_attacks.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import hookline.permissions._reads as reads
from hookline._decisions import Decision
from hookline.permissions import PermissionPolicy, PermissionRule, evaluate

RULES = ("Read(./.env)", "Read(./secrets/**)", "Read(*.pem)", "Read(~/.ssh/**)")
# fmt: off
ROWS = [
    # named, globbed, redirected, through a link or `..`: asks
    ("cat .env", "ask"), ("cat .en?", "ask"), ("head -n1 .e*", "ask"), ("< .env cat", "ask"),
    ("cat < .e?v", "ask"), ("cat ./src/../.env", "ask"), ("cat src/link", "ask"),
    ("cat {.e,x}nv", "ask"), ("grep -f.env notes.txt", "ask"), ("diff --from-file=.env x", "ask"),
    ("cat secrets/a.txt", "ask"), ("cat src/deep/key.pem", "ask"), ("cat ~/.ssh/id_rsa", "ask"),
    ("timeout 5 cat .env", "ask"), ("cat notes.txt | grep -f .env", "ask"),
    ("cd secrets && cat a.txt", "ask"), ("cd src && cat ../.e?v", "ask"),
    ("git -C src grep K -- ../other", "ask"), ("git -C src log", "allow"),
    # what only run time knows
    ('cat "$F"', "ask"), ("cat $PWD/.env", "ask"), ("echo .env | xargs cat", "ask"),
    ("cd $D && cat notes.txt", "ask"), ("sort --files0-from=list", "ask"),
    ("sort --files0=l", "ask"),
    ("wc --files0-from list", "ask"), ("find -files0-from list", "ask"),
    # folders read whole
    ("grep -r KEY .", "ask"), ("grep -rn KEY", "ask"), ("grep -R KEY src", "ask"),
    ("rg --hidden KEY", "ask"), ("rg -uu KEY", "ask"), ("rg KEY src", "ask"),
    ("rg -L KEY hidden-free", "ask"), ("ag -u KEY", "ask"), ("git grep KEY", "ask"),
    ("diff -r src other", "ask"), ("grep -r KEY secrets", "ask"), ("grep -r x src/deep", "ask"),
    # proven: nothing they name or read is covered
    ("cat notes.txt", "allow"), ("grep -n KEY notes.txt", "allow"), ("ls -la", "allow"),
    ("rg KEY", "ask"), ("ag KEY", "ask"),  # src/deep/key.pem, which `Read(*.pem)` covers
    ("grep -r KEY other", "allow"),
    ("grep -r KEY hidden-free", "allow"), ("rg KEY hidden-free", "allow"),
    ("diff -r --no-dereference other other", "allow"), ("git status", "allow"),
    ("cat notes.txt | sort | uniq -c", "allow"), ("wc -l *.txt", "allow"),
]
# fmt: on


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws").resolve()
    for folder in ("src/deep", "secrets", "other", "hidden-free", ".cache", "home/.ssh"):
        (root / folder).mkdir(parents=True)
    for name in (".env", "notes.txt", "secrets/a.txt", "src/deep/key.pem", "other/x",
                 "hidden-free/y", "home/.ssh/id_rsa", ".cache/z"):  # fmt: skip
        (root / name).write_text("x\n")
    os.symlink("../.env", root / "src" / "link")
    os.symlink("../.env", root / "hidden-free" / "env-link")  # rg -L, grep -R follow it
    return root


def judge(ws: Path, line: str, *, mode: str = "default", rules: tuple[str, ...] = RULES) -> str:
    deny = tuple((PermissionRule.parse(rule), "project settings") for rule in rules)
    policy = PermissionPolicy(deny=deny, mode=mode, workspace=(str(ws),))  # type: ignore[arg-type]
    verdict = evaluate(policy, tool_name="Bash", tool_input={"command": line}, read_only=False,
                       hook=Decision(), cwd=str(ws), home=str(ws / "home"))  # fmt: skip
    return verdict.permission


@pytest.mark.parametrize(("line", "expected"), ROWS)
def test_the_tier_runs_only_what_it_proves_reads_no_denied_file(
    ws: Path, line: str, expected: str
) -> None:
    assert judge(ws, line) == expected


@pytest.mark.parametrize("line", ["grep -r KEY .", "cat .env", "rg -uu KEY", "echo $HOME"])
def test_without_a_read_deny_rule_the_same_lines_run(ws: Path, line: str) -> None:
    assert judge(ws, line, rules=("Bash(rm:*)",)) == "allow"


#: Lines whose own words name hookline's private state (the per-user key, a workspace's
#: .hookline, through a glob, a redirect, ``..`` or a link): refused in every mode, as a Read of
#: it is.
NAMED_PRIVATE = (
    "cat ~/.hookline/keys/state.key",
    "cat $HOME/.hookline/keys/state.key",
    "cat ~/.hookline/keys/*",
    "cat ~/.hook*/k*/s*",
    "head -c 64 < ~/.hookline/keys/state.key",
    "cat ~/../home/.hookline/keys/state.key",
    "cat .hookline/state/transcripts/x.jsonl",
    "cat keylink",
    "git -C ~/.hookline/keys diff --no-index state.key /dev/null",
)
#: Lines that read a folder whole with that state in their reach: asked in every mode.
REACHING_PRIVATE = ("grep -r . ~/.hookline", "grep -R hmac home", "grep -r sk_live .")
#: Lines whose words only run time knows: the read-only tier does not run them unasked.
MAYBE_PRIVATE = ("x=~/.hookline/keys/state.key; cat $x", 'cat "$F"')
MODES = ("default", "acceptEdits", "bypassPermissions")


@pytest.fixture
def private(tmp_path: Path) -> Path:
    """A workspace with hookline's state in it, a home folder with its key, a link to the key."""
    ws = tmp_path.resolve()
    keys = ws / "home" / ".hookline" / "keys"
    keys.mkdir(parents=True)
    (keys / "state.key").write_text("00" * 32)
    (ws / ".hookline" / "state" / "transcripts").mkdir(parents=True)
    (ws / ".hookline" / "state" / "transcripts" / "x.jsonl").write_text("{}")
    (ws / "notes.txt").write_text("x\n")
    os.symlink(keys / "state.key", ws / "keylink")
    return ws


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", NAMED_PRIVATE)
def test_a_line_naming_hooklines_private_state_is_refused_in_every_mode(
    private: Path, line: str, mode: str
) -> None:
    assert judge(private, line, mode=mode, rules=()) == "deny"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", REACHING_PRIVATE)
def test_a_line_reading_a_folder_that_holds_it_is_asked_in_every_mode(
    private: Path, line: str, mode: str
) -> None:
    assert judge(private, line, mode=mode, rules=()) == "ask"


@pytest.mark.parametrize("line", MAYBE_PRIVATE)
def test_a_line_that_may_read_it_at_run_time_is_not_run_unasked(private: Path, line: str) -> None:
    assert judge(private, line, rules=()) == "ask"


@pytest.mark.parametrize("line", ["cat notes.txt", "rg KEY", "git status", "ls -la", "ls home"])
def test_the_everyday_reads_beside_the_private_state_still_run(private: Path, line: str) -> None:
    assert judge(private, line, rules=()) == "allow"


def test_the_private_reason_says_what_is_private(private: Path) -> None:
    ws = private
    policy = PermissionPolicy(workspace=(str(ws),))
    verdict = evaluate(policy, tool_name="Bash", read_only=False, hook=Decision(), cwd=str(ws),
                       tool_input={"command": "cat ~/.hookline/keys/state.key"},
                       home=str(ws / "home"))  # fmt: skip
    assert verdict.permission == "deny"
    assert "which hookline keeps private (its state and keys)" in verdict.reason
    assert "which no tool reads. Do not retry it" in verdict.reason


def test_a_reason_names_the_file_and_the_rule(ws: Path) -> None:
    deny = ((PermissionRule.parse("Read(./.env)"), "project settings"),)
    policy = PermissionPolicy(deny=deny, workspace=(str(ws),))
    verdict = evaluate(policy, tool_name="Bash", tool_input={"command": "grep -R KEY src"},
                       read_only=False, hook=Decision(), cwd=str(ws))  # fmt: skip
    assert verdict.permission == "ask"
    assert f"{ws}/.env (through {ws}/src/link), which a Read deny rule covers" in verdict.reason


def test_a_walk_past_its_bound_is_not_proven(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert judge(ws, "grep -r KEY other", rules=("Read(*.pem)",)) == "allow"
    monkeypatch.setattr(reads, "MAX_WALKED", 0)
    assert judge(ws, "grep -r KEY other", rules=("Read(*.pem)",)) == "ask"


@pytest.mark.parametrize(
    ("line", "expected"),
    [("rg KEY", "allow"), ("rg -u KEY", "allow"), ("ag KEY", "allow"), ("rg -uu KEY", "ask"),
     ("rg --hidden KEY", "ask"), ("ag --hidden KEY", "ask"), ("grep -r KEY .", "ask")],
)  # fmt: skip
def test_a_search_that_skips_hidden_files_never_reads_dot_env(
    ws: Path, line: str, expected: str
) -> None:
    assert judge(ws, line, rules=("Read(./.env)",)) == expected


@pytest.mark.parametrize(
    ("variable", "line"),
    [("GREP_OPTIONS", "grep KEY notes.txt src"), ("RIPGREP_CONFIG_PATH", "rg KEY")],
)
def test_options_from_the_environment_count(
    ws: Path, monkeypatch: pytest.MonkeyPatch, variable: str, line: str
) -> None:
    assert judge(ws, line, rules=("Read(./.env)",)) == "allow"
    monkeypatch.setenv(variable, "x")
    assert judge(ws, line, rules=("Read(./.env)",)) == "ask"


@pytest.mark.parametrize(("mode", "expected"), [("plan", "ask"), ("dontAsk", "deny")])
def test_other_modes_do_not_run_it_either(ws: Path, mode: str, expected: str) -> None:
    assert judge(ws, "cat .en?", mode=mode) == expected
    assert judge(ws, "cat notes.txt", mode=mode) == "allow"


@pytest.mark.parametrize(
    ("line", "expected"),
    [("touch a.txt; cat notes.txt", "allow"), ("touch a.txt; cat .en?", "ask"),
     ('touch a.txt; cat "$F"', "ask"), ("cp .e?v copy.txt", "ask"),
     ("mkdir -p b; grep -r K .", "ask")],
)  # fmt: skip
def test_accept_edits_proves_the_same_of_what_its_lines_read(
    ws: Path, line: str, expected: str
) -> None:
    assert judge(ws, line, mode="acceptEdits") == expected
