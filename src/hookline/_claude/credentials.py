"""hookline's own credentials a setting passes on to tools, by name (``env.passthrough``).

    {"hookline": {"env": {"passthrough": ["ANTHROPIC_API_KEY"]}}}

Bash and command hooks get the process environment without hookline's own credentials
(``hookline._support.credentials``); each name listed here is passed on as it is set in the
environment. Only the user's settings, managed settings and ``--settings`` may list names: a
project's settings are the repository's, and a repository must not be able to send the
person's keys to its own hooks. A list in a project or local layer is ignored with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence

from hookline._settings_layers import Layer, SettingsWarning, layered

PATH = ("hookline", "env", "passthrough")
#: The layers that may pass credentials on.
TRUSTED = frozenset({"user", "managed", "cli"})
_KEY = ".".join(PATH)


def passthrough(layers: Sequence[Layer]) -> tuple[tuple[str, ...], list[SettingsWarning]]:
    """The names the trusted layers pass on (lists merge), and warnings for the rest."""
    names: list[str] = []
    warnings: list[SettingsWarning] = []
    for layer, value in layered(layers, *PATH):
        if layer.name not in TRUSTED:
            why = f"ignored in {layer.name} settings: only your user settings, managed settings "
            fix = "move it to ~/.hookline/settings.json (or ~/.claude/settings.json)"
            warnings.append(
                SettingsWarning(layer.path, why + "and --settings pass keys on", _KEY, fix)
            )
        elif not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            fix = 'write a list of variable names: ["ANTHROPIC_API_KEY"]'
            warnings.append(
                SettingsWarning(layer.path, "must be a list of names: ignored", _KEY, fix)
            )
        else:
            names.extend(value)
    return tuple(dict.fromkeys(names)), warnings
