"""What ``hookline doctor`` reads in Claude Code's settings
(``hookline._hosts.doctor_claude_code``), how it judges Claude Code's reaction to the canary
(``hookline._serve.canary.judge``), and what it counts as a problem
(``hookline._serve.doctor.Report``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hookline._errors import ConfigError
from hookline._hosts import claude_code
from hookline._hosts.doctor_claude_code import check
from hookline._serve.canary import Canary, expected_reason, judge
from hookline._serve.doctor import NO_CLI, Health, Report, health_url

URL = claude_code.DEFAULT_URL
OTHER = "http://127.0.0.1:9999/elsewhere"


def _home() -> Path:
    return Path(os.environ["HOME"])


def _managed() -> Path:
    return Path(os.environ["HOOKLINE_MANAGED_SETTINGS_DIR"]) / "managed-settings.json"


def _write(path: Path, settings: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def _installed_in(path: Path, **extra: Any) -> None:
    claude_code.install(path, URL)
    settings = json.loads(path.read_text())
    _write(path, {**settings, **extra})


def _user() -> Path:
    return _home() / ".claude" / "settings.json"


def test_an_install_in_the_users_settings_gates_every_tool_call_with_no_problem(
    tmp_path: Path,
) -> None:
    _installed_in(_user())
    found = check(URL, tmp_path, _home())
    user = found.scopes[0]
    assert (user.scope, user.events) == ("user", claude_code.EVENTS)
    assert user.fail_open == () and user.stopped is None and user.gating
    assert [s.events for s in found.scopes[1:]] == [(), (), ()]
    assert found.gating and found.problems == []


def test_nothing_installed_is_a_problem_saying_how_to_install(tmp_path: Path) -> None:
    found = check(URL, tmp_path, _home())
    assert not found.gating
    assert found.problems == [
        f"no settings file has hookline's hooks posting to {URL}: run hookline install claude-code"
    ]


def test_a_hook_posting_elsewhere_is_not_hooklines(tmp_path: Path) -> None:
    claude_code.install(_user(), OTHER)
    found = check(URL, tmp_path, _home())
    assert [s.events for s in found.scopes] == [(), (), (), ()]
    assert not found.gating


def test_a_pretooluse_hook_without_onfailure_block_fails_open_and_does_not_gate(
    tmp_path: Path,
) -> None:
    hook = {"type": "http", "url": URL, "timeout": 30}
    _write(_user(), {"hooks": {"PreToolUse": [{"hooks": [hook]}]}})
    found = check(URL, tmp_path, _home())
    assert found.scopes[0].fail_open == ("PreToolUse",)
    assert not found.gating
    assert any('PreToolUse hook has no "onFailure": "block"' in p for p in found.problems)
    assert any("no running PreToolUse hook" in p for p in found.problems)


@pytest.mark.parametrize(
    ("allowed", "stops"),
    [
        ([], True),  # an empty list blocks every HTTP hook
        (["http://localhost:*"], True),  # another host
        (["http://127.0.0.1:1234/*"], True),  # another port
        (["http://127.0.0.1:*"], False),
        ([URL], False),
    ],
)
def test_a_projects_allowedhttphookurls_that_lets_no_hook_post_to_the_url_stops_the_users(
    tmp_path: Path, allowed: list[str], stops: bool
) -> None:
    _installed_in(_user())
    _write(tmp_path / ".claude" / "settings.json", {"allowedHttpHookUrls": allowed})
    found = check(URL, tmp_path, _home())
    assert (found.scopes[0].stopped is not None) is stops
    assert found.gating is not stops
    assert any("allowedHttpHookUrls lets no hook post" in p for p in found.problems) is stops


def test_a_managed_allowedhttphookurls_caps_the_users_own_list(tmp_path: Path) -> None:
    _installed_in(_user(), allowedHttpHookUrls=[URL])
    _write(_managed(), {"allowedHttpHookUrls": ["https://hooks.example.com/*"]})
    found = check(URL, tmp_path, _home())
    assert "allowedHttpHookUrls" in (found.scopes[0].stopped or "")
    assert not found.gating


def test_disableallhooks_in_the_users_settings_stops_them(tmp_path: Path) -> None:
    _installed_in(_user(), disableAllHooks=True)
    found = check(URL, tmp_path, _home())
    assert "disableAllHooks" in (found.scopes[0].stopped or "")
    assert not found.gating
    assert any("hookline's hooks do not run: disableAllHooks" in p for p in found.problems)


def test_disableallhooks_in_a_project_stops_the_users_hooks_too(tmp_path: Path) -> None:
    # as Claude Code 2.1.332 does: the canary ran (tests/test_doctor.py shows it live)
    _installed_in(_user())
    _write(tmp_path / ".claude" / "settings.json", {"disableAllHooks": True})
    found = check(URL, tmp_path, _home())
    assert "disableAllHooks is set in" in (found.scopes[0].stopped or "")
    assert not found.gating


def test_allowmanagedhooksonly_stops_the_users_hooks_but_not_the_managed_ones(
    tmp_path: Path,
) -> None:
    _installed_in(_user())
    _installed_in(_managed(), allowManagedHooksOnly=True)
    found = check(URL, tmp_path, _home())
    user, managed = found.scopes[0], found.scopes[3]
    assert "allowManagedHooksOnly" in (user.stopped or "")
    assert managed.scope == "managed" and managed.gating
    assert found.gating  # the managed hooks still judge every call
    assert any("user settings" in p and "allowManagedHooksOnly" in p for p in found.problems)


def test_disableallhooks_in_managed_settings_stops_every_hook(tmp_path: Path) -> None:
    _installed_in(_managed(), disableAllHooks=True)
    found = check(URL, tmp_path, _home())
    assert "runs no hook" in (found.scopes[3].stopped or "")
    assert not found.gating


def test_a_settings_file_that_is_not_json_is_named_as_a_problem(tmp_path: Path) -> None:
    _user().parent.mkdir(parents=True)
    _user().write_text("{not json")
    found = check(URL, tmp_path, _home())
    assert found.scopes[0].unreadable is not None
    assert any(str(_user()) in p and "not valid JSON" in p for p in found.problems)


REASON = expected_reason(Path("/home/u/.hookline/keys/canary"), Path("/home/u"))


@pytest.mark.parametrize(
    ("said", "denied", "outcome"),
    [
        (f"PreToolUse:Read hook error: {REASON}", True, "refused"),
        (
            "PreToolUse:Read hook error: [http://127.0.0.1:9/claude-code]: failed; blocking "
            'because onFailure is "block"\nconnect ECONNREFUSED 127.0.0.1:9',
            True,
            "blocked",
        ),
        (
            "hookline break-glass until 10:00: every call is asked (stuck)",
            True,
            "refused-otherwise",
        ),
        ("PreToolUse:Read hook error: not today", True, "refused-otherwise"),
        ("File does not exist. Note: your current working directory is /p.", False, "ran"),
        (f"PreToolUse:Read hook error: {REASON}", False, "ran"),  # not denied: it ran
    ],
)
def test_the_canary_counts_as_refused_only_when_denied_with_hooklines_own_reason(
    said: str, denied: bool, outcome: str
) -> None:
    assert judge(said, denied, REASON) == outcome


def test_hooklines_reason_for_the_canary_is_the_private_keys_refusal() -> None:
    assert "/home/u/.hookline/keys holds hookline's private state" in REASON


def _report(health: Health, canary: Canary | None, tmp_path: Path) -> Report:
    _installed_in(_user())
    return Report(URL, health, check(URL, tmp_path, _home()), "claude", canary)


REFUSED = Canary("refused", "/x", f"PreToolUse:Read hook error: {REASON}")
UP = Health("http://127.0.0.1:8377/health", True, '{"ok":true}')


def test_covered_when_the_server_answers_the_hooks_gate_and_the_canary_was_refused(
    tmp_path: Path,
) -> None:
    report = _report(UP, REFUSED, tmp_path)
    assert report.covered and report.problems == []
    assert report.as_json()["covered"] is True


@pytest.mark.parametrize(
    ("health", "canary", "problem"),
    [
        (UP, None, NO_CLI),
        (UP, Canary("ran", "/x", "File does not exist."), "the canary call ran"),
        (Health(UP.url, False, "ConnectError"), REFUSED, "the server does not answer"),
        (Health(UP.url, True, "{}", glass_until=4e9), REFUSED, "a break-glass holds until"),
        (Health(UP.url, True, "{}", stand_in=True), REFUSED, "the break-glass stand-in answers"),
    ],
)
def test_each_gap_is_a_problem_and_not_covered(
    tmp_path: Path, health: Health, canary: Canary | None, problem: str
) -> None:
    report = _report(health, canary, tmp_path)
    assert not report.covered
    assert any(p.startswith(problem) for p in report.problems), report.problems


def test_the_health_url_is_the_servers_own_and_a_url_not_http_is_refused() -> None:
    assert health_url("http://127.0.0.1:8377/claude-code") == "http://127.0.0.1:8377/health"
    with pytest.raises(ConfigError, match="not an http"):
        health_url("127.0.0.1:8377")
