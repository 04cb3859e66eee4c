"""No module of the library keeps mutable state for the whole process.

Two agents in one process share nothing through a module: no pool, registry or table that one
could change, or close, under the other. Every module of ``hookline`` is imported and read:

1. Each name a module binds at its top level holds a constant: a number, a string, a path, a
   compiled pattern, a tuple or frozenset of constants, a ``MappingProxyType`` or frozen
   dataclass of constants, an enum member, a stateless sentinel, or code (a module, class,
   function, typing construct). A dict, list or set is a constant table only when declared
   ``Final`` (``X: Final = {...}``): filled while the module loads, never after, as rule 2
   checks. A logger is logging's own, by name. A default plugged in for every agent (an
   installed resolver, opener or audit log) is state too: each agent's ``Runtime`` holds its own
   (``hookline._agent.runtime``).
2. No function anywhere in the library changes a module's global, its own module's or one
   imported from another: no ``global``, no item or attribute assignment or deletion, no
   augmented assignment, no mutating call (``append``, ``update``, ``pop``, ...).
3. What is the process's by nature is listed in ``PROCESS_WIDE``, each with why; nothing else.

The last test plants each kind of shared state in a throwaway package and shows the checks
name every one.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import datetime
import enum
import importlib
import inspect
import logging
import re
import sys
import types
import typing
import warnings
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path, PurePath

import pytest

import hookline

ROOT = Path(hookline.__file__).parent

#: Module globals that are the process's by nature, and why no agent could own one.
PROCESS_WIDE: typing.Final = types.MappingProxyType({
    "hookline._support.keepers.WATCHDOG":
        "the one watchdog of the process: it outlives the process, to end what its calls started",
    "hookline._support.threads.WORKERS":
        "the daemon threads in_thread runs calls on: idle ones end on their own, none is closed",
    "hookline.permissions._sandbox.mounts.PLACEHOLDERS":
        "mount points on the host's file system, counted per process and locked across them",
    "hookline._cli.own_stdout._kept":
        "the process's file descriptor 1, set aside while the command line runs",
    "hookline.permissions.bash._grammar._local":
        "one tree-sitter parser per thread, reused; it holds no answer",
    "hookline._hooks.python_files._IMPORTING":
        "held while a hook module is imported: sys.path and sys.modules are the process's",
    "hookline._hooks.python_files._IMPORTED_FROM":
        "which folder each hook module in sys.modules came from: sys.modules is the process's",
    "hookline.permissions._proving._SEEN":
        "a memo of a pure function by identity: the same answer whoever asks",
    "hookline._claude.session_env._numbers":
        "a counter that keeps file names unique within the process",
    "hookline._support.jsontext.compact":
        "a configured JSON encoder's encode: it keeps nothing between calls",
    "hookline._support.jsontext.canonical":
        "a configured JSON encoder's encode: it keeps nothing between calls",
    "hookline._support.jsontext._response":
        "a configured JSON encoder's encode: it keeps nothing between calls",
})  # fmt: skip
#: Calls that change the object they are called on.
MUTATORS: typing.Final = frozenset({
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
    "add", "discard", "sort", "reverse", "intersection_update", "difference_update",
    "symmetric_difference_update", "__setitem__", "__delitem__", "__ior__", "__iadd__",
})  # fmt: skip
_SCALARS: typing.Final = (
    type(None), bool, int, float, complex, str, bytes, range, re.Pattern, PurePath,
    datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo, enum.Enum,
)  # fmt: skip
_CODE: typing.Final = (
    types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, ContextVar,
    typing.TypeVar, typing.ParamSpec, types.GenericAlias, types.UnionType,
)  # fmt: skip
_FUNCTIONS = re.compile(r"_lru_cache_wrapper|functools\.partial|cached_property")
_CONTAINERS: typing.Final = (dict, list, set, bytearray, collections.deque)
#: ``Py_TPFLAGS_HEAPTYPE``: set on classes made by a ``class`` statement.
_HEAP_TYPE: typing.Final = 1 << 9


# -- rule 1: what a global holds ----------------------------------------------------------------


def constant(value: object) -> bool:
    """Whether ``value`` cannot change: see the module docstring."""
    if isinstance(value, _SCALARS + _CODE):
        return True
    kind = type(value)
    if kind.__module__ in ("typing", "typing_extensions") or "GenericAlias" in kind.__name__:
        return True
    if _FUNCTIONS.search(f"{kind.__module__}.{kind.__qualname__}"):
        return True
    if isinstance(value, types.MethodType):
        # a class's own method, or one of a constant (a frozen table's ``get``)
        return isinstance(value.__self__, type) or constant(value.__self__)
    if isinstance(value, tuple | frozenset):
        return all(constant(item) for item in value)
    if isinstance(value, types.MappingProxyType):
        return all(constant(k) and constant(v) for k, v in value.items())
    if dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen:
        return all(constant(getattr(value, f.name)) for f in dataclasses.fields(value))
    return _stateless(value)


def _stateless(value: object) -> bool:
    """A sentinel: an instance with no attributes of its own (``object()``, ``UNCHANGED``), of
    classes written in Python (a type written in C, ``itertools.count``, hides its state)."""
    if type(value) is object:
        return True
    if not all(_written_in_python(c) for c in type(value).__mro__ if c is not object):
        return False
    if getattr(value, "__dict__", None):
        return False
    slots = [s for c in type(value).__mro__ for s in getattr(c, "__slots__", ())]
    return not any(hasattr(value, s) for s in slots if s not in ("__dict__", "__weakref__"))


def _written_in_python(cls: type) -> bool:
    """Made by a ``class`` statement in a ``.py`` file (not a C type, whose state is hidden)."""
    try:
        return bool(cls.__flags__ & _HEAP_TYPE) and inspect.getfile(cls).endswith(".py")
    except TypeError:  # a built-in module's
        return False


def held_state(name: str, value: object, final: bool) -> str | None:
    """What is wrong with a global ``name`` holding ``value``; None when nothing is."""
    if name == "__all__" or isinstance(value, logging.Logger):
        return None
    if isinstance(value, _CONTAINERS):
        return None if final else f"a {type(value).__name__} not declared Final (a registry?)"
    return None if constant(value) else f"a {type(value).__qualname__}, which holds state"


# -- rule 2: what a function changes ------------------------------------------------------------


@dataclasses.dataclass
class Module:
    """One module: its name, its syntax tree, and the object it is once imported."""

    name: str
    tree: ast.Module
    loaded: types.ModuleType

    def top_level(self) -> Iterator[ast.stmt]:
        """Its statements outside any function or class (inside ifs, tries and withs too)."""
        todo = list(self.tree.body)
        while todo:
            node = todo.pop(0)
            yield node
            if isinstance(node, ast.If | ast.Try | ast.With | ast.For):
                todo.extend(ast.iter_child_nodes(node))

    def assigned(self) -> dict[str, bool]:
        """The names bound at top level by assignment, each with whether it is ``Final``."""
        names: dict[str, bool] = {}
        for node in self.top_level():
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For):
                targets = [node.target]
            final = isinstance(node, ast.AnnAssign) and _is_final(node.annotation)
            for target in targets:
                for named in ast.walk(target):
                    if isinstance(named, ast.Name):
                        names[named.id] = names.get(named.id, False) or final
        return names

    def imported(self, modules: set[str]) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
        """Names imported from library modules (alias -> (module, name)), and library modules
        imported whole (alias -> module)."""
        names: dict[str, tuple[str, str]] = {}
        whole: dict[str, str] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in modules:
                        whole[alias.asname or alias.name] = full
                    elif node.module in modules:
                        names[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules and alias.asname:
                        whole[alias.asname] = alias.name
        return names, whole


def _is_final(annotation: ast.expr) -> bool:
    node = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.startswith(("Final", "typing.Final"))
    return name == "Final"


def changes(module: Module, modules: dict[str, Module]) -> list[tuple[int, str, str, str]]:
    """Each place a function of ``module`` changes a library module's global: (line, module,
    name, how)."""
    names, whole = module.imported(set(modules))
    own = module.assigned()
    found: list[tuple[int, str, str, str]] = []

    def target(expr: ast.expr, bound: set[str]) -> tuple[str, str] | None:
        attributes: list[str] = []
        while isinstance(expr, ast.Subscript | ast.Attribute | ast.Starred):
            if isinstance(expr, ast.Attribute):
                attributes.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name) or expr.id in bound:
            return None
        if expr.id in whole and attributes:
            return whole[expr.id], attributes[-1]
        if expr.id in names:
            return names[expr.id]
        return (module.name, expr.id) if expr.id in own else None

    for function in ast.walk(module.tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        bound = _bound_in(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found += [(node.lineno, module.name, n, "rebinds it (global)") for n in node.names]
            for expr, how in _changed(node):
                if (hit := target(expr, bound)) is not None:
                    found.append((node.lineno, *hit, how))
    return sorted(set(found))  # a nested function is walked with the one around it too


def _changed(node: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    """The expressions ``node`` changes in place, with how."""
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Delete):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            for part in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                if isinstance(part, ast.Subscript | ast.Attribute):
                    yield part, f"{type(node).__name__.lower()} of an item or attribute"
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            yield node.func.value, f".{node.func.attr}()"
        elif isinstance(node.func, ast.Name) and node.func.id == "next" and node.args:
            yield node.args[0], "next()"


def _bound_in(function: ast.AST) -> set[str]:
    """Names local to ``function`` or a function inside it (parameters, assignments, loops,
    ``with``/``except`` names, imports), less those it declares ``global``."""
    bound: set[str] = set()
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Global):
            declared.update(node.names)
    return bound - declared


# -- running the rules --------------------------------------------------------------------------


def load(package: str, root: Path) -> dict[str, Module]:
    """Every module of ``package`` (whose folder is ``root``), imported."""
    modules: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        with warnings.catch_warnings():  # an old name of a moved module warns as it imports
            warnings.filterwarnings("ignore", r".* moved to ", DeprecationWarning)
            modules[name] = Module(name, tree, importlib.import_module(name))
    return modules


def shared_state(modules: dict[str, Module], allowed: typing.Mapping[str, str]) -> list[str]:
    """What breaks rule 1 or 2, one line each."""
    problems = []
    for module in modules.values():
        for name, final in module.assigned().items():
            value = vars(module.loaded).get(name)
            wrong = held_state(name, value, final)
            if wrong and f"{module.name}.{name}" not in allowed:
                problems.append(f"{module.name}.{name} is {wrong}")
        for line, owner, name, how in changes(module, modules):
            if f"{owner}.{name}" not in allowed:
                problems.append(f"{module.name}:{line} changes {owner}.{name}: {how}")
    return problems


@pytest.fixture(scope="module")
def library() -> dict[str, Module]:
    return load("hookline", ROOT)


def test_no_module_of_the_library_holds_or_changes_state_for_the_whole_process(
    library: dict[str, Module],
) -> None:
    problems = shared_state(library, PROCESS_WIDE)
    assert problems == [], (
        "module-level state is shared by every agent of the process: make it the agent's "
        "(hookline._agent.runtime), a constant (declared Final, never changed), or, if it is "
        "the process's by nature, list it in PROCESS_WIDE with why:\n" + "\n".join(problems)
    )


def test_every_process_wide_name_exists_and_says_why(library: dict[str, Module]) -> None:
    for dotted, why in PROCESS_WIDE.items():
        module, _, name = dotted.rpartition(".")
        assert name in vars(library[module].loaded), f"{dotted} is gone: take it off the list"
        assert len(why) > 20


PLANTED = """
import itertools
from typing import Final

from hookline._support.http_pool import HttpClients

from planted_state import tables
from planted_state.tables import TABLE

POOL = HttpClients()
CLOSE = POOL.aclose


class Default:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: object = None


RESOLVER = Default()
_REGISTRY: dict[str, object] = {}
CONSTANT: Final = {"x": (1, 2)}
TICKETS = itertools.count()
counter = 0


def register(key: str, value: object) -> None:
    _REGISTRY[key] = value


def install_resolver(resolver: object) -> None:
    RESOLVER.value = resolver


def sneak() -> None:
    TABLE["b"] = 2
    tables.ROWS.append(3)


def bump() -> int:
    global counter
    counter += 1
    return next(TICKETS)


def harmless(table: dict[str, int]) -> dict[str, int]:
    table["local"] = 1
    found = dict(CONSTANT)
    found.update(table)
    return found
"""
TABLES = """
from typing import Final

TABLE: Final = {"a": 1}
ROWS: Final[list[int]] = [1, 2]
"""


def test_each_kind_of_shared_state_planted_in_a_package_is_named(tmp_path: Path) -> None:
    package = tmp_path / "planted_state"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tables.py").write_text(TABLES)
    (package / "pools.py").write_text(PLANTED)
    sys.path.insert(0, str(tmp_path))
    try:
        problems = shared_state(load("planted_state", package), {})
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("planted_state")]:
            del sys.modules[name]
    assert sorted(problems) == [
        "planted_state.pools.CLOSE is a method, which holds state",
        "planted_state.pools.POOL is a HttpClients, which holds state",
        "planted_state.pools.RESOLVER is a Default, which holds state",
        "planted_state.pools.TICKETS is a count, which holds state",
        "planted_state.pools._REGISTRY is a dict not declared Final (a registry?)",
        "planted_state.pools:29 changes planted_state.pools._REGISTRY: "
        "assign of an item or attribute",
        "planted_state.pools:33 changes planted_state.pools.RESOLVER: "
        "assign of an item or attribute",
        "planted_state.pools:37 changes planted_state.tables.TABLE: assign of an item or attribute",
        "planted_state.pools:38 changes planted_state.tables.ROWS: .append()",
        "planted_state.pools:42 changes planted_state.pools.counter: rebinds it (global)",
        "planted_state.pools:44 changes planted_state.pools.TICKETS: next()",
    ]  # and nothing of CONSTANT, nor of what harmless() changes: its own objects
