"""The project folder in a hook's shell code is data, never code: real hooks in a folder named
``proj$(touch SENTINEL)``, and the rewriting that keeps it so."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from hookline._claude.command import CommandHook
from hookline._claude.project_dir import guarded, references, shell_code_index
from hookline._events import PreToolUse, Scope

SHELL_CODE = [
    "${CLAUDE_PROJECT_DIR}/x.sh",
    '"${CLAUDE_PROJECT_DIR}/x.sh"',
    '"${CLAUDE_PROJECT_DIR}"/x.sh',
    "'${CLAUDE_PROJECT_DIR}/x.sh'",
    "$CLAUDE_PROJECT_DIR/x.sh",
    '"$CLAUDE_PROJECT_DIR"/x.sh',
    "cd ${CLAUDE_PROJECT_DIR} && ./x.sh # it's here",
    "$'${CLAUDE_PROJECT_DIR}/x.sh'",
]
FOLDERS = ["proj$(touch SENTINEL)", 'it\'s a proj `touch SENTINEL` "$(touch SENTINEL)"']


def run_hook(project: Path, shell: str, *args: str) -> None:
    scope = Scope("sess-1", str(project.parent / "transcript.jsonl"), str(project))
    event = scope.event(PreToolUse, tool_name="Bash", tool_input={}, tool_use_id="toolu_1")
    asyncio.run(CommandHook(shell, args=args, project_dir=str(project)).run(event))


@pytest.mark.parametrize("folder", FOLDERS, ids=["dollar-paren", "quotes-spaces-backticks"])
@pytest.mark.parametrize("code", SHELL_CODE)
@pytest.mark.parametrize("shell", ["/bin/sh", "bash"])
def test_a_folder_name_in_shell_code_is_not_run_and_the_script_still_runs(
    tmp_path: Path, folder: str, code: str, shell: str
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    if code.startswith("$'") and shell == "/bin/sh" and "bash" not in str(Path(shell).resolve()):
        pytest.skip("$'...' is bash's")
    project = tmp_path / folder
    project.mkdir()
    script = project / "x.sh"
    script.write_text('#!/bin/sh\ntouch "$(dirname "$0")/ran"\n')
    script.chmod(0o755)
    run_hook(project, shell, "-ec", code)
    assert (project / "ran").exists()
    assert not list(tmp_path.rglob("SENTINEL"))


def test_arguments_after_the_code_are_replaced_as_before(tmp_path: Path) -> None:
    project = tmp_path / "proj$(touch SENTINEL)"
    project.mkdir()
    code = 'printf "%s\\n" "$1" > "$CLAUDE_PROJECT_DIR/seen"'
    run_hook(project, "/bin/sh", "-c", code, "sh", "${CLAUDE_PROJECT_DIR}/a")
    assert (project / "seen").read_text() == f"{project}/a\n"
    assert not list(tmp_path.rglob("SENTINEL"))


@pytest.mark.parametrize(
    ("command", "args", "index"),
    [
        ("/bin/sh", ["-c", "x"], 1),
        ("bash", ["-lc", "x", "arg0"], 1),
        ("/usr/bin/zsh", ["-e", "-c", "x"], 2),
        ("bash", ["-c", "-e", "x"], 2),  # options may follow -c
        ("bash", ["--norc", "-c", "--", "x"], 3),
        ("bash", ["-o", "pipefail", "-c", "x"], 3),
        ("dash", ["-eo", "pipefail", "-c", "x"], 3),
        ("bash", ["--rcfile", "f", "-c", "x"], 3),
        ("/bin/sh", ["x.sh"], None),  # a script file, not code
        ("/bin/sh", ["-e", "x.sh"], None),
        ("/bin/sh", ["-c"], None),  # no code given
        ("python3", ["-c", "x"], None),  # not a shell
        ("/bin/shx", ["-c", "x"], None),
    ],
)
def test_shell_code_index_finds_the_string_a_shell_runs(
    command: str, args: list[str], index: int | None
) -> None:
    assert shell_code_index(command, args) == index


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("${CLAUDE_PROJECT_DIR}/x.sh", '"${CLAUDE_PROJECT_DIR}"/x.sh'),
        ("$CLAUDE_PROJECT_DIR/x.sh", '"${CLAUDE_PROJECT_DIR}"/x.sh'),
        ('"${CLAUDE_PROJECT_DIR}/x.sh"', '"${CLAUDE_PROJECT_DIR}/x.sh"'),
        ("'${CLAUDE_PROJECT_DIR}/x.sh'", "''\"${CLAUDE_PROJECT_DIR}\"'/x.sh'"),
        ("'$CLAUDE_PROJECT_DIR'", "'$CLAUDE_PROJECT_DIR'"),  # literal to the shell: kept
        ("\\$CLAUDE_PROJECT_DIR \\${CLAUDE_PROJECT_DIR}", None),  # escaped: kept
        ("$CLAUDE_PROJECT_DIRS ${CLAUDE_PROJECT_DIR:-x}", None),  # other names and forms
        ("# ${CLAUDE_PROJECT_DIR}\n$CLAUDE_PROJECT_DIR", '# ${CLAUDE_PROJECT_DIR}\n"${X}"'),
        ("a#$CLAUDE_PROJECT_DIR", 'a#"${CLAUDE_PROJECT_DIR}"'),  # mid-word: no comment
        ("$'a\\'${CLAUDE_PROJECT_DIR}'", "$'a\\''\"${CLAUDE_PROJECT_DIR}\"$''"),
    ],
)  # fmt: skip
def test_guarded_makes_each_reference_a_quoted_expansion(code: str, expected: str | None) -> None:
    """``expected`` None: unchanged; ``${X}`` stands for ``${CLAUDE_PROJECT_DIR}``."""
    wanted = code if expected is None else expected.replace("${X}", "${CLAUDE_PROJECT_DIR}")
    assert guarded(code) == wanted


def test_references_say_how_each_is_quoted() -> None:
    code = "a $CLAUDE_PROJECT_DIR \"${CLAUDE_PROJECT_DIR}\" '${CLAUDE_PROJECT_DIR}'"
    assert [quoting for _, quoting in references(code)] == ["unquoted", "double", "single"]
