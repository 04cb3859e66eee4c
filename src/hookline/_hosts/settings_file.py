"""A host's JSON settings file, edited in place without losing anything.

``read`` refuses a file that is not a JSON object, in one line naming it (nothing is written
then). ``write`` keeps a copy of the file as it was before hookline first touched it
(``<name>.hookline-backup``, never overwritten), then replaces the file whole: written beside
it, on disk, renamed into place, with the mode it had; a settings file that is a symbolic link
(a dotfiles checkout) is written where the link leads, so the link stays. ``restore`` puts the
backup's bytes back when the settings are again what it holds, and removes a file hookline made
once nothing is left in it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hookline._errors import ConfigError
from hookline._support.private import write_all

BACKUP_SUFFIX = ".hookline-backup"
#: The mode of a settings file hookline creates: the host and the user's tools read it.
NEW_FILE_MODE = 0o644


def read(path: Path) -> dict[str, Any] | None:
    """The settings in ``path``; None when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read it: {exc}", file=str(path)) from None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            file=str(path),
            fix="mend it (the host cannot read it either), then install again",
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("is not a JSON object", file=str(path), fix="mend it, then try again")
    return data


def backup_path(path: Path) -> Path:
    """Where the copy of ``path`` as it was before hookline's first write is kept."""
    target = Path(os.path.realpath(path))
    return target.with_name(target.name + BACKUP_SUFFIX)


def write(path: Path, settings: dict[str, Any]) -> Path | None:
    """``settings`` as the whole of ``path`` (two-space JSON); the backup made on the first
    write, or None when there was no file to back up."""
    target, backup = Path(os.path.realpath(path)), backup_path(path)
    try:
        old = target.read_bytes()
    except FileNotFoundError:
        old = None
    if old is not None and not backup.exists():
        _replace(backup, old, _mode(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode()
    _replace(target, data, _mode(target))
    return backup if old is not None else None


def restore(path: Path, settings: dict[str, Any]) -> Path | None:
    """``settings`` as the whole of ``path``, hookline's part taken out: the backup's own bytes
    when they say the same (the backup is then done with), nothing at all when hookline made
    the file and nothing is left; else as ``write``. The backup still kept, if any."""
    target, backup = Path(os.path.realpath(path)), backup_path(path)
    try:
        original = backup.read_bytes()
    except FileNotFoundError:
        if settings:
            return write(path, settings)
        target.unlink(missing_ok=True)
        return None
    try:
        same = json.loads(original) == settings
    except (json.JSONDecodeError, UnicodeDecodeError):
        same = False
    if not same:
        return write(path, settings)
    _replace(target, original, _mode(target))
    backup.unlink()
    return None


def _mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return NEW_FILE_MODE


def _replace(path: Path, data: bytes, mode: int) -> None:
    fresh = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    try:
        os.fchmod(fd, mode)  # as it was, whatever the umask
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        fresh.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(fresh, path)
