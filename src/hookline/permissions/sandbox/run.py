"""Running a command inside the sandbox: the bwrap command line, the session's temp folder, and
the domain proxy the sandbox reaches through a Unix socket.

What a sandboxed command sees (later mounts win over earlier ones):

1. the whole filesystem read-only, a fresh ``/dev`` and ``/proc``; no capabilities, its own
   pid, ipc, uts, cgroup and network namespaces (only a loopback), its own session; it dies
   with the harness (``--die-with-parent``);
2. writable: the workspace roots, the session's temp folder (``TMPDIR``), ``allowWrite``;
3. read-only again: ``denyWrite``, and in each root ``.claude/``, ``.hookline/``,
   ``.git/hooks/`` and ``.git/config``. A protected path that does not exist yet is created
   empty on the host first (a folder; ``.git/config`` a file), so the command cannot create it.
   The rest of ``.git`` stays writable, so ``git commit`` works;
4. hidden: ``denyRead`` (an empty read-only tmpfs over a folder, ``/dev/null`` over a file).

Every path is bound at its real path (symlinks resolved); paths that do not exist are skipped.
With ``allowedDomains``, the command runs under ``forward.py``, which listens on
127.0.0.1:3128 inside and passes each connection to the proxy's Unix socket on the host
(``proxy``); ``HTTP(S)_PROXY`` and ``ALL_PROXY`` point there.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._support.private import FOLDER, private_dir
from hookline.errors import ToolError
from hookline.permissions.sandbox.config import HARDENING, NAMESPACES
from hookline.permissions.sandbox.proxy import DomainProxy

if TYPE_CHECKING:
    from hookline.permissions.sandbox.config import SandboxConfig

#: Inside each workspace root: never writable from the sandbox.
PROTECTED: Final = (".claude", ".hookline", ".git/hooks", ".git/config")
#: Where the forwarder listens inside the sandbox's own loopback.
PROXY_PORT: Final = 3128
_FORWARDER: Final = str(Path(__file__).with_name("forward.py"))
_PROXY_VARS: Final = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY")
_BASE: Final = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")


def bwrap_argv(
    argv: Sequence[str],
    config: SandboxConfig,
    *,
    roots: Sequence[str],
    temp: str,
    cwd: str,
) -> list[str]:
    """The bwrap command line that runs ``argv`` in ``cwd`` under ``config``: writable only
    ``roots``, ``temp`` and ``allowWrite``; the protected paths of each root read-only."""
    writable = _real([*roots, temp, *config.allow_write])
    read_only = _real([*config.deny_write, *protected_paths(roots)])
    return [
        config.executable or "bwrap",
        *_BASE,
        *HARDENING,
        *NAMESPACES,
        *_binds("--bind", writable),
        *_binds("--ro-bind", read_only),
        *_hidden(_real(config.deny_read)),
        "--chdir",
        cwd,
        "--",
        *argv,
    ]


def protected_paths(roots: Sequence[str]) -> Iterator[str]:
    """The protected paths of each root, created empty first when missing (see the module
    docstring); a ``.git`` that is a file (a worktree's) is protected as the file."""
    for root in roots:
        done: set[str] = set()  # what is read-only already, with everything under it
        for relative in PROTECTED:
            path, parts = root, relative.split("/")
            for index, part in enumerate(parts):
                path, last = os.path.join(path, part), index == len(parts) - 1
                if path in done:
                    break
                if not os.path.lexists(path):
                    if _placeholder(Path(path), file=part == "config"):
                        done.add(path)
                    break
                if last or not os.path.isdir(path):
                    done.add(path)
                    break
        yield from done


class Sandbox:
    """One session's sandbox: the config, the roots it may write, a temp folder made on first
    use, and the proxy (started on first use when domains are allowed). Thread-safe."""

    def __init__(self, config: SandboxConfig, *, roots: Sequence[str | os.PathLike[str]]) -> None:
        self.config = config
        self.roots = tuple(os.path.realpath(root) for root in roots)
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._proxy: DomainProxy | None = None

    def sandboxes(self, command: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this Bash call runs inside (see ``SandboxConfig.sandboxes``); a ToolError
        when the sandbox cannot start and the settings say ``failIfUnavailable``."""
        config = self.config
        if config.enabled and config.fail_if_unavailable and (why := config.unavailable()):
            raise ToolError(f"The sandbox cannot start, and failIfUnavailable is set: {why}")
        return config.sandboxes(command, tool_input)

    @property
    def temp(self) -> str:
        """The session's temp folder, writable inside (its ``TMPDIR``)."""
        return os.path.join(self._state()[0], "tmp")

    def wrap(
        self, argv: Sequence[str], env: Mapping[str, str], *, cwd: str
    ) -> tuple[list[str], dict[str, str]]:
        """``argv`` and ``env`` for running the command inside the sandbox instead."""
        folder, proxy = self._state()
        temp = os.path.join(folder, "tmp")
        env = {**env, "TMPDIR": temp}
        inner = list(argv)
        if proxy is not None:
            inner = [sys.executable, "-I", "-S", _FORWARDER, proxy.path, str(PROXY_PORT), "--"]
            inner += argv
            env = {k: v for k, v in env.items() if k.lower() != "no_proxy"}
            env.update(dict.fromkeys(_PROXY_VARS, f"http://127.0.0.1:{PROXY_PORT}"))
        return bwrap_argv(inner, self.config, roots=self.roots, temp=temp, cwd=cwd), env

    def close(self) -> None:
        """Stop the proxy and delete the temp folder (also done when the object is collected)."""
        with self._lock:
            folder, proxy, self._folder, self._proxy = self._folder, self._proxy, None, None
        _clean_up(folder, proxy)

    def _state(self) -> tuple[str, DomainProxy | None]:
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="hookline-sandbox-")
                os.mkdir(os.path.join(self._folder, "tmp"), 0o700)
                if self.config.allowed_domains:
                    path = os.path.join(self._folder, "proxy.sock")
                    self._proxy = DomainProxy(path, self.config.allowed_domains)
                    self._proxy.start()
                weakref.finalize(self, _clean_up, self._folder, self._proxy)
            return self._folder, self._proxy


def _clean_up(folder: str | None, proxy: DomainProxy | None) -> None:
    if proxy is not None:
        proxy.close()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _real(paths: Sequence[str] | Iterator[str]) -> list[str]:
    """Each path's real path, if it exists, without repeats, parents before children."""
    real = {os.path.realpath(path) for path in paths}
    return sorted((path for path in real if os.path.exists(path)), key=_depth)


def _depth(path: str) -> tuple[int, str]:
    return path.rstrip("/").count("/"), path


def _binds(option: str, paths: Sequence[str]) -> Iterator[str]:
    for path in paths:
        yield from (option, path, path)


def _hidden(paths: Sequence[str]) -> Iterator[str]:
    for path in paths:
        if os.path.isdir(path):
            yield from ("--tmpfs", path, "--remount-ro", path)
        else:
            yield from ("--ro-bind", "/dev/null", path)


def _placeholder(path: Path, *, file: bool) -> bool:
    """Create ``path`` empty (a folder, or a file) so it can be mounted read-only; False when
    it cannot be created (then the sandboxed command, same user, cannot create it either)."""
    try:
        if file:
            path.touch(exist_ok=True)
        elif path.name == FOLDER:
            private_dir(path)  # 0700, with its .gitignore
        else:
            path.mkdir(exist_ok=True)
    except OSError:
        return False
    return True
