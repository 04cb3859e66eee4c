"""Which MCP servers a project declares: ``.mcp.json`` and the ``mcpServers`` settings key.

Both use Claude Code's shape, one entry per server name::

    {"mcpServers": {
        "orders": {"command": "python3", "args": ["server.py"], "env": {"DB": "orders.db"}},
        "search": {"type": "http", "url": "https://mcp.example.com/mcp",
                   "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}}}

``${VAR}`` and ``${VAR:-default}`` are expanded in the command, args, env, url and headers, as
Claude Code expands them. A server named in several places comes from the highest-ranked one
(managed > cli > local > project > user; the project's ``.mcp.json`` ranks as project).

The servers of a project's ``.mcp.json`` come from the repository, and each starts a process, so
like Claude Code hookline starts one only once the settings approve it:
``enableAllProjectMcpServers: true`` or its name in ``enabledMcpjsonServers``, and not in
``disabledMcpjsonServers``. A bad file or entry is a warning naming the file and key; the
other servers still load.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from hookline._errors import ConfigError
from hookline._settings_layers import (
    Layer,
    Layered,
    SettingsWarning,
    is_strings,
    joined,
    layered,
    winning,
)

MCP_JSON: Final = ".mcp.json"
KEY: Final = "mcpServers"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_STDIO_FIX = '"orders": {"command": "python3", "args": ["server.py"]}'
_HTTP_FIX = '"orders": {"type": "http", "url": "https://host/mcp"}'


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How to reach one MCP server: a command to start (stdio) or a URL (streamable HTTP)."""

    name: str
    transport: Literal["stdio", "http"]
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    #: The folder a stdio server starts in (the project's); None: the agent's cwd.
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    #: Where it was declared, for messages.
    source: str = ""
    #: hookline's own credentials the settings pass on by name (``{"hookline": {"env":
    #: {"passthrough": [...]}}}``): a stdio server gets them under its ``env``, beside a few
    #: variables (``PATH``, ``HOME``).
    passthrough: Mapping[str, str] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        """What its tools' names start with: ``mcp__<server>__``."""
        return f"mcp__{safe_name(self.name)}__"

    def describe(self) -> str:
        return " ".join((self.command, *self.args)) if self.transport == "stdio" else self.url


def safe_name(name: str) -> str:
    """``name`` as it appears in tool names: characters other than letters, digits, ``_`` and
    ``-`` become ``_`` (as Claude Code writes them)."""
    return _UNSAFE.sub("_", name)


def parse_server(
    name: str, data: object, *, file: str, key: str, cwd: str | None = None
) -> ServerConfig:
    """One server entry, checked and expanded; a ConfigError naming ``file`` and ``key``."""
    entry = _Entry(file, f"{key}.{name}")
    if not name.strip():
        raise entry.error("a server needs a name", None, "name it, as in " + _STDIO_FIX)
    if not isinstance(data, dict):
        raise entry.error(f"must be an object, not {type(data).__name__}", None, _STDIO_FIX)
    kind = data.get("type", "stdio")
    if kind == "stdio":
        command = entry.expand(entry.text(data, "command", _STDIO_FIX), "command")
        args = tuple(entry.expand(a, f"args[{i}]") for i, a in enumerate(entry.strings(data)))
        env = entry.mapping(data, "env")
        return ServerConfig(name, "stdio", command, args, env, cwd=cwd, source=file)
    if kind == "http":
        url = entry.expand(entry.text(data, "url", _HTTP_FIX), "url")
        if not url.startswith(("http://", "https://")):
            raise entry.error(f"url {url!r} is not an http(s) URL", "url", _HTTP_FIX)
        headers = entry.mapping(data, "headers")
        return ServerConfig(name, "http", url=url, headers=headers, source=file)
    fix = 'use "type": "http" (streamable HTTP), or leave "type" out for a command (stdio)'
    raise entry.error(f"type {kind!r} is not supported", "type", fix)


def parse_servers(
    servers: object, *, file: str, key: str = KEY, cwd: str | None = None
) -> Iterator[ServerConfig | ConfigError]:
    """Each entry of an ``mcpServers`` object, or the ConfigError that keeps it out."""
    if not isinstance(servers, dict):
        what = f"must be an object of servers, not {type(servers).__name__}"
        yield ConfigError(what, file=file, key=key, fix="write {" + _STDIO_FIX + "}")
        return
    for name, data in servers.items():
        try:
            yield parse_server(name, data, file=file, key=key, cwd=cwd)
        except ConfigError as exc:
            yield exc


def read_mcp_json(path: str | os.PathLike[str]) -> Layer | SettingsWarning | None:
    """``.mcp.json`` as a project layer; a warning if it cannot be read; None if absent."""
    file = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return SettingsWarning(file, f"cannot be read: {exc}", fix="check its permissions")
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        return SettingsWarning(file, f"not valid JSON: {exc.msg} ({where})", fix="correct it")
    if not isinstance(data, dict):
        why = f"must hold a JSON object, not {type(data).__name__}"
        return SettingsWarning(file, why, fix="write {" + f'"{KEY}": ' + "{...}}")
    return Layer("project", file, data)


def project_servers(
    settings: Layered, project_dir: str | os.PathLike[str]
) -> tuple[tuple[ServerConfig, ...], list[SettingsWarning]]:
    """The servers a run in ``project_dir`` connects to: every settings layer's ``mcpServers``
    and the approved servers of ``.mcp.json``; and what was wrong and left out."""
    folder = str(Path(project_dir).resolve())
    found = read_mcp_json(Path(folder) / MCP_JSON)
    warnings = [found] if isinstance(found, SettingsWarning) else []
    mcp_json = found if isinstance(found, Layer) else None
    chosen = _highest(
        [*settings.layers, *([mcp_json] if mcp_json else [])], cwd=folder, warnings=warnings
    )
    approve = _Approval(settings)
    for config in [c for c in chosen.values() if mcp_json and c.source == mcp_json.path]:
        if why := approve(config):
            warnings.append(why)
            del chosen[config.name]
    return tuple(chosen.values()), warnings


def _highest(
    layers: list[Layer], *, cwd: str, warnings: list[SettingsWarning]
) -> dict[str, ServerConfig]:
    """Each server from the highest-ranked layer declaring it; warnings for bad entries."""
    chosen: dict[str, ServerConfig] = {}
    for layer, servers in layered(layers, KEY):
        for item in parse_servers(servers, file=layer.path, cwd=cwd):
            if isinstance(item, ConfigError):
                warnings.append(SettingsWarning.of(item))
            else:
                chosen.setdefault(item.name, item)
    return chosen


@dataclass(frozen=True, slots=True)
class _Approval:
    """Whether the settings approve a server of the project's ``.mcp.json``."""

    settings: Layered

    def __call__(self, config: ServerConfig) -> SettingsWarning | None:
        """None when approved, else the warning that says how to approve it."""
        layers = self.settings.layers
        if config.name in (joined(layers, "disabledMcpjsonServers") or ()):
            return SettingsWarning(
                config.source,
                "listed in disabledMcpjsonServers: not started",
                f"{KEY}.{config.name}",
                "remove it from disabledMcpjsonServers to use it",
            )
        if winning(layers, "enableAllProjectMcpServers", kind=bool):
            return None
        if config.name in (joined(layers, "enabledMcpjsonServers") or ()):
            return None
        return SettingsWarning(
            config.source,
            "a project server starts only once approved: not started",
            f"{KEY}.{config.name}",
            f'add "enabledMcpjsonServers": ["{config.name}"] to .claude/settings.local.json',
        )


@dataclass(frozen=True, slots=True)
class _Entry:
    """Reads the fields of one server entry, wording problems with its file and key."""

    file: str
    key: str

    def error(self, message: str, at: str | None, fix: str) -> ConfigError:
        key = f"{self.key}.{at}" if at else self.key
        return ConfigError(message, file=self.file, key=key, fix=fix)

    def text(self, data: dict[str, Any], name: str, example: str) -> str:
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            what = "missing" if value is None else "not a non-empty string"
            raise self.error(f"{name} is {what}", name, f"write {example}")
        return value

    def strings(self, data: dict[str, Any]) -> list[str]:
        value = data.get("args", [])
        if not is_strings(value):
            raise self.error("args must be a list of strings", "args", 'write "args": ["..."]')
        return list(value)

    def mapping(self, data: dict[str, Any], name: str) -> dict[str, str]:
        value = data.get(name, {})
        if not isinstance(value, dict) or not is_strings(list(value.values())):
            fix = f'write "{name}": {{"NAME": "value"}}'
            raise self.error(f"{name} must be an object of strings", name, fix)
        return {k: self.expand(v, f"{name}.{k}") for k, v in value.items()}

    def expand(self, text: str, at: str) -> str:
        """``text`` with ``${VAR}`` and ``${VAR:-default}`` replaced from the environment."""

        def value(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = os.environ.get(name)
            if found is not None and (found or default is None):
                return found
            if default is not None:
                return default
            fix = f"set {name} in the environment, or write ${{{name}:-default}}"
            raise self.error(f"${{{name}}} is not set", at, fix)

        return _VARIABLE.sub(value, text)
