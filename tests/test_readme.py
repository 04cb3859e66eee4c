"""The README's and the docs' examples run as they are written, each on its own, as a reader
would paste it.

Every fenced ``python`` block of README.md and docs/*.md is saved to a file and run with this
Python in a fresh, empty folder, with an empty home and no model key (its own asserts must hold).
Every ``sh`` block marked for it, by an HTML comment on the line before the fence (GitHub does
not render it)::

    <!-- test: shell -->
    ```sh
    hookline hooks validate
    ```

runs the same way under ``bash -euo pipefail`` with the venv's ``bin`` first on ``PATH`` and,
where ``unshare -rn`` can give it one, in a network namespace of its own: no network but its own
loopback. It must exit 0. A shell block left unmarked needs something a test cannot have (a key,
a server, PyPI, a session to name) or is not a command at all: ``UNMARKED`` lists each one with
why, so the count stays in view and a new unmarked block fails until it is marked or listed.
Every ``json`` block must parse. The shell completion the README documents is checked here as well.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARK = "<!-- test: shell -->"
SHELLS = frozenset({"sh", "bash", "shell"})
BIN = Path(sys.executable).parent
#: A stuck example fails instead of hanging the suite; nothing here measures time.
LIMIT = 300

#: Each shell block that does not run here, found by a piece of its text, and why.
UNMARKED = {
    ("README.md", "pip install -q -e ."): "installs from PyPI and runs the whole test suite",
    ("docs/testing.md", "pytest -m unit"): "runs the test suite, in parts",
    ("docs/approvals-and-audit.md", "hookline sessions resume SESSION_ID"): (
        "names a paused session's id"
    ),
    ("docs/approvals-and-audit.md", "hookline audit --session SESSION_ID"): (
        "names a session id and an audit head"
    ),
    ("docs/approvals.md", "hookline inbox user add ann"): (
        "asks for passwords, then serves until Ctrl-C: test_inbox runs the commands"
    ),
    ("docs/approvals.md", "hookline inbox link SESSION_ID"): (
        "names a paused session's id: test_inbox_live runs the command"
    ),
    ("docs/approvals.md", "hookline audit --session SESSION_ID"): "names a session id",
    ("docs/cli.md", 'hookline run "PROMPT" ['): "a synopsis, not a command",
    ("docs/cli.md", "_HOOKLINE_COMPLETE=zsh_source"): "zsh and fish lines: test_shell_completion",
    ("docs/mcp.md", "pip install 'hookline[mcp]'"): "installs from PyPI",
    ("docs/models.md", "export OPENAI_API_KEY"): "needs a model's key or server",
    ("docs/models.md", "hookline model-server --script"): (
        "starts a server in the background and races it: test_model_server runs the command"
    ),
    ("docs/serve.md", "pip install 'hookline[serve]'"): (
        "installs from PyPI, then serves until Ctrl-C: test_serve runs the command"
    ),
    ("docs/serve.md", "hookline serve --cwd ~/policy --port 8377"): (
        "serves until Ctrl-C, from a folder of the reader's: test_serve runs the command"
    ),
    ("docs/serve.md", "hookline break-glass --minutes 15"): (
        "stands in for a server that is down until the time is up: test_break_glass runs it"
    ),
    ("docs/serve.md", "--workers 4 --store postgresql://"): (
        "serves until Ctrl-C, with a PostgreSQL server of the reader's: test_serve_workers runs "
        "the command"
    ),
    ("docs/serve.md", "python bench/serve_load.py"): (
        "a load test of several minutes, never in the suite: test_serve_load checks its arithmetic"
    ),
    ("docs/serve.md", "hookline doctor --cwd ~/src/app"): (
        "needs a server and hooks installed to exit 0, and a project of the reader's: "
        "test_doctor runs the command"
    ),
}


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str
    line: int
    lang: str
    code: str
    marked: bool

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, each with its language and whether it is marked to run."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    name = str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name
    start: int | None = None
    for number, line in enumerate(lines):
        if start is None and line.startswith("```"):
            start = number
        elif start is not None and line == "```":
            marked = start > 0 and lines[start - 1].strip() == MARK
            code = "\n".join(lines[start + 1 : number]) + "\n"
            found.append(Block(name, start + 1, lines[start][3:].strip(), code, marked))
            start = None
    assert start is None, f"{name}:{start + 1 if start is not None else 0}: unclosed fence"
    return found


ALL = [block for page in PAGES for block in blocks(page)]
PYTHON = [block for block in ALL if block.lang == "python"]
SHELL = [block for block in ALL if block.lang in SHELLS]
RUN = [block for block in SHELL if block.marked]
JSON = [block for block in ALL if block.lang == "json"]


@cache
def offline() -> list[str]:
    """A prefix that runs a command without any network, or none where it cannot be had. Its
    loopback is up when ``ip`` can raise it, so an example may serve on 127.0.0.1 (no other
    host is reachable)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    probe = subprocess.run([unshare, "-rn", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        return []
    ip = shutil.which("ip") or "/usr/sbin/ip"
    loopback = [unshare, "-rn", "sh", "-c", f'"{ip}" link set lo up && exec "$@"', "sh"]
    works = subprocess.run([*loopback, "true"], capture_output=True, check=False)
    return loopback if works.returncode == 0 else [unshare, "-rn"]


def run_example(argv: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """``argv`` run in an empty ``folder/project``, as a new user there: an empty home, the
    venv first on PATH, no model key or server named, no network where that can be had."""
    home, project = folder / "home", folder / "project"
    home.mkdir()
    project.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "HOOKLINE_MANAGED_SETTINGS_DIR": str(folder / "managed"),
        "HOOKLINE_MANAGED_ROOT": str(folder / "machine"),  # never the machine's /etc
    }
    return subprocess.run(
        [*offline(), *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=LIMIT,
        check=False,
    )


def explain(block: Block, done: subprocess.CompletedProcess[str]) -> str:
    output = f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    return f"{block.id} exited {done.returncode}\n{block.code}\n{output}"


def test_the_pages_have_examples_of_each_kind() -> None:
    assert len([block for block in PYTHON if block.page == "README.md"]) >= 2
    assert len([block for block in RUN if block.page == "README.md"]) >= 3  # one per way in
    assert {"docs/models.md", "docs/mcp.md"} <= {block.page for block in PYTHON + RUN}


def test_blocks_are_found_with_their_marks(tmp_path: Path) -> None:
    """The reader of the pages finds languages, marks and code as GitHub shows them."""
    page = tmp_path / "page.md"
    page.write_text(
        f"text\n```python\nx = 1\n```\n{MARK}\n```sh\nhookline demo\n```\n```sh\nexit 1\n```\n"
    )
    found = [(b.line, b.lang, b.code, b.marked) for b in blocks(page)]
    assert found == [
        (2, "python", "x = 1\n", False),
        (6, "sh", "hookline demo\n", True),
        (9, "sh", "exit 1\n", False),
    ]


@pytest.mark.parametrize("block", PYTHON, ids=[block.id for block in PYTHON])
def test_a_python_example_runs_on_its_own(block: Block, tmp_path: Path) -> None:
    example = tmp_path / "example.py"
    example.write_text(block.code, encoding="utf-8")
    done = run_example([sys.executable, str(example)], tmp_path)
    assert done.returncode == 0, explain(block, done)


@pytest.mark.parametrize("block", RUN, ids=[block.id for block in RUN])
def test_a_marked_shell_example_runs_offline(block: Block, tmp_path: Path) -> None:
    script = tmp_path / "example.sh"
    script.write_text(block.code, encoding="utf-8")
    done = run_example(["bash", "-euo", "pipefail", str(script)], tmp_path)
    assert done.returncode == 0, explain(block, done)


def test_a_failing_example_is_caught(tmp_path: Path) -> None:
    """The runner sees a failure inside a pipeline and an unset variable (so -euo pipefail holds),
    and its examples have no network where unshare can cut it."""
    script = tmp_path / "example.sh"
    script.write_text("false | cat\necho reached > reached.txt\n")
    done = run_example(["bash", "-euo", "pipefail", str(script)], tmp_path)
    assert done.returncode != 0
    assert not (tmp_path / "project" / "reached.txt").exists()
    (tmp_path / "again").mkdir()
    script.write_text('echo "$UNSET_IN_THE_EXAMPLE"\n')
    assert run_example(["bash", "-euo", "pipefail", str(script)], tmp_path / "again").returncode
    if offline():
        (tmp_path / "net").mkdir()
        script.write_text("awk -F: 'NR > 2 {gsub(/ /, \"\", $1); print $1}' /proc/net/dev\n")
        links = run_example(["bash", "-euo", "pipefail", str(script)], tmp_path / "net")
        assert links.stdout.split() == ["lo"], links.stderr  # no way out but the loopback


def test_every_unmarked_shell_block_is_listed_with_why() -> None:
    unmarked = [block for block in SHELL if not block.marked]
    listed = {
        block.id: [key for key in UNMARKED if key[0] == block.page and key[1] in block.code]
        for block in unmarked
    }
    assert {block for block, keys in listed.items() if len(keys) != 1} == set(), (
        f"mark these with {MARK!r} on the line before the fence, or list them in UNMARKED"
    )
    used = {key for keys in listed.values() for key in keys}
    assert set(UNMARKED) - used == set(), "UNMARKED lists blocks that are gone or now marked"


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    """The quick start's second line (set up, then run the whole suite) is a line of .ci/run."""
    (quick_start,) = [b for b in SHELL if b.page == "README.md" and "'.[dev]'" in b.code]
    (command,) = [line for line in quick_start.code.splitlines() if "'.[dev]'" in line]
    assert command.endswith(".venv/bin/python -m pytest")
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("block", JSON, ids=[block.id for block in JSON])
def test_a_json_example_parses(block: Block) -> None:
    json.loads(block.code)


def test_shell_completion_is_what_the_readme_says(tmp_path: Path) -> None:
    """The completion lines of docs/cli.md name the real entry point and produce a script:
    bash's registers a completion for ``hookline`` that completes its commands."""
    readme = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    shells = set(re.findall(r"_HOOKLINE_COMPLETE=(\w+)_source hookline", readme))
    assert shells == {"bash", "zsh", "fish"}
    script = tmp_path / "example.sh"
    script.write_text(
        'eval "$(_HOOKLINE_COMPLETE=bash_source hookline)"\n'
        "complete -p hookline\n"
        'COMP_WORDS="hookline hooks va" COMP_CWORD=2 _hookline_completion hookline\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = run_example(["bash", "-euo", "pipefail", str(script)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "complete -o nosort -F _hookline_completion hookline",
        "validate",
    ]
    for shell in ("zsh", "fish"):
        (tmp_path / shell).mkdir()
        script.write_text(f"_HOOKLINE_COMPLETE={shell}_source hookline\n")
        made = run_example(["bash", "-euo", "pipefail", str(script)], tmp_path / shell)
        assert "_hookline_completion" in made.stdout, made.stderr
