"""Modules that moved keep their old names for one release: importing one warns, and hands back
the module at its new place (``hookline._support.moved``)."""

from __future__ import annotations

import importlib
import sys

import pytest

MOVED = [
    ("hookline.layers", "hookline.settings_layers", "SettingsWarning"),
    ("hookline.hooks.sdk", "hookline.hooks.sdk_matchers", "HookMatcher"),
    ("hookline.mcp.sdk", "hookline.mcp.mcp_client", "ServerError"),
]


@pytest.mark.parametrize(("old", "new", "name"), MOVED)
def test_an_old_module_name_warns_and_is_the_new_module(
    old: str, new: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        alias = importlib.import_module(old)
    assert alias is importlib.import_module(new)
    assert getattr(alias, name) is getattr(sys.modules[new], name)
