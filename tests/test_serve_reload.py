"""Reloading ``hookline serve``'s policy: a request in flight finishes under the policy it
began with, the old judge closes after it, the watcher's loop reloads on its trigger, and a
hook module named by import path is imported afresh (``hookline._serve.policies``,
``hookline._serve.reload``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hookline._project import load_project
from hookline._serve.judge import Judge
from hookline._serve.policies import Policies
from hookline._serve.reload import Watcher
from hookline.audit._redact import Redactor
from hookline.audit._writer import AuditWriter
from test_policy_digest import write
from test_serve_policy import curl, loader, tool_call

#: A hook that waits for the test to let it answer (its module's GATE, set by the test).
SLOW = """
from hookline import Decision

async def slow(event):
    GATE["started"].set()
    await GATE["release"].wait()
    return Decision.deny("held, then denied")
"""


def settings(*deny: str, hook: str = "slow.py:slow") -> str:
    group = {"matcher": "Write", "hooks": [{"type": "python", "callable": hook}]}
    return json.dumps({"permissions": {"deny": list(deny)}, "hooks": {"PreToolUse": [group]}})


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    write(folder / ".claude" / "settings.json", settings())
    write(folder / "slow.py", SLOW)
    return folder


def policies_of(folder: Path) -> Policies:
    project, digest = loader(folder)
    return Policies(Judge(project), digest, load=lambda: loader(folder))


def held_hook(policies: Policies) -> dict[str, asyncio.Event]:
    """The gate of the Write hook of the serving policy."""
    [spec] = list(policies.current.judge.project.hooks)
    gate = {"started": asyncio.Event(), "release": asyncio.Event()}
    spec.runner.fn.__globals__["GATE"] = gate  # type: ignore[attr-defined]
    return gate


def test_a_request_in_flight_finishes_under_its_policy_and_the_old_judge_closes_after(
    folder: Path, tmp_path: Path
) -> None:
    async def scenario() -> tuple[str, str, str, str, list[str]]:
        policies = policies_of(folder)
        gate, old = held_hook(policies), policies.current
        closed: list[str] = []
        old_close = old.judge.aclose

        async def aclose() -> None:
            closed.append("old")
            await old_close()

        old.judge.aclose = aclose  # type: ignore[method-assign]

        async def request() -> tuple[str, str]:
            write_call = tool_call(tmp_path, "Write", {"file_path": "/tmp/x", "content": "x"})
            async with policies.using() as active:
                ruling = await active.judge.rule(write_call)
                return active.digest.sha256, str(ruling.decision.reason)

        flight = asyncio.create_task(request())
        await asyncio.wait_for(gate["started"].wait(), 30)
        write(folder / ".claude" / "settings.json", settings("Bash(curl *)"))
        done = await policies.reload("SIGHUP")
        assert done.outcome == "reloaded" and policies.current is not old
        assert closed == []  # its request still runs
        gate["release"].set()
        policy, reason = await asyncio.wait_for(flight, 30)
        await policies.aclose()
        return policy, reason, done.old, done.new, closed

    policy, reason, old, new, closed = asyncio.run(scenario())
    assert (policy, reason) == (old, "held, then denied")
    assert new != old
    assert closed == ["old"]


def test_the_watchers_loop_reloads_when_its_trigger_fires_after_a_change(
    folder: Path, tmp_path: Path
) -> None:
    async def scenario() -> tuple[str, str, list[str]]:
        policies = policies_of(folder)
        ticks: asyncio.Queue[None] = asyncio.Queue()
        reloaded = asyncio.Event()
        lines: list[str] = []

        def say(line: str) -> None:
            lines.append(line)
            reloaded.set()

        with AuditWriter.open(tmp_path / "state", redactor=Redactor(())) as audit:
            watcher = Watcher(policies, audit, say=say, wait=ticks.get)
            async with watcher.running():
                await ticks.put(None)  # a look with nothing changed: no reload
                write(folder / ".claude" / "settings.json", settings("Bash(curl *)"))
                await ticks.put(None)
                await asyncio.wait_for(reloaded.wait(), 30)
            async with policies.using() as active:
                ruling = await active.judge.rule(curl(tmp_path))
        await policies.aclose()
        return str(ruling.decision.permission), str(ruling.decision.reason), lines

    permission, reason, lines = asyncio.run(scenario())
    assert (permission, "Bash(curl *)" in reason) == ("deny", True)
    assert len(lines) == 1 and " replaces " in lines[0]


def test_a_hook_module_named_by_import_path_is_imported_afresh_on_reload(
    folder: Path, tmp_path: Path
) -> None:
    """``module:function`` is imported by name, and Python keeps a module once imported: the
    reload forgets the project's own hook modules, so the changed code is what runs."""
    module = f"guard_{tmp_path.name}"  # one name per test: modules outlive a test
    hook = 'from hookline import Decision\n\ndef check(event):\n    return Decision.deny("{}")\n'
    write(folder / f"{module}.py", hook.format("first"))
    write(folder / ".claude" / "settings.json", settings(hook=f"{module}:check"))
    write_call = tool_call(tmp_path, "Write", {"file_path": "/tmp/x", "content": "x"})

    async def scenario() -> list[str]:
        policies = policies_of(folder)
        reasons = []
        for text in ("first", "second"):
            if text == "second":
                write(folder / f"{module}.py", hook.format(text))
                assert (await policies.reload("SIGHUP")).outcome == "reloaded"
            async with policies.using() as active:
                reasons.append(str((await active.judge.rule(write_call)).decision.reason))
        await policies.aclose()
        return reasons

    assert asyncio.run(scenario()) == ["first", "second"]


def test_a_reload_with_nothing_changed_keeps_the_policy_as_loaded(folder: Path) -> None:
    async def scenario() -> tuple[str, bool]:
        policies = policies_of(folder)
        before = policies.current
        done = await policies.reload("SIGHUP")
        kept = policies.current is before
        await policies.aclose()
        return done.outcome, kept

    assert asyncio.run(scenario()) == ("unchanged", True)


def test_a_server_given_one_policy_refuses_to_reload_saying_so(folder: Path) -> None:
    async def scenario() -> Any:
        policies = Policies(Judge(load_project(folder, trust=True)))
        done = await policies.reload("SIGHUP")
        await policies.aclose()
        return done

    done = asyncio.run(scenario())
    assert done.outcome == "refused"
    assert "cannot load another" in str(done.error)
