"""Hooks from a Python file: its ``HOOKS`` mapping (Claude Agent SDK shape) and/or ``register``.

# my_hooks.py
from hookline import Decision, HookMatcher

async def no_force_push(input_data, tool_use_id, context): ...
HOOKS = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_force_push])]}

def register(registry):            # hookline's own API, optional
    registry.add("PostToolUse", audit, kind="observer")
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from hookline._errors import ConfigError
from hookline._hooks.registry import HookRegistry
from hookline._hooks.runners import HOOK_FILE_MODULE_PREFIX


def load_hooks_file(path: str | Path, registry: HookRegistry) -> int:
    """Import ``path`` and register its hooks; returns how many were added."""
    file = str(path)
    if not Path(path).is_file():
        raise ConfigError("no such hooks file", file=file, fix="check the path given to --hooks")
    module = import_file(Path(path), file)
    hooks = getattr(module, "HOOKS", None)
    register = getattr(module, "register", None)
    if hooks is None and register is None:
        raise ConfigError(
            "defines neither HOOKS nor register(registry)",
            file=file,
            fix='add HOOKS = {"PreToolUse": [HookMatcher(hooks=[fn])]} or def register(registry)',
        )
    before = len(registry)
    with registry.sourced(f"python:{file}"):
        if hooks is not None:
            registry.add_matchers(hooks, file=file)
        if register is not None:
            _call_register(register, registry, file)
    return len(registry) - before


def import_target(target: str, base_dir: str) -> tuple[Callable[..., Any], str]:
    """``"package.module:function"`` or ``"path/file.py:function"`` (relative to ``base_dir``)
    imported; returns the callable and a key naming it wherever it lives. ConfigError (key
    "callable") when it cannot be had."""
    where, _, attr = target.rpartition(":")
    if not where or not attr:
        raise _bad_target("names no function", 'write "package.module:function"')
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(base_dir, where).resolve()
        module, origin = import_file(path, str(path)), str(path)
    else:
        module, origin = _import_module(where, base_dir), where
    try:
        fn = functools.reduce(getattr, attr.split("."), module)
    except AttributeError:
        raise _bad_target(f"{where} has no attribute {attr!r}", "check the name") from None
    if not callable(fn):
        raise _bad_target(f"{target} is not callable", "name a function")
    return fn, f"{origin}:{attr}"


def _bad_target(message: str, fix: str) -> ConfigError:
    return ConfigError(message, key="callable", fix=fix)


def _import_module(name: str, base_dir: str) -> ModuleType:
    """``name`` imported with ``base_dir`` on the path, after the installed packages. Two
    folders may each have a module of the same name (two projects' hook modules, judged by one
    server): each folder's hooks get their own, never the one another folder imported first."""
    top = name.partition(".")[0]
    with _IMPORTING:
        _forget_another_folders(top, base_dir)
        added = base_dir not in sys.path
        if added:  # the project's own packages import, after the installed ones
            sys.path.append(base_dir)
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            raise _bad_target(
                f"cannot import {name!r}: {type(exc).__name__}: {exc}",
                f"run python -c 'import {name}' to see why",
            ) from None
        finally:
            if added:
                sys.path.remove(base_dir)
        if _inside(sys.modules.get(top), base_dir):
            _IMPORTED_FROM[top] = base_dir
        return module


#: Held while a hook module is imported: the path and ``sys.modules`` are the process's.
_IMPORTING = threading.RLock()
#: Each top-level module a folder's hooks imported from that folder, and the folder.
_IMPORTED_FROM: dict[str, str] = {}


def _forget_another_folders(top: str, base_dir: str) -> None:
    """Take ``top`` (and its submodules) out of ``sys.modules`` when another folder's hooks
    imported it from that folder and ``base_dir`` has one of its own; never an installed one."""
    other = _IMPORTED_FROM.get(top)
    own = (Path(base_dir, f"{top}.py"), Path(base_dir, top, "__init__.py"))
    if other is None or other == base_dir or not any(path.is_file() for path in own):
        return
    for loaded in [key for key in sys.modules if key == top or key.startswith(f"{top}.")]:
        del sys.modules[loaded]
    del _IMPORTED_FROM[top]


def _inside(module: ModuleType | None, folder: str) -> bool:
    where = getattr(module, "__file__", None)
    return isinstance(where, str) and Path(where).resolve().is_relative_to(Path(folder).resolve())


@functools.cache
def _cached_import(path: Path, mtime_ns: int) -> ModuleType:
    return _exec_file(path)


def import_file(path: Path, file: str) -> ModuleType:
    """The module of a Python file, executed once per version of the file."""
    if not path.is_file():
        raise ConfigError("no such file", file=file, fix="check the path")
    real = path.resolve()
    return _cached_import(real, real.stat().st_mtime_ns)


def _exec_file(path: Path) -> ModuleType:
    """Execute the (resolved, existing) file ``path`` as a fresh module."""
    file, folder = str(path), str(path.parent)
    digest = hashlib.sha1(file.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(f"{HOOK_FILE_MODULE_PREFIX}{digest}", path)
    if spec is None or spec.loader is None:
        raise ConfigError("cannot be imported as Python", file=file, fix="name it *.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ConfigError(
            f"syntax error on line {exc.lineno}: {exc.msg}", file=file, fix="correct the syntax"
        ) from None
    except Exception as exc:
        raise ConfigError(
            f"failed to import: {type(exc).__name__}: {exc}{_line_in(exc, path)}",
            file=file,
            fix=f"run 'python {file}' to see the whole error",
        ) from None
    finally:
        sys.path.remove(folder)
    return module


def _call_register(register: object, registry: HookRegistry, file: str) -> None:
    if not callable(register):
        raise ConfigError(
            "register is not a function",
            file=file,
            key="register",
            fix="def register(registry): ...",
        )
    try:
        register(registry)
    except ConfigError as exc:
        raise ConfigError(exc.message, file=exc.file or file, key=exc.key, fix=exc.fix) from None
    except Exception as exc:
        raise ConfigError(
            f"register(registry) raised {type(exc).__name__}: {exc}",
            file=file,
            key="register",
            fix="fix the error in register()",
        ) from None


def _line_in(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return f" (line {frames[-1].lineno})" if frames else ""
