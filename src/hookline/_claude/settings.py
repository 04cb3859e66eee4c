"""Settings files: find Claude Code's and hookline's settings layers, read them, merge them.

Each layer is one JSON object (a file, or an inline ``--settings`` value) with a name that ranks
it for single values: managed > cli > local > project > user, and within one name the layer read
later wins. Hooks do not rank: every enabled layer adds its own and none replaces another's.
A folder's own layers (project, local) only tighten: what would loosen the rules is taken out
of them as they are read (``confine``), and their hooks run only in a trusted folder
(``Settings.trusted``; ``hookline._trust``). Keys are checked as they are read (``keys``): a near
miss of a known key is an error, a key that is simply new a warning.
A bad file or a bad hook never stops the rest from loading; it becomes a ``SettingsWarning``,
of severity "error" when it drops a guard (a file that is not JSON or cannot be read, a named
``--settings`` file that is missing, a hook entry for an event hookline runs that cannot load)
and "warning" when it is harmless (a value of the wrong type that is ignored, an event hookline
does not run yet). ``refuse_errors`` turns the first error into the ConfigError that stops a
strict load (``load_project``); a lenient one keeps them all as warnings, as Claude Code does.
Nothing is printed here. A handler that cannot load but declared ``"onFailure": "block"`` is
still registered, as a hook that fails closed on every call, so a broken rule never allows.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._claude.confine import FOLDER_LAYERS, confine
from hookline._claude.handlers import Policy, build
from hookline._claude.hook_loader import HookLoader
from hookline._claude.keys import key_problems
from hookline._claude.shadow import register_rules, shadow_section
from hookline._errors import ConfigError
from hookline._settings_layers import Layer, SettingsWarning, ceiling, is_strings, joined, winning

if TYPE_CHECKING:
    from hookline._claude.agent_hook import InvestigatorFactory
    from hookline._claude.prompt_hook import JudgeFactory
    from hookline._events import HookEvent
    from hookline._hooks.registry import HookRegistry
    from hookline.permissions._sandbox.run import Sandbox

StrPath = str | os.PathLike[str]
MANAGED_DIR_ENV: Final = "HOOKLINE_MANAGED_SETTINGS_DIR"
_SYSTEM_DIRS: Final = {
    "darwin": "/Library/Application Support/ClaudeCode",
    "win32": r"C:\Program Files\ClaudeCode",
}
#: The settings read here: true/false ones, and lists of strings (merged across layers).
_FLAGS: Final = ("disableAllHooks", "allowManagedHooksOnly", "allowManagedPermissionRulesOnly")
#: Read from managed settings only; and from the person's own layers only (never a folder's).
_MANAGED_ONLY: Final = ("allowManagedHooksOnly", "allowManagedPermissionRulesOnly")
REQUIRE_TRUST: Final = ("hookline", "requireTrust")
_LISTS: Final = ("allowedHttpHookUrls", "httpHookAllowedEnvVars")


@dataclass(slots=True)
class Settings:
    """The layers found, in load order, and the warnings about them."""

    layers: tuple[Layer, ...] = ()
    warnings: list[SettingsWarning] = field(default_factory=list)
    #: Whether the folder is trusted: when not, its project and local hooks do not run.
    trusted: bool = True

    @property
    def disable_all_hooks(self) -> bool:
        """``disableAllHooks`` as the person's own layers (user, ``--settings``, managed) set it:
        a folder's own layers switch off only the folder's hooks, never the person's."""
        return winning(self.own, "disableAllHooks", kind=bool) is True

    @property
    def own(self) -> tuple[Layer, ...]:
        """The layers the person running hookline (or an administrator) wrote: not a folder's."""
        return tuple(layer for layer in self.layers if layer.name not in FOLDER_LAYERS)

    @property
    def folder(self) -> tuple[Layer, ...]:
        """The layers the folder brings with it (project, local)."""
        return tuple(layer for layer in self.layers if layer.name in FOLDER_LAYERS)

    @property
    def require_trust(self) -> bool:
        """``requireTrust`` (under ``hookline``) in the person's own layers: even a run nobody
        watches leaves an untrusted folder's hooks out."""
        return winning(self.own, *REQUIRE_TRUST, kind=bool) is True

    @property
    def allow_managed_permission_rules_only(self) -> bool:
        return winning(self.managed, "allowManagedPermissionRulesOnly", kind=bool) is True

    def folder_hooks(self) -> int:
        """How many hook entries the folder's own layers declare (what trust holds back)."""
        groups = (g for layer in self.folder for g in _groups(layer.data.get("hooks")))
        return sum(len(g["hooks"]) for g in groups if isinstance(g.get("hooks"), list))

    @property
    def allow_managed_hooks_only(self) -> bool:
        return winning(self.managed, "allowManagedHooksOnly", kind=bool) is True

    @property
    def allowed_http_hook_urls(self) -> tuple[str, ...] | None:
        """What the person's own hooks may reach (managed lists cap the user's)."""
        return ceiling(self.own, "allowedHttpHookUrls")

    @property
    def http_hook_allowed_env_vars(self) -> tuple[str, ...] | None:
        return ceiling(self.own, "httpHookAllowedEnvVars")

    def folder_limit(self, key: str) -> tuple[str, ...] | None:
        """An allowlist (``allowedHttpHookUrls``, ``httpHookAllowedEnvVars``) for the folder's
        own hooks: the person's, narrowed by the folder's own lists, never widened; a folder's
        list bounds only the folder's hooks, so it cannot switch the person's hooks off."""
        own, theirs = ceiling(self.own, key), joined(self.folder, key)
        if own is None or theirs is None:
            return own if theirs is None else theirs
        return tuple(item for item in theirs if item in own)

    @property
    def managed(self) -> tuple[Layer, ...]:
        return tuple(layer for layer in self.layers if layer.name == "managed")

    def hook_layers(self) -> tuple[Layer, ...]:
        """The layers whose hooks run, after ``disableAllHooks``, ``allowManagedHooksOnly`` and
        trust: an untrusted folder's layers, or ones a folder layer switched off, add none."""
        if winning(self.managed, "disableAllHooks", kind=bool):
            return ()
        if self.disable_all_hooks or self.allow_managed_hooks_only:
            return self.managed
        if not self.trusted or winning(self.folder, "disableAllHooks", kind=bool):
            return self.own
        return self.layers

    def register(
        self,
        registry: HookRegistry,
        *,
        project_dir: StrPath,
        env_file: Callable[[HookEvent], str | None] | None = None,
        judge: JudgeFactory | None = None,
        investigator: InvestigatorFactory | None = None,
        env: Mapping[str, str] | None = None,
    ) -> int:
        """Add the hooks of every enabled layer to ``registry``; returns how many were added.
        ``judge`` makes the model a ``prompt`` hook asks, ``investigator`` the agent an ``agent``
        hook asks (None: such hooks cannot load); ``env``: variables command hooks get besides
        the process's."""
        sandbox = _hook_sandbox(self.layers, str(project_dir))
        own = Policy(
            self.allowed_http_hook_urls,
            self.http_hook_allowed_env_vars,
            sandbox,
            judge,
            investigator,
            dict(env or {}),
        )
        urls, env_vars = (self.folder_limit(key) for key in _LISTS)
        folder = replace(own, allowed_urls=urls, allowed_env_vars=env_vars)
        make = partial(build, project_dir=str(project_dir), env_file=env_file)
        before = len(registry)
        for layer in self.hook_layers():
            policy = folder if layer.name in FOLDER_LAYERS else own
            made = partial(make, file=layer.path, policy=policy)
            loader = HookLoader(layer.path, registry, made, self._warn)
            with registry.sourced(layer.source):
                loader.walk(layer.data.get("hooks", {}))
                self._shadows(layer, registry, loader)
        return len(registry) - before

    def _shadows(self, layer: Layer, registry: HookRegistry, loader: HookLoader) -> None:
        """The layer's shadow hooks and rules (``hookline._claude.shadow``): registered marked
        shadow; a rule that cannot be read is an error, as a live one is."""
        section = shadow_section(layer.data)
        if not section:
            return
        with registry.shadowed():
            if "hooks" in section:
                loader.walk(section["hooks"])
            try:
                register_rules(section, registry, file=layer.path, source=layer.source)
            except ConfigError as exc:
                self._warn(SettingsWarning.of(exc, severity="error"))

    def _warn(self, warning: SettingsWarning) -> None:
        if warning not in self.warnings:
            self.warnings.append(warning)


def refuse_errors(warnings: Iterable[SettingsWarning]) -> None:
    """Raise the first problem of severity "error" as a ConfigError (one line: file, key,
    fix, and how many more there are); nothing if every problem is only a warning."""
    errors = [warning for warning in warnings if warning.severity == "error"]
    if not errors:
        return
    first, more = errors[0], len(errors) - 1
    fix = first.fix
    if more:
        listed = f"{more} more settings error{'s' if more > 1 else ''}"
        fix = f"{fix}; then {listed} (hookline hooks validate lists them)"
    raise ConfigError(first.message, file=first.file, key=first.key, fix=fix)


def _hook_sandbox(layers: Sequence[Layer], project_dir: str) -> Sandbox:
    """What command hooks with ``"sandbox": true`` run in: the ``sandbox`` settings, with no
    workspace root writable (only the temp folder and ``allowWrite``). Nothing starts until
    such a hook runs."""
    from hookline.permissions._sandbox import SandboxConfig  # permissions reads these settings
    from hookline.permissions._sandbox.run import Sandbox

    return Sandbox(SandboxConfig.from_settings(layers, project_dir=project_dir)[0], roots=())


def load_settings(
    project_dir: StrPath,
    *,
    extra: Iterable[str] = (),
    home: StrPath | None = None,
    managed_dir: StrPath | None = None,
    sources: Iterable[str] | None = None,
) -> Settings:
    """Read every settings layer for ``project_dir``; ``extra`` are ``--settings`` values.
    ``sources``: which of the user, project and local layers to read (the Agent SDK's
    ``setting_sources``); managed settings and ``extra`` are always read. None: all."""
    user = Path(home) if home is not None else Path.home()
    found = _files(Path(project_dir), user, managed_settings_dir(managed_dir))
    if sources is not None:
        kept = {*sources, "managed"}
        found = [(name, path) for name, path in found if name in kept]
    warnings: list[SettingsWarning] = []
    layers = [_read(name, path, warnings) for name, path in found]
    for index, value in enumerate(extra):
        if value.lstrip().startswith("{"):
            layers.append(_parse("cli", f"--settings[{index}]", value, warnings))
        else:
            layers.append(_read("cli", Path(value), warnings, required=True))
    return Settings(tuple(layer for layer in layers if layer is not None), warnings)


def managed_settings_dir(explicit: StrPath | None = None) -> Path:
    """Where managed settings live: ``explicit``, else $HOOKLINE_MANAGED_SETTINGS_DIR, else the
    system folder Claude Code reads (``/etc/claude-code`` on Linux)."""
    if explicit is not None:
        return Path(explicit)
    system = _SYSTEM_DIRS.get(sys.platform, "/etc/claude-code")
    return Path(os.environ.get(MANAGED_DIR_ENV) or system)


#: The ConfigChange ``source`` a change to each layer's file reports.
CONFIG_SOURCES: Final = {
    "user": "user_settings",
    "project": "project_settings",
    "local": "local_settings",
    "managed": "policy_settings",
}


def settings_files(
    project_dir: StrPath, *, home: StrPath | None = None, managed_dir: StrPath | None = None
) -> list[tuple[str, Path]]:
    """Each settings file a run in ``project_dir`` reads, or would read if it existed, with the
    ConfigChange ``source`` a change to it reports (``--settings`` values are not among them)."""
    user = Path(home) if home is not None else Path.home()
    found = _files(Path(project_dir).resolve(), user, managed_settings_dir(managed_dir))
    return [(CONFIG_SOURCES[name], path) for name, path in found]


def claude_code_file(scope: str, project: Path, home: Path) -> Path:
    """Claude Code's own settings file of ``scope`` (user, project, local or managed), where
    ``hookline install`` writes."""
    return dict(_files(project, home, managed_settings_dir())[:4])[scope]


#: A folder's own settings files (its project and local layers), relative to it.
FOLDER_FILES: Final = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".hookline/settings.json",
    ".hookline/settings.local.json",
)


def _files(project: Path, home: Path, managed: Path) -> list[tuple[str, Path]]:
    dropins = sorted(p for p in (managed / "managed-settings.d").glob("*.json") if p.name[0] != ".")
    claude, claude_local, own, own_local = (project / name for name in FOLDER_FILES)
    return [
        ("user", home / ".claude" / "settings.json"),
        ("project", claude),
        ("local", claude_local),
        ("managed", managed / "managed-settings.json"),
        *(("managed", path) for path in dropins),
        ("user", home / ".hookline" / "settings.json"),
        ("project", own),
        ("local", own_local),
    ]


def _read(
    name: str, path: Path, warnings: list[SettingsWarning], *, required: bool = False
) -> Layer | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problem = "no such settings file" if required else ""
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
    else:
        return _parse(name, str(path), text, warnings)
    if problem:
        fix = "check the path and permissions"
        warnings.append(SettingsWarning(str(path), problem, fix=fix, severity="error"))
    return None


def _parse(name: str, label: str, text: str, warnings: list[SettingsWarning]) -> Layer | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        warnings.append(SettingsWarning(label, problem, fix="correct the JSON", severity="error"))
        return None
    if not isinstance(data, dict):
        problem = f"must hold a JSON object, not {type(data).__name__}"
        warnings.append(SettingsWarning(label, problem, fix="write {...}", severity="error"))
        return None
    warnings.extend(SettingsWarning(label, *problem) for problem in _misfits(name, data))
    warnings.extend(key_problems(data, label))
    layer, refused = confine(Layer(name, label, data))
    warnings.extend(refused)
    return layer


def _misfits(name: str, data: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(message, key, fix) for each single value read here that has the wrong type or place."""
    for key in _FLAGS:
        if data.get(key) is not None and not isinstance(data[key], bool):
            yield "must be true or false: ignored", key, f'write "{key}": true'
    for key in _LISTS:
        if data.get(key) is not None and not is_strings(data[key]):
            yield "must be a list of strings: ignored", key, f'write "{key}": ["..."]'
    for key in _MANAGED_ONLY:
        if key in data and name != "managed":
            yield "only read from managed settings", key, "move it there"
    trust = data.get(REQUIRE_TRUST[0])
    if isinstance(trust, dict) and REQUIRE_TRUST[1] in trust and name in FOLDER_LAYERS:
        yield "only read from user or managed settings", ".".join(REQUIRE_TRUST), "move it there"


def _groups(hooks: object) -> Iterator[dict[str, Any]]:
    """Each matcher group of a ``hooks`` object that has the right shape."""
    events = hooks.values() if isinstance(hooks, dict) else ()
    for groups in events:
        yield from (g for g in groups if isinstance(g, dict)) if isinstance(groups, list) else ()
