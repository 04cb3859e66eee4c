"""Settings layers: found, read, merged by precedence; their hooks registered or warned about."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hookline._claude.http import BlockedUrl, HttpClients, HttpHook
from hookline._claude.settings import MANAGED_DIR_ENV, Settings, load_settings
from hookline._events import HookEvent, PreToolUse, Scope, SessionStart
from hookline._hooks.engine import Dispatch, HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._settings_layers import Layer, by_precedence, winning

HOOK_MODULE = """
from pathlib import Path
from hookline._decisions import Decision

def deny(event):
    return Decision.deny("python says no to " + event.tool_input["command"])

def count(event):
    with open(Path(event.cwd, "counter"), "a") as out:
        out.write("x\\n")

NOT_CALLABLE = 3
"""


def command(text: str = "true", **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": text, **fields}


def hooks(*handlers: Any, event: str = "PreToolUse", matcher: Any = "Bash") -> dict[str, Any]:
    """A settings object with one matcher group of ``handlers`` for ``event``."""
    return {"hooks": {event: [{"matcher": matcher, "hooks": list(handlers)}]}}


class Dirs:
    """A home, a project and a managed folder, with the settings files of each layer."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home, self.project, self.managed = root / "home", root / "project", root / "managed"
        self.project.mkdir(parents=True)
        self.files = {
            "user": self.home / ".claude" / "settings.json",
            "project": self.project / ".claude" / "settings.json",
            "local": self.project / ".claude" / "settings.local.json",
            "managed": self.managed / "managed-settings.json",
            "managed.d": self.managed / "managed-settings.d" / "10-team.json",
            "hookline-user": self.home / ".hookline" / "settings.json",
            "hookline-project": self.project / ".hookline" / "settings.json",
            "hookline-local": self.project / ".hookline" / "settings.local.json",
        }
        self.scope = Scope("sess-1", str(root / "transcript.jsonl"), str(self.project))

    def write(self, where: str, data: object) -> Path:
        path = self.files.get(where) or self.root / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    def load(self, *extra: str) -> Settings:
        return load_settings(self.project, extra=extra, home=self.home, managed_dir=self.managed)

    def registry(self, *extra: str) -> tuple[Settings, HookRegistry]:
        settings, registry = self.load(*extra), HookRegistry()
        added = settings.register(registry, project_dir=self.project)
        assert added == len(registry)
        return settings, registry

    def bash(self, text: str) -> PreToolUse:
        fields = {"tool_input": {"command": text}, "tool_use_id": "toolu_1"}
        return self.scope.event(PreToolUse, tool_name="Bash", **fields)

    def module(self, name: str, where: str = "") -> Path:
        path = self.project / where / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HOOK_MODULE)
        return path


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Dirs:
    monkeypatch.delenv(MANAGED_DIR_ENV, raising=False)
    return Dirs(tmp_path)


@pytest.fixture
def module_name() -> Iterator[str]:
    """A fresh module name, forgotten after the test."""
    name = f"settings_gates_{uuid.uuid4().hex[:8]}"
    yield name
    sys.modules.pop(name, None)


def dispatch(registry: HookRegistry, event: HookEvent) -> Dispatch:
    return asyncio.run(HookEngine(registry).dispatch(event))


def only_spec(registry: HookRegistry) -> Any:
    (spec,) = list(registry)
    return spec


# --- layers -----------------------------------------------------------------------------------


def test_every_layer_is_found_and_its_hooks_add_up_attributed_to_layer_and_file(dirs: Dirs) -> None:
    for where in dirs.files:
        dirs.write(where, hooks(command(f"echo {where}")))
    cli_file = dirs.write("cli.json", hooks(command("echo cli-file")))
    inline = json.dumps(hooks(command("echo cli-inline")))

    settings, registry = dirs.registry(str(cli_file), inline)

    sources = {spec.name: spec.source for spec in registry.specs("PreToolUse")}
    layer = {"managed.d": "managed", "hookline-user": "user", "hookline-project": "project"}
    layer |= {"hookline-local": "local"}
    expected = {f"echo {w}": f"{layer.get(w, w)}:{path}" for w, path in dirs.files.items()}
    expected |= {"echo cli-file": f"cli:{cli_file}", "echo cli-inline": "cli:--settings[1]"}
    assert sources == expected
    assert settings.warnings == []


def test_managed_drop_ins_load_sorted_after_the_base_file_skipping_hidden_ones(dirs: Dirs) -> None:
    dirs.write("managed", {})
    for name in ("20-b.json", "10-a.json", ".hidden.json", "notes.txt"):
        dirs.write(f"managed/managed-settings.d/{name}", {})

    names = [Path(layer.path).name for layer in dirs.load().layers]

    assert names == ["managed-settings.json", "10-a.json", "20-b.json"]


def test_managed_dir_comes_from_the_parameter_then_the_environment(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = dirs.root / "elsewhere"
    dirs.write("elsewhere/managed-settings.json", {"disableAllHooks": True})
    monkeypatch.setenv(MANAGED_DIR_ENV, str(elsewhere))

    from_env = load_settings(dirs.project, home=dirs.home)
    from_parameter = dirs.load()

    assert [layer.name for layer in from_env.layers] == ["managed"]
    assert from_env.disable_all_hooks is True
    assert from_parameter.layers == ()


def test_precedence_is_managed_cli_local_project_user_and_later_files_win_ties() -> None:
    layers = [
        Layer("user", "u", {"x": 1}),
        Layer("managed", "m1", {}),
        Layer("project", "p", {"x": 2}),
        Layer("local", "l", {"x": 3}),
        Layer("cli", "c", {"x": 4}),
        Layer("managed", "m2", {}),
        Layer("user", "u2", {"x": 5}),
    ]

    order = [layer.path for layer in by_precedence(layers)]

    assert order == ["m2", "m1", "c", "l", "p", "u2", "u"]
    assert winning(layers, "x") == 4
    assert winning(layers[:3], "x") == 2
    assert winning(layers, "missing") is None


# --- disableAllHooks / allowManagedHooksOnly --------------------------------------------------


@pytest.mark.parametrize(
    ("files", "extra", "registered"),
    [
        ({"user": True, "project": False}, (), {"managed"}),
        ({"user": False, "project": True}, (), {"user", "managed"}),
        ({"project": False}, ('{"disableAllHooks": true}',), {"managed"}),
        ({"local": True}, (), {"user", "managed"}),
        ({"managed": True}, (), set()),
        ({"managed": False, "project": True}, (), {"user", "managed"}),
        ({"user": False, "managed": False}, (), {"user", "project", "managed"}),
    ],
    ids=[
        "project-false-cannot-undo-user-true",
        "project-true-drops-only-the-folders-hooks",
        "cli-true-beats-project-false",
        "local-true-drops-only-the-folders-hooks",
        "managed-true-disables-all",
        "managed-false-leaves-a-folder-its-own-switch",
        "all-false-runs-all",
    ],
)
def test_disable_all_hooks_takes_the_value_after_precedence(
    dirs: Dirs, files: dict[str, bool], extra: tuple[str, ...], registered: set[str]
) -> None:
    for where in ("user", "project", "managed"):
        data = hooks(command(f"echo {where}"))
        if where in files:
            data["disableAllHooks"] = files[where]
        dirs.write(where, data)
    if "local" in files:
        dirs.write("local", {"disableAllHooks": files["local"]})

    _, registry = dirs.registry(*extra)

    assert {spec.source.split(":")[0] for spec in registry} == registered


def test_allow_managed_hooks_only_keeps_only_managed_hooks(dirs: Dirs) -> None:
    dirs.write("managed", {**hooks(command("echo managed")), "allowManagedHooksOnly": True})
    dirs.write("user", hooks(command("echo user")))
    dirs.write("project", hooks(command("echo project")))

    settings, registry = dirs.registry()

    assert settings.allow_managed_hooks_only is True
    assert [spec.name for spec in registry] == ["echo managed"]


def test_allow_managed_hooks_only_outside_managed_settings_is_ignored_with_a_warning(
    dirs: Dirs,
) -> None:
    path = dirs.write("project", {**hooks(command("echo project")), "allowManagedHooksOnly": True})
    dirs.write("user", hooks(command("echo user")))

    settings, registry = dirs.registry()

    assert settings.allow_managed_hooks_only is False
    assert len(registry) == 2
    assert [(w.file, w.key) for w in settings.warnings] == [(str(path), "allowManagedHooksOnly")]


# --- dedupe ---------------------------------------------------------------------------------


def test_identical_command_in_two_files_is_registered_twice_but_runs_once(dirs: Dirs) -> None:
    counting = command("echo x >> counter")
    dirs.write("user", hooks(counting))
    dirs.write("project", hooks(counting))

    _, registry = dirs.registry()
    result = dispatch(registry, dirs.bash("git status"))

    assert len(registry.specs("PreToolUse")) == 2
    assert len(result.runs) == 1
    assert (dirs.project / "counter").read_text().splitlines() == ["x"]


def test_identical_python_handler_in_two_files_runs_once(dirs: Dirs) -> None:
    dirs.module("gate", "hooks")
    counting = {"type": "python", "callable": "hooks/gate.py:count"}
    dirs.write("project", hooks(counting))
    dirs.write("hookline-project", hooks(counting))

    _, registry = dirs.registry()
    dispatch(registry, dirs.bash("ls"))

    assert len(registry) == 2
    assert (dirs.project / "counter").read_text().splitlines() == ["x"]


# --- warnings -------------------------------------------------------------------------------


def test_a_file_that_is_not_json_is_a_warning_with_its_position_and_the_others_load(
    dirs: Dirs,
) -> None:
    bad = dirs.write("project", '{\n  "hooks": {,\n}')
    dirs.write("user", hooks(command("echo user")))
    listed = dirs.write("local", "[1, 2]")

    settings, registry = dirs.registry()

    assert [spec.name for spec in registry] == ["echo user"]
    first, second = settings.warnings
    assert (first.file, second.file) == (str(bad), str(listed))
    assert "not valid JSON" in first.message and "line 2, column 13" in first.message
    assert "must hold a JSON object, not list" in second.message


def test_an_unreadable_file_is_a_warning_and_the_others_load(dirs: Dirs) -> None:
    dirs.files["project"].mkdir(parents=True)  # a folder where the file should be
    dirs.write("user", hooks(command("echo user")))

    settings, registry = dirs.registry()

    assert len(registry) == 1
    (warning,) = settings.warnings
    assert warning.file == str(dirs.files["project"]) and "cannot be read" in warning.message


def test_a_missing_cli_settings_file_is_a_warning(dirs: Dirs) -> None:
    settings = dirs.load(str(dirs.root / "nope.json"))

    assert [w.message for w in settings.warnings] == ["no such settings file"]


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        (hooks(command(), event="PreToolUze"), "hooks.PreToolUze", "did you mean 'PreToolUse'"),
        (hooks(command(), event="TeammateIdle"), "hooks.TeammateIdle", "does not fire yet"),
        (hooks(command(), matcher="Bash("), "hooks.PreToolUse[0].matcher", "regular expression"),
        (hooks(command(), matcher=["Bash"]), "hooks.PreToolUse[0].matcher", "must be a string"),
        (hooks({"type": "command"}), "hooks.PreToolUse[0].hooks[0].command", "command is missing"),
        (hooks({"type": "shell"}), "hooks.PreToolUse[0].hooks[0].type", "http, mcp_tool, python"),
        (hooks({"type": "agent"}), "hooks.PreToolUse[0].hooks[0].prompt", "prompt is missing"),
        (hooks("echo hi"), "hooks.PreToolUse[0].hooks[0]", "must be an object"),
        (hooks(command(timeout=0)), "hooks.PreToolUse[0].hooks[0].timeout", "positive number"),
        (hooks(command(timeout="5")), "hooks.PreToolUse[0].hooks[0].timeout", "positive number"),
        (hooks(command(args="-x")), "hooks.PreToolUse[0].hooks[0].args", "list of strings"),
        (hooks(command(shell="powershell")), "hooks.PreToolUse[0].hooks[0].shell", "supported"),
        (hooks({"type": "http", "url": "ftp://x/h"}), "hooks.PreToolUse[0].hooks[0].url", "http"),
        ({"hooks": {"PreToolUse": [{"hooks": "echo"}]}}, "hooks.PreToolUse[0].hooks", "list"),
        ({"hooks": {"PreToolUse": {"hooks": []}}}, "hooks.PreToolUse", "list of groups"),
        ({"hooks": {"PreToolUse": ["echo"]}}, "hooks.PreToolUse[0]", "must be an object"),
        ({"hooks": ["echo"]}, "hooks", "must be an object"),
        ({"disableAllHooks": "yes"}, "disableAllHooks", "true or false"),
        ({"allowedHttpHookUrls": "https://x/*"}, "allowedHttpHookUrls", "list of strings"),
    ],
)
def test_a_bad_entry_is_a_warning_naming_file_and_key_and_the_rest_still_loads(
    dirs: Dirs, data: dict[str, Any], key: str, words: str
) -> None:
    path = dirs.write("project", data)
    dirs.write("local", hooks(command("echo still here")))

    settings, registry = dirs.registry()

    assert [spec.name for spec in registry] == ["echo still here"]
    (warning,) = settings.warnings
    assert (warning.file, warning.key) == (str(path), key)
    assert words in str(warning)
    assert str(warning).startswith(f"{path}: {key}: ")
    assert warning.fix and str(warning).endswith(f"(fix: {warning.fix})")


def test_an_unloadable_handler_without_on_failure_block_is_only_a_warning(dirs: Dirs) -> None:
    dirs.write("project", hooks({"type": "command", "onFailure": "continue"}))

    settings, registry = dirs.registry()

    assert len(registry) == 0
    assert len(settings.warnings) == 1


# --- never silently allow --------------------------------------------------------------------


def test_an_unloadable_handler_with_on_failure_block_denies_naming_file_and_key(
    dirs: Dirs,
) -> None:
    path = dirs.write("project", hooks(command("true"), {"type": "command", "onFailure": "block"}))

    settings, registry = dirs.registry()
    result = dispatch(registry, dirs.bash("ls"))

    assert result.decision.permission == "deny"
    reason = result.decision.reason or ""
    assert str(path) in reason and "hooks.PreToolUse[0].hooks[1].command" in reason
    assert "command is missing" in reason
    assert "declares onFailure block" in settings.warnings[0].message


def test_an_unloadable_blocking_handler_with_an_unreadable_matcher_applies_to_every_call(
    dirs: Dirs,
) -> None:
    blocking = {"type": "python", "callable": "nowhere:gate", "onFailure": "block"}
    dirs.write("project", hooks(blocking, command("true"), matcher="Bash("))

    settings, registry = dirs.registry()
    other_tool = dirs.scope.event(
        PreToolUse, tool_name="Edit", tool_input={"file_path": "x"}, tool_use_id="toolu_2"
    )

    assert len(registry) == 1  # the plain handler in the same group is not registered
    assert dispatch(registry, other_tool).decision.permission == "deny"
    assert [w.key for w in settings.warnings] == ["hooks.PreToolUse[0].matcher"] * 2


# --- handler options ------------------------------------------------------------------------


def test_if_condition_joins_the_group_matcher(dirs: Dirs, module_name: str) -> None:
    dirs.module(module_name)
    gate = {"type": "python", "callable": f"{module_name}:deny", "if": "Bash(git push*)"}
    dirs.write("project", hooks(gate))

    _, registry = dirs.registry()

    assert dispatch(registry, dirs.bash("git push origin")).decision.permission == "deny"
    assert dispatch(registry, dirs.bash("git status")).decision.permission is None
    edit = {"tool_input": {"command": "git push origin"}, "tool_use_id": "toolu_3"}
    assert not only_spec(registry).matcher(dirs.scope.event(PreToolUse, tool_name="Edit", **edit))


def test_if_on_an_event_without_tools_never_runs_and_warns(dirs: Dirs, module_name: str) -> None:
    dirs.module(module_name)
    handler = {"type": "python", "callable": f"{module_name}:count", "if": "Bash(ls)"}
    dirs.write("project", hooks(handler, event="SessionStart", matcher=None))

    settings, registry = dirs.registry()
    dispatch(registry, dirs.scope.event(SessionStart))

    assert len(registry) == 1
    assert not (dirs.project / "counter").exists()
    assert [w.key for w in settings.warnings] == ["hooks.SessionStart[0].hooks[0].if"]


def test_a_malformed_if_rule_is_a_warning(dirs: Dirs) -> None:
    dirs.write("project", hooks(command(**{"if": "Bash(git push"})))

    settings, registry = dirs.registry()

    assert len(registry) == 0
    assert [w.key for w in settings.warnings] == ["hooks.PreToolUse[0].hooks[0].if"]


@pytest.mark.parametrize(
    ("event", "handler", "seconds"),
    [
        ("PreToolUse", command(), 600.0),
        ("UserPromptSubmit", command(), 30.0),
        ("SessionEnd", command(), 1.5),
        ("PreToolUse", command(timeout=5), 5.0),
        ("UserPromptSubmit", command(timeout=90), 90.0),
        ("PreToolUse", command(timeout=5000), 5000.0),  # looks like ms: kept, the lint says so
        ("PreToolUse", {"type": "http", "url": "http://localhost:1/h"}, 600.0),
    ],
)
def test_timeouts(dirs: Dirs, event: str, handler: dict[str, Any], seconds: float) -> None:
    dirs.write("project", hooks(handler, event=event, matcher=None))

    _, registry = dirs.registry()

    assert only_spec(registry).timeout == seconds


@pytest.mark.parametrize(
    ("on_failure", "failure"), [("block", "closed"), ("continue", "open"), (None, "open")]
)
def test_on_failure_block_makes_the_hook_fail_closed(
    dirs: Dirs, on_failure: str | None, failure: str
) -> None:
    handler = command() if on_failure is None else command(onFailure=on_failure)
    dirs.write("project", hooks(handler))

    _, registry = dirs.registry()

    assert only_spec(registry).failure == failure


def test_status_message_and_once_are_ignored_quietly_and_env_file_reaches_commands(
    dirs: Dirs,
) -> None:
    dirs.write("project", hooks(command(statusMessage="Checking...", once=True)))

    def provider(event: HookEvent) -> str | None:
        return None

    settings, registry = dirs.load(), HookRegistry()
    settings.register(registry, project_dir=dirs.project, env_file=provider)

    assert getattr(only_spec(registry).runner, "env_file", None) is provider
    assert settings.warnings == []


def test_async_and_async_rewake_commands_are_background_observers(dirs: Dirs) -> None:
    dirs.write("project", hooks(command("echo a", **{"async": True})))
    dirs.write("local", hooks(command("echo b", asyncRewake=True)))

    settings, registry = dirs.registry()

    assert [spec.kind for spec in registry] == ["observer", "observer"]
    runners = {spec.runner.describe(): spec.runner for spec in registry}
    assert {text: (r.background, getattr(r, "rewake", None)) for text, r in runners.items()} == {
        "echo a": (True, False),
        "echo b": (True, True),
    }
    assert settings.warnings == []


# --- python handlers ------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["module", "file"])
def test_python_handler_runs_inline_and_its_decision_applies(
    dirs: Dirs, module_name: str, form: str
) -> None:
    dirs.module(module_name, "hooks")
    dirs.module(module_name)
    target = f"{module_name}:deny" if form == "module" else f"hooks/{module_name}.py:deny"
    dirs.write("project", hooks({"type": "python", "callable": target}))

    _, registry = dirs.registry()
    spec = only_spec(registry)
    result = dispatch(registry, dirs.bash("rm -rf /"))

    assert spec.runner.inline and spec.name == target
    assert (spec.kind, spec.failure) == ("gate", "closed")  # in-process gate on PreToolUse
    assert result.decision.permission == "deny"
    assert result.decision.reason == "python says no to rm -rf /"


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("hooks/gate.py:missing", "has no attribute 'missing'"),
        ("hooks/gate.py:NOT_CALLABLE", "is not callable"),
        ("hooks/absent.py:deny", "no such file"),
        ("no_such_module_xyz:deny", "cannot import 'no_such_module_xyz'"),
        ("hooks/gate.py", "names no function"),
    ],
)
def test_python_handler_load_problems_are_warnings(dirs: Dirs, target: str, words: str) -> None:
    dirs.module("gate", "hooks")
    dirs.write("project", hooks({"type": "python", "callable": target, "kind": "gate"}))

    settings, registry = dirs.registry()

    assert len(registry) == 0
    (warning,) = settings.warnings
    assert warning.key == "hooks.PreToolUse[0].hooks[0].callable"
    assert words in warning.message


def test_python_handler_kind_is_read(dirs: Dirs) -> None:
    dirs.module("gate", "hooks")
    handler = {"type": "python", "callable": "hooks/gate.py:count", "kind": "observer"}
    dirs.write("project", hooks(handler))

    _, registry = dirs.registry()

    assert only_spec(registry).kind == "observer"


# --- http policy ----------------------------------------------------------------------------


class CountingClients(HttpClients):
    """HTTP clients whose transport answers ``{}`` and remembers each request."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[httpx.Request] = []

    def client(self) -> httpx.AsyncClient:
        def answer(request: httpx.Request) -> httpx.Response:
            self.requests.append(request)
            return httpx.Response(200, json={})

        return httpx.AsyncClient(transport=httpx.MockTransport(answer))


def http_runner(registry: HookRegistry, url: str) -> HttpHook:
    runner = next(spec.runner for spec in registry if spec.runner.describe() == url)
    assert isinstance(runner, HttpHook)
    runner.clients = CountingClients()
    return runner


def test_allowed_http_hook_urls_merge_across_layers_and_block_unlisted_urls(dirs: Dirs) -> None:
    allowed, blocked = "https://hooks.example.com/gate", "https://evil.example.net/steal"
    dirs.write("user", {"allowedHttpHookUrls": ["https://hooks.example.com/*"]})
    dirs.write("project", hooks({"type": "http", "url": allowed}, {"type": "http", "url": blocked}))

    settings, registry = dirs.registry()
    good, bad = http_runner(registry, allowed), http_runner(registry, blocked)

    assert settings.allowed_http_hook_urls == ("https://hooks.example.com/*",)
    assert asyncio.run(good.run(dirs.bash("ls"))) is None
    with pytest.raises(BlockedUrl):
        asyncio.run(bad.run(dirs.bash("ls")))
    assert isinstance(bad.clients, CountingClients) and bad.clients.requests == []
    assert [w.key for w in settings.warnings] == ["hooks.PreToolUse[0].hooks[1].url"]


@pytest.mark.parametrize(
    ("layers", "merged", "folders"),
    [
        ({}, None, None),
        ({"managed": []}, (), ()),
        ({"user": ["a", "b"], "project": ["b", "c"]}, ("a", "b"), ("b",)),
        ({"project": ["b", "c"], "local": ["d"]}, None, ("b", "c", "d")),
        # managed lists are a ceiling: no other layer widens them
        ({"managed": [], "project": ["a"], "local": ["b"]}, (), ()),
        ({"managed": ["a"], "project": ["b"], "user": ["a", "c"]}, ("a",), ()),
        ({"managed": ["a", "b"], "local": ["b", "c"]}, ("a", "b"), ("b",)),
    ],
)
def test_allowed_http_hook_urls_is_unset_empty_or_a_union_a_folder_only_narrows(
    dirs: Dirs,
    layers: dict[str, list[str]],
    merged: tuple[str, ...] | None,
    folders: tuple[str, ...] | None,
) -> None:
    """The person's hooks get the person's lists (managed ones cap the user's); the folder's
    own hooks get them narrowed by the folder's lists, never widened."""
    for where, urls in layers.items():
        dirs.write(where, {"allowedHttpHookUrls": urls})

    settings = dirs.load()

    assert settings.allowed_http_hook_urls == merged
    assert settings.folder_limit("allowedHttpHookUrls") == folders


def test_a_folders_list_narrows_its_own_hooks_but_cannot_switch_the_persons_off(
    dirs: Dirs,
) -> None:
    url = "https://hooks.example.com/gate"
    dirs.write("user", {"allowedHttpHookUrls": ["https://hooks.example.com/*"],
                        **hooks({"type": "http", "url": url}, matcher="Bash|Read")})  # fmt: skip
    dirs.write("local", {"allowedHttpHookUrls": [], **hooks({"type": "http", "url": url})})

    _, registry = dirs.registry()
    by_layer = {spec.source.split(":")[0]: spec.runner for spec in registry}

    for runner in by_layer.values():
        assert isinstance(runner, HttpHook)
        runner.clients = CountingClients()
    assert asyncio.run(by_layer["user"].run(dirs.bash("ls"))) is None  # the person's still works
    with pytest.raises(BlockedUrl):
        asyncio.run(by_layer["local"].run(dirs.bash("ls")))


def test_http_header_env_vars_are_the_handler_list_within_the_settings_list(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0ken")
    monkeypatch.setenv("HOOK_SECRET", "s3cret")
    url = "http://localhost:9/hook"
    handler = {
        "type": "http",
        "url": url,
        "headers": {"X-Token": "$HOOK_TOKEN", "X-Secret": "${HOOK_SECRET}"},
        "allowedEnvVars": ["HOOK_TOKEN", "HOOK_SECRET"],
    }
    dirs.write("project", hooks(handler))
    dirs.write("managed", {"httpHookAllowedEnvVars": ["HOOK_TOKEN"]})

    settings, registry = dirs.registry()
    runner = http_runner(registry, url)
    asyncio.run(runner.run(dirs.bash("ls")))

    (sent,) = runner.clients.requests  # type: ignore[attr-defined]
    assert settings.http_hook_allowed_env_vars == ("HOOK_TOKEN",)
    assert (sent.headers["X-Token"], sent.headers["X-Secret"]) == ("t0ken", "")
    assert [w.key for w in settings.warnings] == ["hooks.PreToolUse[0].hooks[0].allowedEnvVars"]


def test_a_project_layer_cannot_widen_what_managed_settings_allow(dirs: Dirs) -> None:
    managed_ok, project_only = "https://hooks.example.com/gate", "https://other.example.net/x"
    dirs.write("managed", {"allowedHttpHookUrls": ["https://hooks.example.com/*"],
                           "httpHookAllowedEnvVars": ["HOOK_TOKEN"]})  # fmt: skip
    dirs.write("project", {
        "allowedHttpHookUrls": ["https://hooks.example.com/*", "https://other.example.net/*"],
        "httpHookAllowedEnvVars": ["HOOK_SECRET"],
        **hooks({"type": "http", "url": managed_ok}, {"type": "http", "url": project_only}),
    })  # fmt: skip

    settings, registry = dirs.registry()
    assert settings.allowed_http_hook_urls == ("https://hooks.example.com/*",)
    assert settings.http_hook_allowed_env_vars == ("HOOK_TOKEN",)
    good, bad = http_runner(registry, managed_ok), http_runner(registry, project_only)
    assert asyncio.run(good.run(dirs.bash("ls"))) is None
    with pytest.raises(BlockedUrl):
        asyncio.run(bad.run(dirs.bash("ls")))
    assert isinstance(bad.clients, CountingClients) and bad.clients.requests == []
