"""Reading the permission keys of Claude Code's settings layers into a PermissionPolicy."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, cast, get_args

from hookline.errors import ConfigError
from hookline.events import PermissionMode
from hookline.layers import Layer, Layered, SettingsWarning, layered, winning
from hookline.permissions.dangerous import DANGEROUS, Danger
from hookline.permissions.policy import READ_ONLY_TOOLS, PermissionPolicy, Warnings
from hookline.permissions.rules import PermissionRule

SourcedRule = tuple[PermissionRule, str]
_MODES = frozenset(get_args(PermissionMode))
_OURS, _CC = ("hookline", "permissions"), ("permissions",)
_NO_BYPASS = "disableBypassPermissionsMode"


def policy_from_settings(
    settings: Layered, *, mode: PermissionMode | None = None, cwd: str
) -> tuple[PermissionPolicy, Warnings]:
    """The policy the settings describe (an explicit ``mode`` wins over theirs), and what in
    them was wrong and ignored: a bad entry never stops the rest from loading."""
    layers, read = settings.layers, _Read(settings.layers)
    chosen = mode or read.mode()
    refusals = (value for _, value in layered(layers, *_CC, _NO_BYPASS))
    if chosen == "bypassPermissions" and "disable" in refusals:
        chosen = "default"  # any layer may refuse bypass (managed settings usually do)
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

    def items(self, path: tuple[str, ...], key: str) -> Iterator[tuple[Layer, Any, str]]:
        """Each entry of every layer's list ``key`` (lists merge), and its key for warnings."""
        dotted = ".".join((*path, key))
        for layer, value in layered(self.layers, *path, key):
            if isinstance(value, list):
                yield from ((layer, item, f"{dotted}[{i}]") for i, item in enumerate(value))
            else:
                self.warnings.append(SettingsWarning(layer.path, "must be a list: ignored", dotted))

    def rules(self, kind: str) -> tuple[SourcedRule, ...]:
        found: dict[PermissionRule, str] = {}  # a rule in several layers: named by the highest
        for layer, text, key in self.items(_CC, kind):
            try:
                rule = PermissionRule.parse(text, file=layer.path, key=key)
            except ConfigError as exc:
                self.warnings.append(SettingsWarning.of(exc))
            else:
                found.setdefault(rule, _label(layer))
        return tuple(found.items())

    def mode(self) -> PermissionMode:
        for layer, value in layered(self.layers, *_CC, "defaultMode"):
            value = "default" if value == "manual" else value
            if value not in _MODES:
                problem = f"{value!r} is not a permission mode: ignored"
            elif value in ("auto", "bypassPermissions") and layer.name in ("project", "local"):
                problem = f"{value} is only read from user or managed settings: ignored"
            else:
                return cast(PermissionMode, value)
            self.warnings.append(SettingsWarning(layer.path, problem, "permissions.defaultMode"))
        return "default"

    def dangers(self) -> Iterator[Danger]:
        for layer, entry, key in self.items(_OURS, "dangerous"):
            about = f"listed as dangerous in {_label(layer)}"
            try:
                if isinstance(entry, Mapping) and {"name", "pattern"} <= entry.keys():
                    yield Danger(str(entry["name"]), about, re.compile(str(entry["pattern"])))
                else:
                    rule = PermissionRule.parse(entry, file=layer.path, key=key)
                    yield Danger(str(rule), about, rule=rule)
            except ConfigError as exc:
                self.warnings.append(SettingsWarning.of(exc))
            except re.error as exc:
                self.warnings.append(SettingsWarning(layer.path, f"not a regex: {exc}", key))


def _label(layer: Layer) -> str:
    """Where a rule came from: a settings layer, ``--settings``, or the flag that gave it."""
    if layer.name != "cli":
        return f"{layer.name} settings"
    return layer.path if layer.path in ("--allowedTools", "--disallowedTools") else "--settings"
