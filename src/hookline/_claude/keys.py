"""The keys a settings file may hold, and what a key that is not one of them means.

A guard written under a misspelt key is a guard that never runs, so a key one or two letters
away from a known one (``permission``, ``hoks``, ``Permissions``) is an error that stops a strict
load, with the key it was probably meant to be. A key that is simply new (a Claude Code setting
hookline does not list) is a warning: hookline does not read it. Inside ``permissions`` and
``hookline`` every key is known, so any other is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from hookline._settings_layers import SettingsWarning, suggestion

#: Claude Code's top-level settings keys (those hookline reads and those it leaves to Claude
#: Code), and hookline's own.
TOP_LEVEL: Final = frozenset(
    {
        "$schema",
        "allowManagedHooksOnly",
        "allowManagedMcpServersOnly",
        "allowManagedPermissionRulesOnly",
        "allowedHttpHookUrls",
        "allowedMcpServers",
        "alwaysThinkingEnabled",
        "apiKeyHelper",
        "attribution",
        "autoMemoryEnabled",
        "autoUpdatesChannel",
        "availableModels",
        "awsAuthRefresh",
        "awsCredentialExport",
        "cleanupPeriodDays",
        "companyAnnouncements",
        "deniedMcpServers",
        "disableAllHooks",
        "disabledMcpjsonServers",
        "effortLevel",
        "enableAllProjectMcpServers",
        "enabledMcpjsonServers",
        "enabledPlugins",
        "env",
        "extraKnownMarketplaces",
        "fallbackModel",
        "fileSuggestion",
        "forceLoginMethod",
        "forceLoginOrgUUID",
        "hooks",
        "hookline",
        "httpHookAllowedEnvVars",
        "includeCoAuthoredBy",
        "includeGitInstructions",
        "language",
        "mcpServers",
        "model",
        "otelHeadersHelper",
        "outputStyle",
        "permissions",
        "plansDirectory",
        "prefersReducedMotion",
        "redact",
        "respectGitignore",
        "sandbox",
        "showTurnDuration",
        "skipDangerousModePermissionPrompt",
        "spinnerTipsEnabled",
        "spinnerVerbs",
        "statusLine",
        "strictKnownMarketplaces",
        "subagentStatusLine",
        "terminalProgressBarEnabled",
        "theme",
        "autoUpdates",
        "disableAutoMode",
        "feedbackSurveyRate",
        "skipWebFetchPreflight",
        "useEnterpriseMcpConfigOnly",
    }
)
#: The keys inside ``permissions`` (Claude Code's) and inside ``hookline`` (hookline's own).
PERMISSIONS: Final = frozenset(
    {
        "allow",
        "ask",
        "deny",
        "defaultMode",
        "additionalDirectories",
        "disableBypassPermissionsMode",
        "disableAutoMode",
    }
)
HOOKLINE: Final = frozenset(
    {"permissions", "requireTrust", "env", "auditSync", "deferDeadline", "shadow"}
)
HOOKLINE_PERMISSIONS: Final = frozenset(
    {"dangerous", "dangerousDefaults", "mutating", "readOnlyTools"}
)
#: Inside ``env`` under ``hookline``: the credentials passed on to tools (``claude.credentials``).
HOOKLINE_ENV: Final = frozenset({"passthrough"})
#: Inside ``shadow`` under ``hookline``: rules and hooks that decide nothing (``claude.shadow``).
HOOKLINE_SHADOW: Final = frozenset({"permissions", "hooks"})
HOOKLINE_SHADOW_PERMISSIONS: Final = frozenset({"allow", "ask", "deny"})
#: The objects whose keys are all known: (path, keys, where the keys are documented).
_CLOSED: Final = (
    (("permissions",), PERMISSIONS),
    (("hookline",), HOOKLINE),
    (("hookline", "permissions"), HOOKLINE_PERMISSIONS),
    (("hookline", "env"), HOOKLINE_ENV),
    (("hookline", "shadow"), HOOKLINE_SHADOW),
    (("hookline", "shadow", "permissions"), HOOKLINE_SHADOW_PERMISSIONS),
)


def key_problems(data: Mapping[str, Any], file: str) -> Iterator[SettingsWarning]:
    """A warning for each top-level key that is simply unknown, an error for one that is a
    near miss of a known key, and an error for any unknown key inside a closed object."""
    for key in data:
        if key in TOP_LEVEL:
            continue
        near = suggestion(key, TOP_LEVEL)
        if near is not None:
            message = f"unknown key {key!r}: a guard written under it is never read"
            yield SettingsWarning(file, message, key, f'did you mean "{near}"?', "error")
        else:
            message = f"unknown key {key!r}: hookline does not read it"
            yield SettingsWarning(file, message, key, "remove it if it is a typo")
    for path, known in _CLOSED:
        found: Any = data
        for part in path:
            found = found.get(part) if isinstance(found, Mapping) else None
        if not isinstance(found, Mapping):
            continue
        for key in found:
            if key not in known:
                yield _unknown_inside(file, ".".join((*path, str(key))), str(key), known)


def _unknown_inside(file: str, dotted: str, key: str, known: frozenset[str]) -> SettingsWarning:
    near = suggestion(key, known, distance=len(key))
    fix = f'did you mean "{near}"?' if near else f"use one of {', '.join(sorted(known))}"
    message = f"unknown key {key!r}: a setting written under it is never read"
    return SettingsWarning(file, message, dotted, fix, "error")
