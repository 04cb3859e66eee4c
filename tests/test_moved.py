"""Modules that moved keep their old names for one release: importing one warns, and hands back
the module at its new place (``hookline._support.moved``)."""

from __future__ import annotations

import importlib
import sys

import pytest

MOVED = [
    ("hookline.layers", "hookline._settings_layers", "SettingsWarning"),
    ("hookline.hooks.sdk", "hookline._hooks.sdk_matchers", "HookMatcher"),
    ("hookline.mcp.sdk", "hookline.mcp._mcp_client", "ServerError"),
    ("hookline.claude.resources", "hookline._hooks.resources", "HookResources"),
    ("hookline.claude.wording", "hookline._wording", "reminder"),
    # internal packages and modules, marked private with a leading underscore
    ("hookline.settings_layers", "hookline._settings_layers", "SettingsWarning"),
    ("hookline.agent.loop", "hookline._agent.loop", "Agent"),
    ("hookline.agent.runtime", "hookline._agent.runtime", "Runtime"),
    ("hookline.hooks.engine", "hookline._hooks.engine", "HookEngine"),
    ("hookline.tools.base", "hookline._tools.base", "Tool"),
    ("hookline.errors", "hookline._errors", "ConfigError"),
    # the modules inside a public package
    ("hookline.storage.sqlite", "hookline.storage._sqlite", "SqliteStore"),
    ("hookline.models.openai", "hookline.models._openai", "OpenAIModel"),
    ("hookline.permissions.policy", "hookline.permissions._policy", "PermissionPolicy"),
    ("hookline.permissions.bash.reader", "hookline.permissions.bash._reader", "Reader"),
    ("hookline.permissions.sandbox.run", "hookline.permissions._sandbox.run", "__doc__"),
]


@pytest.mark.parametrize(("old", "new", "name"), MOVED)
def test_an_old_module_name_warns_and_is_the_new_module(
    old: str, new: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning) as warned:  # and its package's, the first time
        alias = importlib.import_module(old)
    assert f"{old} moved to {new}" in [str(w.message).split(";")[0] for w in warned]
    assert alias is importlib.import_module(new)
    assert getattr(alias, name) is getattr(sys.modules[new], name)


def test_a_moved_name_is_the_same_object_as_the_public_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import hookline

    monkeypatch.delitem(sys.modules, "hookline.agent.loop", raising=False)
    with pytest.warns(DeprecationWarning):
        from hookline.agent.loop import Agent  # type: ignore[import-not-found]
    assert Agent is hookline.Agent


def test_a_name_that_never_existed_is_not_found_and_warns_nothing() -> None:
    for name in ("hookline.no_such_module", "hookline.storage.no_such", "hookline.agent.no_such"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)


def test_a_public_module_is_not_taken_for_an_old_name() -> None:
    for name in ("hookline.permissions.targets", "hookline.permissions.bash", "hookline.types"):
        module = importlib.import_module(name)
        assert module.__name__ == name
