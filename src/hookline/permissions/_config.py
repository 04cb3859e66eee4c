"""Reading the permission keys of Claude Code's settings layers into a PermissionPolicy.

A rule that cannot be read is an error that stops a strict load, never a rule quietly dropped:
a deny rule written ``Reed(./.env)``, ``read(./.env)`` or ``"Read(./.env"``, or a ``"deny"``
that is a string, would otherwise deny nothing. Managed settings may keep every other layer's
rules out (``allowManagedPermissionRulesOnly``) and refuse bypassPermissions
(``disableBypassPermissionsMode``: ``"disable"``, which any layer may set, as it only
tightens); a ``--permission-mode bypassPermissions`` they refuse is an error, not a quiet
downgrade. What a folder's own layers may not loosen is taken out before this reads them
(``hookline._claude.confine``).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, cast, get_args

from hookline._errors import ConfigError
from hookline._events import PermissionMode
from hookline._settings_layers import Layer, Layered, SettingsWarning, layered, winning
from hookline.permissions._dangerous import DANGEROUS, Danger
from hookline.permissions._policy import READ_ONLY_TOOLS, PermissionPolicy, Warnings
from hookline.permissions._rules import PermissionRule, unknown_tool

SourcedRule = tuple[PermissionRule, str]
_MODES = frozenset(get_args(PermissionMode))
_OURS, _CC = ("hookline", "permissions"), ("permissions",)
_NO_BYPASS = "disableBypassPermissionsMode"
_KEY, _DISABLE = f"permissions.{_NO_BYPASS}", f'write "{_NO_BYPASS}": "disable"'


def policy_from_settings(
    settings: Layered, *, mode: PermissionMode | None = None, cwd: str
) -> tuple[PermissionPolicy, Warnings]:
    """The policy the settings describe (an explicit ``mode`` wins over theirs), and what in
    them was wrong and ignored: a bad entry never stops the rest from loading."""
    layers, read = settings.layers, _Read(settings.layers)
    chosen = read.refuse_bypass(mode, read.mode())
    keep = winning(layers, *_OURS, "dangerousDefaults") is not False
    tools = {t for _, t, _ in read.items(_OURS, "readOnlyTools") if isinstance(t, str)}
    mutating: Literal["ask", "allow"] = "ask"
    if winning(layers, *_OURS, "mutating") == "allow":
        mutating = "allow"
    allow, ask, deny = (read.rules(kind) for kind in ("allow", "ask", "deny"))
    dangers = (*(DANGEROUS if keep else ()), *read.dangers())
    workspace = (posixpath.normpath(cwd),)
    tiers = (dangers, READ_ONLY_TOOLS | tools, mutating, workspace)
    return PermissionPolicy(allow, ask, deny, chosen, *tiers), list(dict.fromkeys(read.warnings))


class _Read:
    """Reads the permission keys that need checking, highest layer first; collects warnings."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        self.layers, self.warnings = layers, Warnings()
        managed = [layer for layer in layers if layer.name == "managed"]
        #: The layers whose rules apply: managed ones alone when they say so.
        self.ruling = layers
        if winning(managed, "allowManagedPermissionRulesOnly", kind=bool):
            self.ruling = managed
            self._rules_ignored([layer for layer in layers if layer.name != "managed"])

    def _rules_ignored(self, layers: Sequence[Layer]) -> None:
        for layer in layers:
            kinds = layer.data.get("permissions")
            for kind in ("allow", "ask", "deny"):
                if isinstance(kinds, Mapping) and kinds.get(kind):
                    message = "ignored: managed settings set allowManagedPermissionRulesOnly"
                    fix = "ask the administrator to add the rules to managed settings"
                    key = f"permissions.{kind}"
                    self.warnings.append(SettingsWarning(layer.path, message, key, fix))

    def refuse_bypass(self, asked: PermissionMode | None, chosen: PermissionMode) -> PermissionMode:
        """The mode to run in: ``asked`` (a flag), else ``chosen`` (the settings'); bypass
        refused where a layer sets ``disableBypassPermissionsMode: "disable"``."""
        mode = asked or chosen
        refusing = [(ly, v) for ly, v in layered(self.layers, *_CC, _NO_BYPASS) if v == "disable"]
        for layer, value in layered(self.layers, *_CC, _NO_BYPASS):
            if value != "disable":
                message = f"{value!r} is not a value it takes: ignored"
                self.warnings.append(SettingsWarning(layer.path, message, _KEY, _DISABLE))
        if mode != "bypassPermissions" or not refusing:
            return mode
        by = refusing[0][0]
        if asked == "bypassPermissions":  # the person asked for it: say no, start nothing
            message = f"bypassPermissions is disabled by {_label(by)}"
            fix = "run without --permission-mode bypassPermissions"
            self.warnings.append(SettingsWarning(by.path, message, _KEY, fix, "error"))
        else:
            message = "refuses bypassPermissions: the run uses default mode"
            self.warnings.append(SettingsWarning(by.path, message, _KEY))
        return "default"

    def items(self, path: tuple[str, ...], key: str) -> Iterator[tuple[Layer, Any, str]]:
        """Each entry of every layer's list ``key`` (lists merge), and its key for warnings."""
        dotted = ".".join((*path, key))
        layers = self.ruling if path == _CC else self.layers
        for layer, value in layered(layers, *path, key):
            if isinstance(value, list):
                yield from ((layer, item, f"{dotted}[{i}]") for i, item in enumerate(value))
            else:
                message = f"must be a list, not {type(value).__name__}: nothing in it is read"
                fix = f'write "{key}": [{json.dumps(value)}]'
                self.warnings.append(SettingsWarning(layer.path, message, dotted, fix, "error"))

    def rules(self, kind: str) -> tuple[SourcedRule, ...]:
        found: dict[PermissionRule, str] = {}  # a rule in several layers: named by the highest
        for layer, text, key in self.items(_CC, kind):
            try:
                rule = _known(PermissionRule.parse(text, file=layer.path, key=key), layer, key)
            except ConfigError as exc:
                self.warnings.append(SettingsWarning.of(exc, severity="error"))
            else:
                found.setdefault(rule, _label(layer))
        return tuple(found.items())

    def mode(self) -> PermissionMode:
        for layer, value in layered(self.layers, *_CC, "defaultMode"):
            value = "default" if value == "manual" else value
            if value in _MODES:
                return cast(PermissionMode, value)
            problem = f"{value!r} is not a permission mode: ignored"
            self.warnings.append(SettingsWarning(layer.path, problem, "permissions.defaultMode"))
        return "default"

    def dangers(self) -> Iterator[Danger]:
        for layer, entry, key in self.items(_OURS, "dangerous"):
            about = f"listed as dangerous in {_label(layer)}"
            try:
                if isinstance(entry, Mapping) and {"name", "pattern"} <= entry.keys():
                    yield Danger(str(entry["name"]), about, re.compile(str(entry["pattern"])))
                else:
                    rule = _known(PermissionRule.parse(entry, file=layer.path, key=key), layer, key)
                    yield Danger(str(rule), about, rule=rule)
            except ConfigError as exc:  # a guard that cannot be read: stops a strict load
                self.warnings.append(SettingsWarning.of(exc, severity="error"))
            except re.error as exc:
                message = f"not a regex: {exc}"
                self.warnings.append(SettingsWarning(layer.path, message, key, severity="error"))


def _known(rule: PermissionRule, layer: Layer, key: str) -> PermissionRule:
    """``rule``, if it names a tool; else a ConfigError with the tool it most likely means."""
    problem = unknown_tool(rule)
    if problem is None:
        return rule
    message, fix = f"permission rule {str(rule)!r} {problem[0]}", problem[1]
    raise ConfigError(message, file=layer.path, key=key, fix=fix)


def _label(layer: Layer) -> str:
    """Where a rule came from: a settings layer, ``--settings``, or the flag that gave it."""
    if layer.name != "cli":
        return f"{layer.name} settings"
    return layer.path if layer.path in ("--allowedTools", "--disallowedTools") else "--settings"
