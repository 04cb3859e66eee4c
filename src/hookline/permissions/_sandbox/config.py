"""The OS sandbox for Bash: Claude Code's ``sandbox`` settings, read into a ``SandboxConfig``.

The keys, under ``"sandbox"`` in any settings layer::

    enabled                   run Bash commands under bubblewrap (default false)
    autoAllowBashIfSandboxed  a sandboxed Bash call needs no approval (default true)
    excludedCommands          commands that run outside (``"docker"``, ``"docker *"``)
    allowUnsandboxedCommands  the model may pass ``dangerouslyDisableSandbox: true`` (default true)
    failIfUnavailable         ``hookline run`` exits 2 when the sandbox cannot start
    filesystem.allowWrite / denyWrite / denyRead   path lists, with wildcards (``globs``)
    network.allowedDomains    reachable through the proxy (``*.example.com``); none: no network
    network.allowAllUnixSockets   Unix sockets may be made inside (default false: a seccomp
                              filter stops them); ``allowUnixSockets`` (paths) cannot be
                              applied on Linux: a warning, and they stay blocked

Lists merge across layers; true/false values: the highest layer wins. Paths: ``~`` is the
home, ``//x`` and ``/x`` are absolute, anything else is relative to the project. A bad entry is
a ``SettingsWarning`` naming the file and key, and the rest still loads; but a ``filesystem``
entry that cannot be applied (not a list of strings, a bad pattern, a wildcard in
``denyWrite``) is a ``ConfigError``: a path rule is never dropped.

Whether the sandbox can start is probed once per bwrap path (``unavailable``): bwrap missing,
bwrap unable to make the namespaces, or libseccomp missing. Running commands in it is
``run.Sandbox``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from hookline._errors import ConfigError
from hookline._settings_layers import Layer, Layered, SettingsWarning, layered, winning
from hookline._support.process import find_program
from hookline.permissions._rules import PermissionRule
from hookline.permissions._sandbox import globs, seccomp

#: Where to find bwrap when the config names none: this variable, else ``bwrap`` on PATH.
BWRAP_ENV: Final = "HOOKLINE_BWRAP"
INSTALL_HINT: Final = "apt-get install bubblewrap"
#: What every sandboxed command gets: it dies with the harness, has its own session, no
#: capabilities, and its own namespaces (network too: a proxy, if any, is reached by a socket).
HARDENING: Final = ("--die-with-parent", "--new-session", "--cap-drop", "ALL")
NAMESPACES: Final = (
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--unshare-net",
)
_DISABLE: Final = "dangerouslyDisableSandbox"


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """What the ``sandbox`` settings say; paths absolute, lists merged across layers."""

    enabled: bool = False
    auto_allow_bash: bool = True
    excluded_commands: tuple[str, ...] = ()
    allow_unsandboxed: bool = True
    fail_if_unavailable: bool = False
    allow_write: tuple[str, ...] = ()
    deny_write: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    #: ``network.allowAllUnixSockets``: no seccomp filter on Unix sockets.
    allow_all_unix_sockets: bool = False
    #: The bwrap executable; None: ``$HOOKLINE_BWRAP``, else ``bwrap`` on PATH.
    bwrap: str | None = None

    @classmethod
    def from_settings(
        cls, settings: Layered | Sequence[Layer], *, project_dir: str | os.PathLike[str]
    ) -> tuple[SandboxConfig, list[SettingsWarning]]:
        """The config the settings layers describe, and what in them was wrong and ignored."""
        layers = settings if isinstance(settings, Sequence) else settings.layers
        read, default = _Read(layers, Path(project_dir)), cls()
        config = cls(
            enabled=read.flag("enabled", default.enabled),
            auto_allow_bash=read.flag("autoAllowBashIfSandboxed", default.auto_allow_bash),
            excluded_commands=read.commands(),
            allow_unsandboxed=read.flag("allowUnsandboxedCommands", default.allow_unsandboxed),
            fail_if_unavailable=read.flag("failIfUnavailable", default.fail_if_unavailable),
            allow_write=read.paths("allowWrite"),
            deny_write=read.paths("denyWrite"),
            deny_read=read.paths("denyRead"),
            allowed_domains=read.domains(),
            allow_all_unix_sockets=read.flag(
                "allowAllUnixSockets", default.allow_all_unix_sockets, "network"
            ),
        )
        read.unix_socket_paths(config.allow_all_unix_sockets)
        return config, list(dict.fromkeys(read.warnings))

    @property
    def executable(self) -> str | None:
        """The bwrap to run, or None when there is none."""
        return self.bwrap or os.environ.get(BWRAP_ENV) or find_program("bwrap")

    def unavailable(self) -> str | None:
        """Why the sandbox cannot start here, with the fix; None when it can (probed once)."""
        executable = self.executable
        if executable is None or not os.access(executable, os.X_OK):
            return f"bubblewrap (bwrap) is not installed; install it: {INSTALL_HINT}"
        if why := _probe(executable):
            return why
        return None if self.allow_all_unix_sockets else seccomp.unavailable()

    def excludes(self, command: str) -> bool:
        """Whether ``command`` is in ``excludedCommands``: every part of the line must be."""
        call = {"command": command}
        rules = (_rule(text) for text in self.excluded_commands)
        return any(rule.matches("Bash", call, cwd="/", every=True) for rule in rules)

    def sandboxes(self, command: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this Bash call runs inside the sandbox (enabled, available, not excluded,
        and not let out by ``dangerouslyDisableSandbox``)."""
        if not self.enabled or self.unavailable() is not None or self.excludes(command):
            return False
        return not (self.allow_unsandboxed and tool_input.get(_DISABLE) is True)

    def auto_allows(self, command: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this Bash call runs without asking: it runs sandboxed, the settings allow
        that (``autoAllowBashIfSandboxed``), and it does not ask to leave the sandbox."""
        asked_out = tool_input.get(_DISABLE) is True
        return self.auto_allow_bash and not asked_out and self.sandboxes(command, tool_input)


@lru_cache(maxsize=8)
def _probe(executable: str) -> str | None:
    """Run ``true`` in the namespaces every command gets; None if it works, else why not."""
    argv = [executable, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += [*HARDENING, *NAMESPACES]
    try:
        done = subprocess.run(
            [*argv, "--", "true"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap ({executable}) cannot be run: {exc}; reinstall it: {INSTALL_HINT}"
    if done.returncode == 0:
        return None
    why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
    return (
        f"bwrap cannot create the sandbox's namespaces ({why}); allow unprivileged user "
        f"namespaces (sysctl kernel.unprivileged_userns_clone=1) or {INSTALL_HINT} (setuid)"
    )


@lru_cache(maxsize=256)
def _rule(pattern: str) -> PermissionRule:
    """``docker`` and ``docker *`` both cover ``docker ps``, as Claude Code reads them."""
    return PermissionRule("Bash", pattern if "*" in pattern else f"{pattern} *")


class _Read:
    """Reads the ``sandbox`` keys of every layer, highest first, and collects warnings."""

    def __init__(self, layers: Sequence[Layer], project: Path) -> None:
        self.layers, self.project = layers, project
        self.warnings: list[SettingsWarning] = []

    def flag(self, key: str, default: bool, *within: str) -> bool:
        dotted = ".".join(("sandbox", *within, key))
        for layer, value in layered(self.layers, "sandbox", *within, key):
            if isinstance(value, bool):
                return value
            self._warn(layer, dotted, "must be true or false: ignored", "true")
        return default

    def unix_socket_paths(self, all_allowed: bool) -> None:
        """``allowUnixSockets`` names paths, which a seccomp filter cannot see: a warning (the
        sockets stay blocked) unless ``allowAllUnixSockets`` lets every one through."""
        for layer, value in layered(self.layers, "sandbox", "network", "allowUnixSockets"):
            if value and not all_allowed:
                why = (
                    "cannot allow Unix sockets by path on Linux (the seccomp filter cannot see "
                    "paths): they stay blocked"
                )
                fix = 'write "allowAllUnixSockets": true to allow every Unix socket'
                key = "sandbox.network.allowUnixSockets"
                self.warnings.append(SettingsWarning(layer.path, why, key, fix))

    def items(self, *path: str) -> Iterator[tuple[Layer, str, str]]:
        """Each string of every layer's list at ``sandbox.<path>``, with its key."""
        self._check_objects(path[:-1])
        dotted = ".".join(("sandbox", *path))
        for layer, value in layered(self.layers, "sandbox", *path):
            if not isinstance(value, list):
                self._warn(layer, dotted, "must be a list of strings: ignored", '["..."]')
                continue
            for index, item in enumerate(value):
                if isinstance(item, str) and item.strip():
                    yield layer, item.strip(), f"{dotted}[{index}]"
                else:
                    self._warn(layer, f"{dotted}[{index}]", "must be a non-empty string", '"..."')

    def paths(self, key: str) -> tuple[str, ...]:
        """The patterns of ``filesystem.<key>``, absolute; a ConfigError for any that cannot be
        applied (a path rule is never dropped)."""
        self._strict("filesystem", key)
        found: list[str] = []
        for layer, text, where in self.items("filesystem", key):
            pattern = globs.absolute(text, project=str(self.project))
            try:
                globs.check(pattern, wildcards=key != "denyWrite")
                globs.expand(pattern)  # past the limits now: say so before anything runs
            except globs.PatternError as exc:
                raise ConfigError(f"{text!r}: {exc}", file=layer.path, key=where) from None
            found.append(pattern)
        return tuple(dict.fromkeys(found))

    def _strict(self, *path: str) -> None:
        """A ConfigError where a path list is not a list of non-empty strings."""
        for depth in range(1, len(path) + 1):
            for layer, value in layered(self.layers, "sandbox", *path[:depth]):
                dotted = ".".join(("sandbox", *path[:depth]))
                last = depth == len(path)
                if not last and not isinstance(value, Mapping):
                    raise ConfigError("must be an object", file=layer.path, key=dotted, fix="{}")
                if last and not isinstance(value, list):
                    fix = '["..."]'
                    raise ConfigError(
                        "must be a list of paths", file=layer.path, key=dotted, fix=fix
                    )
                if last:
                    for index, item in enumerate(value):
                        if not isinstance(item, str) or not item.strip():
                            key = f"{dotted}[{index}]"
                            why = "must be a non-empty path"
                            raise ConfigError(why, file=layer.path, key=key, fix='"..."')

    def commands(self) -> tuple[str, ...]:
        kept: list[str] = []
        for layer, text, key in self.items("excludedCommands"):
            try:
                PermissionRule.parse(f"Bash({text})", file=layer.path, key=key)
            except ConfigError as exc:
                self.warnings.append(SettingsWarning.of(exc))
            else:
                kept.append(text)
        return tuple(dict.fromkeys(kept))

    def domains(self) -> tuple[str, ...]:
        kept: list[str] = []
        for layer, text, key in self.items("network", "allowedDomains"):
            if valid_domain(text):
                kept.append(text.lower().rstrip("."))
            else:
                fix = '"example.com" or "*.example.com"'
                self._warn(layer, key, f"{text!r} is not a domain name: ignored", fix)
        return tuple(dict.fromkeys(kept))

    def _check_objects(self, path: tuple[str, ...]) -> None:
        for depth in range(len(path) + 1):
            for layer, value in layered(self.layers, "sandbox", *path[:depth]):
                if not isinstance(value, Mapping):
                    dotted = ".".join(("sandbox", *path[:depth]))
                    self._warn(layer, dotted, "must be an object: ignored", "{...}")

    def _warn(self, layer: Layer, key: str, message: str, value: str) -> None:
        fix = f'write "{key.rpartition(".")[2].partition("[")[0]}": {value}'
        self.warnings.append(SettingsWarning(layer.path, message, key, fix))


def valid_domain(text: str) -> bool:
    """Whether ``text`` is a host name or ``*.``-wildcard one (letters, digits, ``-``, ``.``)."""
    body = text.removeprefix("*.").rstrip(".")
    labels = body.split(".")
    return bool(body) and all(
        label and len(label) < 64 and label.replace("-", "").isalnum() and label.isascii()
        for label in labels
    )


def domain_allowed(host: str, allowed: Sequence[str]) -> bool:
    """Whether ``host`` is listed, or under a listed ``*.domain`` (which is not itself)."""
    host = host.lower().rstrip(".")
    return any(
        host.endswith(entry[1:]) if entry.startswith("*.") else host == entry for entry in allowed
    )


def sandbox_config_of(settings: Layered, *, project_dir: str) -> SandboxConfig | None:
    """The config, or None when the settings have no ``sandbox`` key at all (warnings dropped:
    ``from_settings`` reports them)."""
    if winning(settings.layers, "sandbox") is None:
        return None
    return SandboxConfig.from_settings(settings, project_dir=project_dir)[0]
