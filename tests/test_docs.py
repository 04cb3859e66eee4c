"""The docs name only what exists: modules, files in the repository and ``hookline`` CLI flags.

Every page (``docs/*.md``, ``README.md``, ``bench/README.md``) is read for three kinds of name:

- a module or an object in one (``hookline._claude.command``, ``hookline._support.display.shown``)
  or a source file (``src/hookline/_claude/command.py``, ``_claude/command.py``): it must import,
  or exist;
- a path in the repository (``tests/reaction_hooks/payloads/``, a Markdown link, a ``*.md`` page):
  it must exist, and a relative path must not lead out of the repository (``../shared/x.md``),
  nor may a page cite a numbered section (``§3.1``) of a document the repository does not have:
  a reader of this repository has nothing outside it, so what the code relies on from outside
  is summarised in docs/ instead;
- a flag of the command line: on a ``hookline CMD ...`` line it must be an option of that command
  (or of a command above it), found by walking the real click group; a flag quoted on its own in
  the prose (`` `--defer-asks` ``) must be an option of some ``hookline`` command.

The docstrings and comments of every Python file are held to the first two rules, and the layer
table of docs/architecture.md to ``LAYERS`` in tests/test_layers.py. The ``made_up`` and
``citing`` tests feed the checks text with one wrong name of each kind, so the checks can fail.
"""

from __future__ import annotations

import ast
import functools
import importlib
import io
import os
import re
import shlex
import sys
import tokenize
import warnings
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from hookline._cli.claude_flags import NOT_SUPPORTED
from hookline._cli.main import cli
from test_layers import LAYERS

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md", ROOT / "bench" / "README.md"])
#: Flags of other programs that the prose quotes (a secret in ``mysql --password X`` is masked,
#: bubblewrap runs with ``--die-with-parent``, ``cp --suffix`` is not provable).
#: Claude Code's flags that hookline refuses by name (``NOT_SUPPORTED``) are named too.
FOREIGN_FLAGS = frozenset({"--password", "--die-with-parent", "--suffix", "--dev"})
#: Markdown files hookline reads from a project (instructions and skills), not pages of its own.
FOREIGN_PAGES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "SKILL.md"})
#: Pages whose flags in prose belong to their own scripts (bench/README.md: the bench scripts').
OWN_FLAGS_PAGES = frozenset({"bench/README.md"})

MODULE = re.compile(r"(?<![\w./-])hookline(?:\.[A-Za-z_]\w*)+")
SOURCE = re.compile(r"(?<![\w./-])((?:src/hookline|tests|bench|docs)/[\w./-]*[\w/])")
PAGE = re.compile(r"(?<![\w.-])([\w.-]+\.md)\b")
PYTHON_FILE = re.compile(r"(?<![\w./-])([A-Za-z_][\w/.-]*\.py)\b")
#: Python files the pages name as examples of what a user writes.
EXAMPLE_FILES = frozenset(
    {"FILE.py", "gate.py", "policies/refunds.py", "path/file.py", "my_hooks.py", "tool.py"}
)
#: Words that stand for a name in a pattern (``hookline.NAME``), and file suffixes
#: (``hookline.db`` is a file, not a module).
PLACEHOLDERS = frozenset({"NAME", "db", "jsonl", "json", "key", "md", "py", "toml"})
#: hookline's OpenTelemetry span attributes (``hookline.hook.decision``): names of its own in
#: its spans, not modules.
SPAN_ATTRIBUTE = re.compile(
    r"hookline\.(?:hook|tool|policy|permission|approval|model|serve|live_ask)(?:\.\w+)?"
    r"|hookline\.(?:stop_reason|event|decision|reason|failure|cwd|agent|tenant|user|session_grant)"
)
#: A numbered section of some other document (``protocol §3.1``): this repository has none.
SECTION = re.compile(r"§ ?[\d.]*\d")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
UP = re.compile(r"(?<![\w.])((?:\.\./)+[\w./-]*)")
COMMAND = re.compile(r"(?:^|[`\s$/])hookline ((?:[^`\n]|\\\n)*)")
PROSE_FLAG = re.compile(r"`(--[a-z][a-z-]*)(?:[ =][^`]*)?`")


def missing_modules(text: str) -> list[str]:
    """Each ``hookline.x.y`` named in ``text`` that is neither a module nor an object in one."""
    named = {name for name in MODULE.findall(text) if name.rsplit(".")[-1] not in PLACEHOLDERS}
    named = {name for name in named if not SPAN_ATTRIBUTE.fullmatch(name)}
    return sorted(name for name in named if not _resolves(name))


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            with warnings.catch_warnings():  # a moved module's old name exists, and warns
                warnings.filterwarnings("ignore", r".* moved to ", DeprecationWarning)
                found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def missing_paths(text: str, page: Path) -> list[str]:
    """Paths ``text`` (on ``page``) names that the repository does not have, or that lead out."""
    relative = [*UP.findall(text)]
    relative += [link for link in LINK.findall(text) if not re.match(r"\w+:", link)]
    wrong = {_wrong_relative(path, page) for path in relative} - {None}
    wrong.update(f"{section} cites another document" for section in SECTION.findall(text))
    for path in SOURCE.findall(text):
        if not (ROOT / path).exists():
            wrong.add(path)
    wrong.update(path for path in PYTHON_FILE.findall(text) if not _python_file(path, page))
    pages = {name for name in repository_file_names() if name.endswith(".md")}
    without_urls = re.sub(r"\w+://\S+", "", text)
    wrong.update(n for n in PAGE.findall(without_urls) if n not in pages | FOREIGN_PAGES)
    return sorted(wrong)


def _python_file(path: str, page: Path) -> bool:
    """Whether ``path`` is a file of this repository (from its root, the page's folder or the
    package, or by name alone), a standard library source, or an example."""
    if path in EXAMPLE_FILES:
        return True
    folders = (ROOT, page.parent, ROOT / "src" / "hookline")
    if any((folder / path).is_file() for folder in folders):
        return True
    if "/" not in path and path in repository_file_names():
        return True
    module = path.removesuffix(".py").replace("/", ".")
    return module.split(".")[0] in sys.stdlib_module_names and _imports(module)


@functools.cache
def repository_file_names() -> frozenset[str]:
    """The name of every file in the repository (hidden folders and caches left out)."""
    names = set()
    for _, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if not name.startswith((".", "__"))]
        names.update(files)
    return frozenset(names)


def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _wrong_relative(path: str, page: Path) -> str | None:
    """What is wrong with ``path``, read from ``page``'s folder: it leads out, or is missing."""
    target = (page.parent / path).resolve()
    if not target.is_relative_to(ROOT):
        return f"{path} leads out of the repository"
    return None if target.exists() else path


def command_lines(text: str) -> Iterator[list[str]]:
    """The words after ``hookline`` on every line (or inline code span) that runs it."""
    for found in COMMAND.finditer(text.replace("\\\n", " ")):
        line = found.group(1)
        try:
            words = shlex.split(line, comments=True)
        except ValueError:  # an unclosed quote in an elided example
            words = line.split()
        yield words


def unknown_flags(text: str, page: str = "") -> list[str]:
    """Flags ``text`` gives a ``hookline`` command that the command does not have."""
    wrong = set()
    for words in command_lines(text):
        commands = _commands_named(words)
        options = {flag for command in commands for flag in _flags(command)}
        named = " ".join(["hookline", *(str(command.name) for command in commands[1:])])
        for word in words:
            flag = word.strip("[]()|,").split("=")[0]
            if flag.startswith("--") and flag not in options:
                wrong.add(f"{named}: {flag}")
    if page not in OWN_FLAGS_PAGES:
        known = {flag for command in _every_command(cli) for flag in _flags(command)}
        for flag in PROSE_FLAG.findall(text):
            if flag not in known and flag not in FOREIGN_FLAGS and flag not in NOT_SUPPORTED:
                wrong.add(flag)
    return sorted(wrong)


def _commands_named(words: list[str]) -> list[click.Command]:
    """The commands ``words`` name, from ``hookline`` down; ``a|b`` names both. ``hookline -p``
    is ``hookline run``, as the command line routes it."""
    path: list[click.Command] = [cli]
    level: list[click.Command] = [cli]
    if words[:1] in (["-p"], ["--print"]) and isinstance(cli, click.Group):
        return [cli, cli.commands["run"]]
    for word in words:
        names = word.strip("[]()").split("|")
        below = [
            sub
            for group in level
            if isinstance(group, click.Group)
            for name in names
            if (sub := group.commands.get(name)) is not None
        ]
        if not below:
            if not word.startswith(("--", "[")):
                break  # an argument: what follows are its options
            continue
        path.extend(below)
        level = below
    return path


def _flags(command: click.Command) -> set[str]:
    return {
        name
        for param in command.params
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("--")
    } | {"--help"}


def _every_command(command: click.Command) -> Iterator[click.Command]:
    yield command
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            yield from _every_command(sub)


def relative(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


#: Python files whose docstrings and comments are read the same way as the pages.
SOURCES = sorted(
    path
    for pattern in ("src/hookline/**/*.py", "bench/*.py", "tests/**/*.py")
    for path in ROOT.glob(pattern)
    if path.name != "test_docs.py"  # its made-up page is wrong on purpose
)


def prose_of(path: Path) -> str:
    """The docstrings and comments of a Python file: what it says to its reader."""
    source = path.read_text(encoding="utf-8")
    said = [
        docstring
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and (docstring := ast.get_docstring(node, clean=False))
    ]
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    said += [token.string for token in tokens if token.type == tokenize.COMMENT]
    return "\n".join(said)


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_names_only_modules_that_exist(page: Path) -> None:
    assert missing_modules(page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_names_only_paths_in_the_repository(page: Path) -> None:
    assert missing_paths(page.read_text(encoding="utf-8"), page) == []


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_gives_hookline_only_flags_it_has(page: Path) -> None:
    assert unknown_flags(page.read_text(encoding="utf-8"), relative(page)) == []


@pytest.mark.parametrize("source", SOURCES, ids=relative)
def test_a_docstring_or_comment_names_only_what_exists(source: Path) -> None:
    prose = prose_of(source)
    assert missing_modules(prose) + missing_paths(prose, source) == []


def test_the_pages_are_found_and_the_checks_see_their_names() -> None:
    """The checks read something: the README names modules, runs commands and quotes flags."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert {"docs/architecture.md", "docs/compatibility.md", "README.md"} <= set(
        map(relative, PAGES)
    )
    assert MODULE.findall(readme)
    assert any(words[:2] == ["hooks", "test"] for words in command_lines(readme))
    assert PROSE_FLAG.findall(readme)


def layer_table(page: str) -> tuple[tuple[str, ...], ...]:
    """The packages of each row of the numbered table in ``page``, in order."""
    rows = re.findall(r"^\| *\d+ *\| *([^|]*)\|", page, flags=re.MULTILINE)
    return tuple(tuple(re.findall(r"`([\w.]+)`", row)) for row in rows)


def test_the_architecture_page_draws_the_layers_the_layer_test_enforces() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert layer_table(page) == LAYERS
    assert layer_table("| 1 | `hookline._agent` | x |\n| 2 | `hookline._support` | y |") == (
        ("hookline._agent",),
        ("hookline._support",),
    )


def test_a_page_with_made_up_names_is_caught() -> None:
    page = ROOT / "docs" / "made-up.md"  # never written: the checks read only the text
    text = """
Run `hookline._hooks.telepathy` or `hookline._decisions.Decision.maybe`; the engine is in
`src/hookline/_hooks/oracle.py` (`hooks/files.py`, `asyncio/base_events.py`), the facts in
../../shared/reference/reactions.md (its §4), and [the guide](guide.md). `hookline._claude.command`,
`hookline._decisions.Decision.deny`, [the rules](permissions.md), `tests/test_docs.py` and
https://example.org/notes.md exist.

```sh
hookline run "hi" --model rules --turbo
hookline hooks test --event PreToolUse --tool Bash --input '{}'
hookline sessions resume S1 --approve --yes
```

With `--defer-asks` the run pauses; with `--no-such-flag` it flies.
"""
    assert missing_modules(text) == [
        "hookline._decisions.Decision.maybe",
        "hookline._hooks.telepathy",
    ]
    assert missing_paths(text, page) == [
        "../../shared/reference/reactions.md leads out of the repository",
        "guide.md",
        "hooks/files.py",
        "reactions.md",
        "src/hookline/_hooks/oracle.py",
        "§4 cites another document",
    ]
    assert unknown_flags(text) == [
        "--no-such-flag",
        "hookline run: --turbo",
        "hookline sessions resume: --yes",
    ]


def test_a_docstring_citing_what_is_not_here_is_caught(tmp_path: Path) -> None:
    """Docstrings and comments are read; code and its string data are not."""
    source = tmp_path / "made_up.py"
    source.write_text(
        '"""Payloads as in ../../shared/reference/payloads (protocol §3.1)."""\n'
        "RULE = 'Edit(docs/index.md)'  # data, not a citation\n"
        "def f():\n"
        '    """Runs ``hookline._hooks.files.load``."""\n'
        "    # see docs/telepathy.md\n",
        encoding="utf-8",
    )
    prose = prose_of(source)
    assert "Edit(docs/index.md)" not in prose
    assert missing_modules(prose) == ["hookline._hooks.files.load"]
    assert missing_paths(prose, ROOT / "src" / "made_up.py") == [
        "../../shared/reference/payloads leads out of the repository",
        "docs/telepathy.md",
        "telepathy.md",
        "§3.1 cites another document",
    ]
