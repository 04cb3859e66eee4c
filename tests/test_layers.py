"""The layers of the package: a module imports only from its own layer or the ones below it.

Read bottom-up, each layer knows nothing of those above it, so a change high in the stack cannot
break one low in it, and the diagram in ``docs/architecture.md`` stays true. Imports inside
``if TYPE_CHECKING:`` and inside functions count too: a type-only import upward is still a
dependency a reader has to follow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hookline
from hookline.agent.runtime import DEFAULTS

ROOT = Path(hookline.__file__).parent
#: Bottom to top. Top-level modules are named ``hookline.NAME``; packages cover their children.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("hookline._support",),
    (
        "hookline.errors",
        "hookline.events",
        "hookline.decisions",
        "hookline.matchers",
        "hookline.layers",
        "hookline.wording",
        "hookline.file_tools",
    ),
    ("hookline.hooks",),
    ("hookline.permissions",),
    ("hookline.tools", "hookline.mcp"),
    ("hookline.agent",),
    (
        "hookline.claude",
        "hookline.trust",
        "hookline.storage",
        "hookline.audit",
        "hookline.models",
    ),
    ("hookline.cli", "hookline.demo", "hookline.project", "hookline.sdk", "hookline.testing"),
    ("hookline",),
)


def layer_of(module: str) -> int:
    """The index of the layer ``module`` belongs to (its longest listed prefix)."""
    best = (-1, -1)
    for index, names in enumerate(LAYERS):
        for name in names:
            if module == name or module.startswith(name + "."):
                best = max(best, (len(name), index))
    if best[1] < 0:
        pytest.fail(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")
    return best[1]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """Every ``hookline`` module ``path`` imports, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return [(line, name) for line, name in found if name.split(".")[0] == "hookline"]


def upward_imports() -> list[str]:
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        module = module_name(path)
        here = layer_of(module)
        for line, target in imports(path):
            if target != "hookline" and layer_of(target) > here:
                wrong.append(f"{module}:{line} imports {target}")
    return wrong


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert upward_imports() == []


def test_every_module_belongs_to_a_layer() -> None:
    for path in ROOT.rglob("*.py"):
        assert layer_of(module_name(path)) >= 0


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    """The check itself can fail: a vocabulary module importing the agent is named."""
    bad = tmp_path / "bad.py"
    bad.write_text("from hookline.agent.loop import Agent\n")
    assert imports(bad) == [(1, "hookline.agent.loop")]
    assert layer_of("hookline.agent.loop") > layer_of("hookline.events")


def test_the_runtime_names_only_plug_ins_beside_the_agent() -> None:
    """A default the runtime names without importing it is a dependency all the same: each is
    a function of the plug-in layer (never of the CLI or the SDK above it)."""
    for named in DEFAULTS.values():
        assert callable(named.resolve())
        assert layer_of(named.module) == layer_of("hookline.storage"), named.where
