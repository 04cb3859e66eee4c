"""The files a run's hooks load as code, for the protected set
(``hookline.permissions._protected``).

    files = code_files(registry, project_dir="/ws")

A hook from a settings layer or a hooks file (a source such as ``project:/ws/.claude/settings.json``
or ``python:hooks.py``; hooks a program adds in code are its own business) names code:

- a Python hook: the file its function comes from, as it resolved when it loaded, and every
  module of the project it (or anything else) imported so far: each module whose file lies in
  ``project_dir`` outside ``site-packages``/``dist-packages``;
- a command hook: every word of its command (``$CLAUDE_PROJECT_DIR`` and ``~`` replaced) that
  names an existing file, relative to ``project_dir`` or absolute: ``./scripts/check.sh``,
  ``python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py``.
"""

from __future__ import annotations

import inspect
import os
import posixpath
import re
import shlex
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hookline._hooks.spec import HookSpec

_PROJECT_DIR = re.compile(r"\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b")
_INSTALLED = frozenset({"site-packages", "dist-packages"})


def code_files(specs: Iterable[HookSpec], *, project_dir: str) -> tuple[str, ...]:
    """The absolute files the hooks in ``specs`` (a ``HookRegistry``) run as code."""
    project = posixpath.normpath(project_dir)
    found: dict[str, None] = {}
    python = False
    for spec in specs:
        if ":" not in spec.source:  # added in code, not named by settings or a hooks file
            continue
        runner: Any = spec.runner
        if callable(getattr(runner, "fn", None)):
            python = True
            found.update(dict.fromkeys(_function_file(runner.fn)))
        elif isinstance(getattr(runner, "command", None), str):
            words = _words(runner.command, getattr(runner, "args", None))
            found.update(dict.fromkeys(_existing(words, project)))
    if python:
        found.update(dict.fromkeys(_project_modules(project)))
    return tuple(found)


def _function_file(fn: Any) -> Iterator[str]:
    target = inspect.unwrap(getattr(fn, "func", fn))
    try:
        file = inspect.getsourcefile(target) or inspect.getfile(target)
    except TypeError:  # a builtin or a C function: no file
        return
    yield posixpath.abspath(file)


def _project_modules(project: str) -> Iterator[str]:
    tops = (project, os.path.realpath(project))
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            continue
        file = posixpath.abspath(file)
        if _INSTALLED.intersection(file.split("/")):
            continue
        if any(file.startswith(top.rstrip("/") + "/") for top in tops):
            yield file


def _words(command: str, args: Iterable[str] | None) -> list[str]:
    if args is not None:
        return [command, *args]
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # an open quote: every plain word
        return command.split()


def _existing(words: Iterable[str], project: str) -> Iterator[str]:
    for word in words:
        text = _PROJECT_DIR.sub(lambda _: project, word)
        if not text or text.startswith("-"):
            continue
        path = posixpath.normpath(posixpath.join(project, posixpath.expanduser(text)))
        if os.path.isfile(path):
            yield path
