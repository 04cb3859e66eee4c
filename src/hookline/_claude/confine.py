"""A folder's own settings only tighten: what the project and local layers may not set.

``.claude/settings.json`` comes with the repository, and ``settings.local.json`` sits beside it
where the agent (or anything it ran) may have written it; neither may loosen the rules the
person running hookline set. ``confine(layer)`` takes out of a project or local layer every
value that would weaken them, each with a warning naming the layer, the file and the key; the
readers of settings (permissions, the sandbox) never see it. User, managed and ``--settings``
layers (the person's and the administrator's own) may set them all.

Refused from a project or local layer: a permission mode that skips approvals
(``bypassPermissions``, ``auto``), extra workspace roots (``additionalDirectories``),
``hookline.permissions`` values that switch a tier off or widen it (``mutating`` other than
``"ask"``, ``dangerousDefaults`` other than true, ``readOnlyTools``), and ``sandbox`` values
that turn it off or widen it (``enabled`` other than true, ``autoAllowBashIfSandboxed`` and
``allowUnsandboxedCommands`` other than false, ``failIfUnavailable`` other than true,
``excludedCommands``, ``filesystem.allowWrite``, ``network.allowedDomains``, Unix sockets and
local binding, ``enableWeakerNestedSandbox``). Everything that tightens (deny and ask rules,
``dangerous`` entries, ``denyRead``, ``disableBypassPermissionsMode``, ``acceptEdits``, whose
every auto-allow is proved) still applies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from hookline._settings_layers import Layer, SettingsWarning

#: The layers a folder brings with it.
FOLDER_LAYERS: Final = frozenset({"project", "local"})


@dataclass(frozen=True, slots=True)
class _Refusal:
    """A value at ``path`` that ``weakens`` the rules, and what it would do."""

    path: tuple[str, ...]
    weakens: Callable[[object], bool]
    what: str


def _any(_: object) -> bool:
    return True


def _unless(safe: object) -> Callable[[object], bool]:
    return lambda value: value != safe


_SANDBOX_WIDER = "would widen the sandbox"
REFUSALS: Final = (
    _Refusal(
        ("permissions", "defaultMode"),
        lambda mode: mode in ("bypassPermissions", "auto"),
        "is a permission mode that skips approvals",
    ),
    _Refusal(("permissions", "additionalDirectories"), _any, "would add workspace roots"),
    _Refusal(("hookline", "permissions", "mutating"), _unless("ask"), "would stop asking"),
    _Refusal(
        ("hookline", "permissions", "dangerousDefaults"),
        _unless(True),
        "would switch the dangerous tier off",
    ),
    _Refusal(("hookline", "permissions", "readOnlyTools"), _any, "would widen the read-only tier"),
    _Refusal(("sandbox", "enabled"), _unless(True), "would switch the sandbox off"),
    _Refusal(("sandbox", "autoAllowBashIfSandboxed"), _unless(False), "would stop asking"),
    _Refusal(("sandbox", "allowUnsandboxedCommands"), _unless(False), _SANDBOX_WIDER),
    _Refusal(("sandbox", "failIfUnavailable"), _unless(True), "would run Bash unsandboxed"),
    _Refusal(("sandbox", "excludedCommands"), _any, _SANDBOX_WIDER),
    _Refusal(("sandbox", "enableWeakerNestedSandbox"), _unless(False), _SANDBOX_WIDER),
    _Refusal(("sandbox", "filesystem", "allowWrite"), _any, _SANDBOX_WIDER),
    _Refusal(("sandbox", "network", "allowedDomains"), _any, _SANDBOX_WIDER),
    _Refusal(("sandbox", "network", "allowUnixSockets"), _any, _SANDBOX_WIDER),
    _Refusal(("sandbox", "network", "allowAllUnixSockets"), _unless(False), _SANDBOX_WIDER),
    _Refusal(("sandbox", "network", "allowLocalBinding"), _unless(False), _SANDBOX_WIDER),
)
_FIX: Final = (
    "a folder's own settings only tighten: set it in your user settings "
    "(~/.claude/settings.json) or pass --settings"
)


def confine(layer: Layer) -> tuple[Layer, list[SettingsWarning]]:
    """``layer`` without the values it may not set (only a project or local layer loses any),
    and a warning for each value taken out."""
    if layer.name not in FOLDER_LAYERS:
        return layer, []
    data, warnings = layer.data, []
    for refusal in REFUSALS:
        value = _at(data, refusal.path)
        if value is None or not refusal.weakens(value):
            continue
        data = _without(data, refusal.path)
        key = ".".join(refusal.path)
        shown = value if isinstance(value, str | bool | int) else type(value).__name__
        message = f"{shown!r} in {layer.name} settings {refusal.what}: refused"
        warnings.append(SettingsWarning(layer.path, message, key, _FIX))
    return (layer if data is layer.data else replace(layer, data=data)), warnings


def _at(data: Mapping[str, Any], path: tuple[str, ...]) -> object:
    found: object = data
    for key in path:
        found = found.get(key) if isinstance(found, Mapping) else None
    return found


def _without(data: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``data`` without the value at ``path`` (copied only along the path)."""
    copy = dict(data)
    head, *rest = path
    if rest:
        copy[head] = _without(copy[head], tuple(rest))
    else:
        del copy[head]
    return copy
