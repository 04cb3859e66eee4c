"""Running a command inside the sandbox: the bwrap command line, the session's temp folder, and
the domain proxy the sandbox reaches through a descriptor it inherits.

What a sandboxed command sees (later mounts win over earlier ones):

1. the whole filesystem read-only, a fresh ``/dev`` and ``/proc``; no capabilities, its own
   pid, ipc, uts, cgroup and network namespaces (only a loopback), its own session; it dies
   with the harness (``--die-with-parent``);
2. writable: the workspace roots, the session's temp folder (``TMPDIR``), ``allowWrite``;
3. each root's ``.git`` pinned (bound onto itself), and read-only again: ``denyWrite`` and the
   protected set, with placeholders for what does not exist yet (``mounts``);
4. hidden: ``denyRead`` and hookline's per-user keys (``protected.secret_paths``) (an empty
   read-only tmpfs over a folder, ``/dev/null`` over a file);
5. a seccomp filter: no Unix socket can be made (``seccomp``), unless the settings say
   ``network.allowAllUnixSockets``.

The ``filesystem`` patterns are expanded each time a sandbox starts (``globs``). With
``allowedDomains``, the command runs under ``forward.py``, which listens on 127.0.0.1:3128
inside and passes each connection to the proxy on the host over an inherited socket
(``proxy``); ``HTTP(S)_PROXY`` and ``ALL_PROXY`` point there. What cannot be set up (a pattern
past its limits, a protected link, no libseccomp) is a ``SandboxError``: the command does not
run.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ToolError
from hookline.permissions._protected import secret_paths
from hookline.permissions._sandbox import globs, mounts, seccomp
from hookline.permissions._sandbox.config import HARDENING, NAMESPACES
from hookline.permissions._sandbox.protect import protected_entries
from hookline.permissions._sandbox.proxy import DomainProxy

if TYPE_CHECKING:
    from hookline.permissions._sandbox.config import SandboxConfig

#: Where the forwarder listens inside the sandbox's own loopback.
PROXY_PORT: Final = 3128
_FORWARDER: Final = str(Path(__file__).with_name("forward.py"))
_PROXY_VARS: Final = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY")
_BASE: Final = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")


class SandboxError(ToolError):
    """The sandbox cannot start for this command; it does not run (the message says why)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """What to run instead of the command: bwrap's argv, the env, the descriptors to pass."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()


def layout(
    config: SandboxConfig, *, roots: Sequence[str], temp: str, code_files: Sequence[str] = ()
) -> tuple[mounts.Plan, list[str]]:
    """The mounts for ``config`` and the paths to hide, with every pattern expanded now;
    SandboxError when a pattern or the protected set cannot be applied."""
    try:
        allowed = [p for pattern in config.allow_write for p in globs.expand(pattern)]
        denied = [p for pattern in config.deny_write for p in globs.expand(pattern)]
        hidden = [p for pattern in config.deny_read for p in globs.expand(pattern)]
        hidden += secret_paths()  # hookline's keys: never readable inside
        protected, git = protected_entries(roots, code_files=code_files)
        plan = mounts.plan(_real([*roots, temp, *allowed]), _real(denied), protected, git)
    except (globs.PatternError, mounts.MountError) as exc:
        raise SandboxError(f"The sandbox cannot start: {exc}") from None
    return plan, _real(hidden)


def bwrap_argv(
    argv: Sequence[str],
    config: SandboxConfig,
    *,
    roots: Sequence[str],
    temp: str,
    cwd: str,
    seccomp_fd: int | None = None,
    plan: tuple[mounts.Plan, list[str]] | None = None,
) -> list[str]:
    """The bwrap command line that runs ``argv`` in ``cwd`` under ``config``: writable only
    ``roots``, ``temp`` and ``allowWrite``; ``.git`` pinned and the protected set read-only
    (what exists of it); ``seccomp_fd``: the filter bwrap reads (``--seccomp``)."""
    binds, hidden = plan or layout(config, roots=roots, temp=temp)
    read_only = [path for path in binds.read_only if os.path.lexists(path)]
    filtered = ("--seccomp", str(seccomp_fd)) if seccomp_fd is not None else ()
    return [
        config.executable or "bwrap",
        *_BASE,
        *HARDENING,
        *NAMESPACES,
        *_binds("--bind", binds.writable),
        *_binds("--bind", binds.pinned),
        *_binds("--ro-bind", read_only),
        *_hidden(hidden),
        *filtered,
        "--chdir",
        cwd,
        "--",
        *argv,
    ]


class Sandbox:
    """One session's sandbox: the config, the roots it may write, a temp folder made on first
    use, and the proxy (made on first use when domains are allowed). Thread-safe."""

    def __init__(
        self,
        config: SandboxConfig,
        *,
        roots: Sequence[str | os.PathLike[str]],
        code_files: Sequence[str] = (),
        placeholders: mounts.Placeholders = mounts.PLACEHOLDERS,
    ) -> None:
        self.config = config
        self.roots = tuple(os.path.realpath(root) for root in roots)
        #: Files the settings name as code (hook files): read-only inside, like the rest of
        #: the protected set.
        self.code_files = tuple(code_files)
        #: Where placeholders are counted: the process's registry unless one is given.
        self.placeholders = placeholders
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._proxy: DomainProxy | None = None
        #: Each batch of placeholders this sandbox made (or holds), one release each.
        self._held: list[list[str]] = []

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

    @contextmanager
    def launch(self, argv: Sequence[str], env: Mapping[str, str], *, cwd: str) -> Iterator[Launch]:
        """What runs ``argv`` inside the sandbox instead, for the time of one run: the
        descriptors are open until it ends, and the placeholders of the protected set exist
        (made on the first run that needs each, held until ``close``)."""
        folder, proxy = self._state()
        temp = os.path.join(folder, "tmp")
        plan = layout(self.config, roots=self.roots, temp=temp, code_files=self.code_files)
        self._hold(plan[0].missing)
        fds: list[int] = []
        try:
            inner, env = list(argv), {**env, "TMPDIR": temp}
            if proxy is not None:
                fds.append(proxy.open())
                inner = [sys.executable, "-I", "-S", _FORWARDER, str(fds[-1]), str(PROXY_PORT)]
                inner += ["--", *argv]
                env = {k: v for k, v in env.items() if k.lower() != "no_proxy"}
                env.update(dict.fromkeys(_PROXY_VARS, f"http://127.0.0.1:{PROXY_PORT}"))
            seccomp_fd = None
            if not self.config.allow_all_unix_sockets:
                seccomp_fd = _filter()
                fds.append(seccomp_fd)
            bwrap = bwrap_argv(
                inner,
                self.config,
                roots=self.roots,
                temp=temp,
                cwd=cwd,
                seccomp_fd=seccomp_fd,
                plan=plan,
            )
            yield Launch(bwrap, env, tuple(fds))
        finally:
            for fd in fds:
                os.close(fd)

    def close(self) -> None:
        """Stop the proxy, delete the temp folder and let go of the placeholders (also done
        when the object is collected)."""
        with self._lock:
            folder, proxy, self._folder, self._proxy = self._folder, self._proxy, None, None
            held, self._held = self._held, []
        _clean_up(folder, proxy, self.placeholders, held)

    def _hold(self, missing: Sequence[tuple[str, bool]]) -> None:
        """Make the placeholders not held yet; the first call holds the registry (and its lock
        across processes) even with none, since every run mounts what exists, another
        process's placeholders too, and they must stay while this sandbox lives."""
        with self._lock:
            known = {path for batch in self._held for path in batch}
            new = [entry for entry in missing if entry[0] not in known]
            if new or not self._held:
                self._held.append(self.placeholders.acquire(new))

    def _state(self) -> tuple[str, DomainProxy | None]:
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="hookline-sandbox-")
                os.mkdir(os.path.join(self._folder, "tmp"), 0o700)
                if self.config.allowed_domains:
                    self._proxy = DomainProxy(self.config.allowed_domains)
                weakref.finalize(
                    self, _clean_up, self._folder, self._proxy, self.placeholders, self._held
                )
            return self._folder, self._proxy


def _filter() -> int:
    try:
        return seccomp.memfd()
    except seccomp.SeccompError as exc:
        raise SandboxError(f"The sandbox cannot start: {exc}") from None


def _clean_up(
    folder: str | None,
    proxy: DomainProxy | None,
    placeholders: mounts.Placeholders,
    held: list[list[str]],
) -> None:
    while held:
        placeholders.release(held.pop())
    if proxy is not None:
        proxy.close()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _real(paths: Sequence[str]) -> list[str]:
    """Each path's real path, if it exists, without repeats, parents before children."""
    real = {os.path.realpath(path) for path in paths}
    return sorted((path for path in real if os.path.exists(path)), key=mounts.depth)


def _binds(option: str, paths: Sequence[str]) -> Iterator[str]:
    for path in paths:
        yield from (option, path, path)


def _hidden(paths: Sequence[str]) -> Iterator[str]:
    for path in paths:
        if os.path.isdir(path):
            yield from ("--tmpfs", path, "--remount-ro", path)
        else:
            yield from ("--ro-bind", "/dev/null", path)
