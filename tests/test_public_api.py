"""The public boundary: which names are hookline's API, and that each of them works.

The API is the ``__all__`` of the public packages (``PUBLIC``, docs/architecture.md "Public
boundary"); every other module is internal. ``hookline``, ``hookline.models`` and
``hookline.sdk`` make their ``__all__`` from one table each (``_EXPORTS``: name -> defining
module), which these tests read rather than repeat; the pages and examples import only public
names; every exception the docstrings draw is exported; ``AgentSettings`` (the typed keyword
options of ``Agent``) stays equal to ``AgentOptions``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import hookline
from hookline._agent.loop import Agent
from hookline._agent.options import AgentOptions, AgentSettings

ROOT = Path(__file__).resolve().parent.parent
#: The public packages (and the one public module a package lists, ``targets``).
PUBLIC = (
    "hookline",
    "hookline.audit",
    "hookline.mcp",
    "hookline.models",
    "hookline.permissions",
    "hookline.permissions.bash",
    "hookline.permissions.targets",
    "hookline.sdk",
    "hookline.storage",
    "hookline.testing",
    "hookline.types",
)
#: The packages whose names are imported on first use, from their ``_EXPORTS`` table.
LAZY = ("hookline", "hookline.models", "hookline.sdk")
#: Where the pages and examples import from.
TAUGHT = sorted(
    [
        ROOT / "README.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("examples/**/*.md"),
        *ROOT.glob("examples/**/*.py"),
    ]
)
FROM_IMPORT = re.compile(r"\bfrom\s+(hookline(?:\.\w+)*)\s+import\s+(\([^)]*\)|[\w, \t]+)")
PLAIN_IMPORT = re.compile(r"^\s*import\s+(hookline(?:\.\w+)*)", re.MULTILINE)


def public_names() -> Iterator[tuple[str, str]]:
    for package in PUBLIC:
        for name in importlib.import_module(package).__all__:
            yield package, name


def test_all_is_made_from_the_one_table() -> None:
    table = hookline._EXPORTS.home
    assert hookline.__all__ == sorted(table)
    assert "Agent" in table and "AgentSettings" in table  # the table is the real one


@pytest.mark.parametrize("package", LAZY)
def test_type_checkers_see_the_same_table(package: str) -> None:
    """The ``if TYPE_CHECKING:`` imports (what mypy and editors read) are the table, name for
    name, each as ``import X as X`` (an explicit re-export)."""
    module = importlib.import_module(package)
    seen: dict[str, set[str]] = {}
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    )
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names:
            assert alias.asname == alias.name, (
                f"{package}: write `import {alias.name} as {alias.name}`"
            )
            seen.setdefault(node.module, set()).add(alias.name)
    assert seen == {home: set(names) for home, names in module._EXPORTS.where.items()}


@pytest.mark.parametrize(("package", "name"), sorted(public_names()))
def test_every_public_name_imports(package: str, name: str) -> None:
    module = importlib.import_module(package)
    namespace: dict[str, object] = {}
    exec(f"from {package} import {name}", namespace)
    assert namespace[name] is getattr(module, name)
    if package in LAZY:
        home = importlib.import_module(module._EXPORTS.home[name])
        assert getattr(home, name) is namespace[name]


def test_the_architecture_page_lists_the_public_packages() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Public boundary", 1)[1].split("\n## ", 1)[0]
    listed = section.split("Every other module", 1)[0]
    assert set(re.findall(r"`(hookline(?:\.\w+)*)`", listed)) == set(PUBLIC)


@pytest.mark.parametrize("package", PUBLIC)
def test_each_all_is_a_list_without_repeats(package: str) -> None:
    names = importlib.import_module(package).__all__
    assert isinstance(names, list) and names
    assert len(names) == len(set(names))


def test_a_name_not_in_the_table_is_an_attribute_error() -> None:
    for package in LAZY:
        with pytest.raises(AttributeError, match="no_such_name"):
            importlib.import_module(package).no_such_name  # noqa: B018


def taught_imports() -> Iterator[tuple[str, str, str]]:
    """``(file, module, name)`` for each ``from hookline... import name`` in the pages and
    examples, and ``(file, module, "")`` for each ``import hookline...``."""
    for path in TAUGHT:
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        for module, names in FROM_IMPORT.findall(text):
            for part in names.strip("()").split(","):
                name = part.split("#")[0].split(" as ")[0].strip()
                if name:
                    yield where, module, name
        for module in PLAIN_IMPORT.findall(text):
            yield where, module, ""


def test_the_pages_and_examples_import_only_public_names() -> None:
    found = sorted(set(taught_imports()))
    assert len(found) > 20  # the scan sees the imports
    wrong = [
        f"{where}: from {module} import {name}" if name else f"{where}: import {module}"
        for where, module, name in found
        if module not in PUBLIC or (name and name not in importlib.import_module(module).__all__)
    ]
    assert wrong == []


def test_the_scan_sees_an_internal_import(tmp_path: Path) -> None:
    page = "text\n```python\nfrom hookline._agent.model import (\n    ModelClient,\n)\n```\n"
    assert FROM_IMPORT.findall(page) == [("hookline._agent.model", "(\n    ModelClient,\n)")]
    assert "hookline._agent.model" not in PUBLIC


DRAWN = re.compile(r"[├└]── (\w+)")


def drawn_tree(doc: str) -> list[tuple[str, str]]:
    """``(parent, child)`` for each class a docstring's tree draws: the root is the line above
    the first ``├──``, and each four columns further right is one level down."""
    lines = inspect.cleandoc(doc).splitlines()
    first = next(i for i, line in enumerate(lines) if "──" in line)
    root = lines[first - 1]
    column = len(root) - len(root.lstrip())
    parents = {-1: root.split()[0]}
    pairs: list[tuple[str, str]] = []
    for line in lines[first:]:
        if match := DRAWN.search(line):
            depth = (match.start() - column) // 4
            parents[depth] = match.group(1)
            pairs.append((parents[depth - 1], match.group(1)))
    return pairs


def test_the_tree_reader_follows_the_columns() -> None:
    doc = "Errors.\n\n    Base\n    ├── A\n    │   └── B   text\n    └── C\n"
    assert drawn_tree(doc) == [("Base", "A"), ("A", "B"), ("Base", "C")]


@pytest.mark.parametrize("source", ["hookline._errors", "hookline.sdk._errors"])
def test_every_drawn_exception_is_exported_under_its_drawn_parent(source: str) -> None:
    module = importlib.import_module(source)
    doc = module.HooklineError.__doc__ if source == "hookline._errors" else module.__doc__
    pairs = drawn_tree(doc or "")
    assert len(pairs) >= 6
    for parent, child in pairs:
        assert {parent, child} <= set(hookline.__all__), f"{source} draws {child} under {parent}"
        assert getattr(hookline, child).__bases__ == (getattr(hookline, parent),)


def test_agent_settings_are_the_options_agent_takes_as_keywords() -> None:
    """Every ``AgentOptions`` field is a typed keyword of ``Agent`` (a named parameter or an
    ``AgentSettings`` key, with the same annotation), so a new option cannot be left out."""
    options = {f.name: f.type for f in dataclasses.fields(AgentOptions)}
    named = set(inspect.signature(Agent).parameters) & set(options)
    assert named == {"hooks"}
    settings = {k: v.__forward_arg__ for k, v in AgentSettings.__annotations__.items()}
    assert settings == {k: v for k, v in options.items() if k not in named}
    assert AgentSettings.__total__ is False


def test_load_project_gives_what_a_run_uses(tmp_path: Path) -> None:
    """A library user gets the CLI's configuration from ``load_project``: the settings' hooks,
    deny rules and redaction, and an agent built from it keeps the deny rule (the tool never
    runs: its sentinel stays unset)."""
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(
        '{"permissions": {"deny": ["Bash(touch:*)"]}, "redact": ["tok_[a-z]+"],'
        ' "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}'
    )
    project = hookline.load_project(tmp_path)
    assert project.cwd == str(tmp_path.resolve())
    assert [spec.event for spec in project.hooks] == ["Stop"]
    assert project.redact == ("tok_[a-z]+",)
    assert project.warnings == ()
    sentinel = tmp_path / "SENTINEL"
    turn = {"tool_calls": [{"name": "Bash", "input": {"command": f"touch {sentinel}"}}]}
    model = hookline.ScriptedModel([turn, {"text": "done"}])
    options = {**project.agent_options(), "permission_mode": "bypassPermissions"}
    result = hookline.Agent(model, **options).run_sync("go")
    assert [call.status for call in result.tool_calls] == ["blocked"]
    assert not sentinel.exists()
