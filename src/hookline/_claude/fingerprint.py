"""Fingerprints of the files that decide which hooks run: so a paused session notices a change.

    prints = fingerprint(project, settings=("ci.json",), hook_files=("gate.py",))
    ...  # the session pauses; someone adds .claude/settings.local.json
    changes(prints, fingerprint(project, ...), base=project)  # [".claude/... (new)"]

A fingerprint maps each file's absolute path to ``sha256:<hex>`` of its bytes, or ``absent``.
The files: every settings layer a run would look for (those that do not exist are recorded as
absent, so a file that appears is a change), each ``--settings`` file and ``--hooks`` file, the
file of each ``python`` hook named in settings (``path/file.py:fn``, or a module found in the
project), and the scripts a ``command`` hook names by path (``"$CLAUDE_PROJECT_DIR"/x.sh``,
``./x.sh``, ``~/x.sh``). Interpreters and system tools (under ``/usr``, ``/bin``, ...) are left
out; so are modules found only on the installed path. Nothing is imported or run here.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from hookline._claude.settings import StrPath, _files, load_settings, managed_settings_dir
from hookline._settings_layers import Layer

ABSENT: Final = "absent"
#: Files under these folders belong to the system, not to the hooks (interpreters, tools).
_SYSTEM: Final = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/proc/", "/dev/")
_PROJECT_DIR_VARS: Final = ("${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR")


def fingerprint(
    project_dir: StrPath,
    *,
    settings: Iterable[str] = (),
    hook_files: Iterable[StrPath] = (),
    home: StrPath | None = None,
) -> dict[str, str]:
    """Path -> ``sha256:<hex>`` or ``absent``, for every file that decides the hooks of a run
    in ``project_dir`` (``settings``: the ``--settings`` values; ``hook_files``: ``--hooks``)."""
    project = Path(project_dir).resolve()
    user = Path(home) if home is not None else Path.home()
    extra = tuple(settings)
    found = load_settings(project, extra=extra, home=user)
    paths = [path for _, path in _files(project, user, managed_settings_dir())]
    paths += [Path(value) for value in extra if not value.lstrip().startswith("{")]
    paths += [Path(file) for file in hook_files]
    paths += [p for layer in found.layers for p in _hook_files(layer, project, user)]
    return {str(path.resolve()): digest(path) for path in paths}


def digest(path: StrPath) -> str:
    """``sha256:<hex>`` of the file's bytes; ``absent`` when it cannot be read."""
    try:
        return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ABSENT


def changes(saved: Mapping[str, str], now: Mapping[str, str], *, base: StrPath) -> list[str]:
    """Each file that differs, as ``path (changed|new|removed)`` (paths under ``base`` shown
    relative to it). A file only ``saved`` names is read again now, so a file that is no
    longer named but unchanged is no change."""
    found = []
    for path in sorted(set(saved) | set(now)):
        before = saved.get(path, ABSENT)
        after = now[path] if path in now else digest(path)
        if before != after:
            what = "new" if before == ABSENT else "removed" if after == ABSENT else "changed"
            found.append(f"{_shown(path, Path(base).resolve())} ({what})")
    return found


def _shown(path: str, base: Path) -> str:
    try:
        return str(Path(path).relative_to(base))
    except ValueError:
        return path


def _hook_files(layer: Layer, project: Path, home: Path) -> Iterator[Path]:
    """The files the hooks of one settings layer name: python targets and command scripts."""
    for handler in _handlers(layer.data.get("hooks")):
        kind = handler.get("type")
        if kind == "python" and isinstance(handler.get("callable"), str):
            yield from _python_file(handler["callable"], project)
        elif kind == "command" and isinstance(handler.get("command"), str):
            args = handler.get("args")
            words = [handler["command"], *args] if isinstance(args, list) else None
            yield from _scripts(handler["command"], words, project, home)


def _handlers(hooks: Any) -> Iterator[dict[str, Any]]:
    """Every handler object in a ``hooks`` setting, skipping whatever is malformed."""
    events = hooks if isinstance(hooks, dict) else {}
    for groups in events.values():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else ():
                if isinstance(handler, dict):
                    yield handler


def _python_file(target: str, project: Path) -> Iterator[Path]:
    """The file of ``path/file.py:fn`` (relative to the project), or of ``package.module:fn``
    when the project holds it."""
    where, _, attr = target.rpartition(":")
    if not where or not attr:
        return
    if where.endswith(".py") or "/" in where or "\\" in where:
        yield project / where
        return
    module = project.joinpath(*where.split("."))
    for candidate in (module.with_suffix(".py"), module / "__init__.py"):
        if candidate.is_file():
            yield candidate


def _scripts(command: str, words: list[Any] | None, project: Path, home: Path) -> Iterator[Path]:
    """The files a command hook names by path, where they resolve to a file outside the
    system folders."""
    if words is None:
        try:
            words = shlex.split(_with_project(command, project))
        except ValueError:
            return
    for word in words:
        if not isinstance(word, str) or "/" not in word:
            continue
        text = _with_project(word, project)
        path = home / text[2:] if text.startswith("~/") else project / text
        if path.is_file() and not str(path.resolve()).startswith(_SYSTEM):
            yield path


def _with_project(text: str, project: Path) -> str:
    for name in _PROJECT_DIR_VARS:
        text = text.replace(name, str(project))
    return text
