"""Where Gemini CLI, Codex and Cursor read the machine's own hooks: the ``managed`` scope of
``hookline install``, which a platform team writes once per machine (as root) and the person at
the machine cannot edit.

- **Codex** reads ``hooks.json`` beside its system ``config.toml``: ``/etc/codex/hooks.json``
  (Windows: ``%ProgramData%\\OpenAI\\Codex\\hooks.json``). Its hooks are the system layer's, which
  Codex runs without the review (``/hooks``) it asks for user and project hooks, and which a
  person cannot turn off there.
- **Gemini CLI** reads its system settings file: ``/etc/gemini-cli/settings.json`` (macOS:
  ``/Library/Application Support/GeminiCli/settings.json``, Windows:
  ``C:\\ProgramData\\gemini-cli\\settings.json``), or the file ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``
  names. Its settings override the user's and the project's, and its hooks run beside theirs;
  but Gemini runs no hook at all, these included, in a folder it does not trust.
- **Cursor** reads its enterprise ``hooks.json``: ``/etc/cursor/hooks.json`` (macOS:
  ``/Library/Application Support/Cursor/hooks.json``, Windows:
  ``C:\\ProgramData\\Cursor\\hooks.json``), run beside the user's and the project's hooks, and
  first among them when their answers conflict.

``$HOOKLINE_MANAGED_ROOT`` names a folder that stands for the machine's root (``/``, or the
Windows drive) for these files: a machine image being built, or a test.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePath, PureWindowsPath
from typing import Final

#: A folder standing for the machine's root where the managed files are looked for.
ROOT_ENV: Final = "HOOKLINE_MANAGED_ROOT"
#: The file Gemini CLI reads its system settings from, when set.
GEMINI_SYSTEM_ENV: Final = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"

_UNIX: Final = {
    "codex": "/etc/codex/hooks.json",
    "gemini": "/etc/gemini-cli/settings.json",
    "cursor": "/etc/cursor/hooks.json",
}
_MACOS: Final = {
    **_UNIX,
    "gemini": "/Library/Application Support/GeminiCli/settings.json",
    "cursor": "/Library/Application Support/Cursor/hooks.json",
}
_WINDOWS: Final = {
    "codex": "OpenAI/Codex/hooks.json",
    "gemini": "gemini-cli/settings.json",
    "cursor": "Cursor/hooks.json",
}


def managed_path(host: str) -> Path:
    """The file ``host`` (``codex``, ``gemini`` or ``cursor``) reads the machine's hooks from."""
    if host == "gemini" and (given := os.environ.get(GEMINI_SYSTEM_ENV)):
        return Path(given)
    return _under_root(_system_path(host))


def _system_path(host: str) -> PurePath:
    if sys.platform == "win32":
        program_data = os.environ.get("PROGRAMDATA") or "C:\\ProgramData"
        return PureWindowsPath(program_data) / _WINDOWS[host]
    return PurePath(_MACOS[host] if sys.platform == "darwin" else _UNIX[host])


def _under_root(path: PurePath) -> Path:
    root = os.environ.get(ROOT_ENV)
    if not root:
        return Path(path)
    return Path(root).joinpath(*path.parts[1:])
