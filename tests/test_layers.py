"""The layers of the package: a module imports only from its own layer or the ones below it.

Read bottom-up, each layer knows nothing of those above it, so a change high in the stack cannot
break one low in it, and the diagram in ``docs/architecture.md`` stays true. Every import
counts: inside ``if TYPE_CHECKING:`` and inside functions (a type-only import upward is still a
dependency a reader has to follow), relative ones (``from ..agent import loop``), and
``from hookline import X``, which is where ``X`` is defined (``hookline._EXPORTS``).

A module belongs to the layer of its longest listed prefix; the root package claims only its
own ``__init__``, so a new module no row claims fails until it is given a place. The SDK surface
and the command line sit side by side and import nothing of each other (``APART``): what both
need lives below them. The tests at the end feed the checker made-up modules, one per way an
import can go wrong, and show each is named.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

import hookline
from hookline._agent.runtime import DEFAULTS

ROOT = Path(hookline.__file__).parent
PACKAGE = "hookline"
#: Bottom to top. Top-level modules are named ``hookline.NAME``; packages cover their children.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("hookline._support",),
    (
        "hookline._errors",
        "hookline._events",
        "hookline._decisions",
        "hookline._matchers",
        "hookline._settings_layers",
        "hookline._wording",
        "hookline._file_tools",
    ),
    ("hookline._hooks",),
    ("hookline.permissions",),
    ("hookline._tools", "hookline.mcp"),
    ("hookline._agent",),
    (
        "hookline._claude",
        "hookline._hosts",
        "hookline._trust",
        "hookline.storage",
        "hookline.audit",
        "hookline.models",
        "hookline.telemetry",
    ),
    ("hookline._project", "hookline._policy", "hookline.testing"),
    ("hookline._serve", "hookline._replay"),
    ("hookline.sdk",),
    ("hookline.types",),
    ("hookline._cli", "hookline._inbox", "hookline._demo", "hookline.__main__"),
    ("hookline",),
)
#: Packages that import nothing of each other, in either direction, whatever their rows.
APART: tuple[tuple[str, str], ...] = (("hookline._cli", "hookline.sdk"),)


def layer_of(module: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> int | None:
    """The index of the layer ``module`` belongs to (its longest listed prefix; the root
    package only itself), or None when no layer claims it."""
    best = (-1, -1)
    for index, names in enumerate(layers):
        for name in names:
            if module == name or (name != PACKAGE and module.startswith(name + ".")):
                best = max(best, (len(name), index))
    return best[1] if best[1] >= 0 else None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def exported(name: str) -> str:
    """The module ``from hookline import name`` takes ``name`` from: a submodule of that name,
    its home in ``_EXPORTS``, ``hookline.types`` for the Agent SDK's other names, else the
    package's own ``__init__``."""
    if (ROOT / name).is_dir() or (ROOT / f"{name}.py").is_file():
        return f"{PACKAGE}.{name}"
    home = hookline._EXPORTS.home.get(name)
    if home is not None:
        return home
    return "hookline.types" if hookline._sdk_module(name) else PACKAGE


def module_of(path: str) -> tuple[str, bool]:
    """The module a file is (its path from ``src``), and whether it is a package."""
    parts = PurePosixPath(path).with_suffix("").parts
    package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if package else parts), package


def _base(node: ast.ImportFrom, module: str, package: bool) -> str:
    """The absolute module a ``from ... import`` reads from (relative ones resolved)."""
    if node.level == 0:
        return node.module or ""
    parts = (module if package else module.rpartition(".")[0]).split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def imports(path: str, source: str) -> Iterator[tuple[int, str]]:
    """Every ``hookline`` module the file at ``path`` imports, with its line."""
    module, package = module_of(path)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = _base(node, module, package)
            if base == PACKAGE:
                yield from ((node.lineno, exported(a.name)) for a in node.names)
            elif _within(base, PACKAGE):
                yield node.lineno, base
        elif isinstance(node, ast.Import):
            names = (a.name for a in node.names)
            yield from ((node.lineno, n) for n in names if _within(n, PACKAGE))


def problems(
    files: Mapping[str, str],
    layers: tuple[tuple[str, ...], ...] = LAYERS,
    apart: tuple[tuple[str, str], ...] = APART,
) -> list[str]:
    """Each module no layer claims, and each import upward, unclaimed or between two packages
    kept apart; ``files`` maps each file's path from ``src`` to its source."""
    found = []
    for path, source in sorted(files.items()):
        module = module_of(path)[0]
        here = layer_of(module, layers)
        if here is None:
            found.append(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")
            continue
        for line, target in imports(path, source):
            there = layer_of(target, layers)
            if there is None:
                found.append(f"{module}:{line} imports {target}, which is in no layer")
            elif there > here:
                found.append(f"{module}:{line} imports {target}, a layer above")
            elif any(_within(module, a) and _within(target, b) for a, b in _both_ways(apart)):
                found.append(f"{module}:{line} imports {target}: the two stay apart")
    return found


def _both_ways(pairs: tuple[tuple[str, str], ...]) -> Iterator[tuple[str, str]]:
    for a, b in pairs:
        yield a, b
        yield b, a


def library() -> dict[str, str]:
    return {
        path.relative_to(ROOT.parent).as_posix(): path.read_text(encoding="utf-8")
        for path in ROOT.rglob("*.py")
    }


def test_every_module_is_in_a_layer_and_imports_none_above_it() -> None:
    assert problems(library()) == []


def test_the_runtime_names_only_plug_ins_beside_the_agent() -> None:
    """A default the runtime names without importing it is a dependency all the same: each is
    a function of the plug-in layer (never of the CLI or the SDK above it)."""
    for named in DEFAULTS.values():
        assert callable(named.resolve())
        assert layer_of(named.module) == layer_of("hookline.storage"), named.where


# -- the checker fails on each kind of wrong import ---------------------------------------------


def test_an_upward_import_is_named() -> None:
    files = {"hookline/_events/extra.py": "from hookline._agent.loop import Agent\n"}
    assert problems(files) == [
        "hookline._events.extra:1 imports hookline._agent.loop, a layer above"
    ]


def test_a_relative_upward_import_is_named() -> None:
    files = {
        "hookline/_events/extra.py": "from .._agent import loop\n",
        "hookline/_hooks/__init__.py": "from .. import _matchers\nfrom .._tools import base\n",
    }
    assert problems(files) == [
        "hookline._events.extra:1 imports hookline._agent, a layer above",
        "hookline._hooks:2 imports hookline._tools, a layer above",
    ]


def test_an_import_from_the_package_is_where_the_name_is_defined() -> None:
    files = {
        "hookline/_decisions.py": "def f():\n    from hookline import Agent, HookEvent\n",
        "hookline/_hooks/engine.py": "from hookline import AssistantMessage, _EXPORTS\n",
        "hookline/_matchers.py": "import hookline\n",
    }
    assert problems(files) == [
        "hookline._decisions:2 imports hookline._agent.loop, a layer above",
        "hookline._hooks.engine:1 imports hookline.types, a layer above",
        "hookline._hooks.engine:1 imports hookline, a layer above",
        "hookline._matchers:1 imports hookline, a layer above",
    ]


def test_a_module_no_layer_claims_fails_and_so_does_an_import_of_it() -> None:
    files = {"hookline/newthing.py": "", "hookline/_cli/x.py": "import hookline.newthing\n"}
    assert problems(files) == [
        "hookline._cli.x:1 imports hookline.newthing, which is in no layer",
        "hookline.newthing is in no layer: add it to LAYERS and docs/architecture.md",
    ]
    assert layer_of("hookline.newthing") is None  # the root claims only its own __init__
    assert layer_of("hookline") == len(LAYERS) - 1


def test_the_sdk_surface_and_the_cli_import_nothing_of_each_other() -> None:
    files = {
        "hookline/_cli/x.py": "from hookline.sdk._client import ClaudeSDKClient\n",
        "hookline/sdk/y.py": "from hookline._cli import render\n",
    }
    assert problems(files) == [
        "hookline._cli.x:1 imports hookline.sdk._client: the two stay apart",
        "hookline.sdk.y:1 imports hookline._cli, a layer above",
    ]
    side_by_side = ((PACKAGE + ".sdk", PACKAGE + "._cli"),)
    assert problems(files, layers=side_by_side) == [
        "hookline._cli.x:1 imports hookline.sdk._client: the two stay apart",
        "hookline.sdk.y:1 imports hookline._cli: the two stay apart",
    ]
