"""``hookline timeline``: a real audited session (a prompt hook, a gate that denies, a shadow
hook, a tool input holding markup and a bidirectional override) as its steps, in the terminal,
as JSON and as a self-contained HTML page, which real headless Chromium opens with every
recorded value inert; a tampered audit is said to be unverified (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import hookline
from browser import browser, keep, needs_chromium
from hookline import Agent, Decision, HookRegistry, ScriptedModel
from hookline._cli.main import cli
from hookline.audit import attach_audit

__all__ = ["browser"]  # the fixture, for the test below that asks for it

HOSTILE = "<script>document.title='owned'</script>\u202eexe.txt"
RAN: list[str] = []


@hookline.tool
def note(text: str) -> str:
    """Keep a note."""
    RAN.append(text)
    return "kept"


def session(project: Path, texts: list[str]) -> str:
    """An audited run in ``project`` that notes each text; its session id."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": "note", "input": {"text": t}}]}
        for i, t in enumerate(texts)
    ]
    registry = HookRegistry()
    registry.add("UserPromptSubmit", lambda e: None, name="greeter", kind="observer")
    registry.add(
        "PreToolUse",
        lambda e: Decision.deny("no secrets") if e.tool_input["text"] == "secret" else None,
        name="no_secrets",
    )
    registry.add(
        "PreToolUse", lambda e: Decision.deny("would stop all"), name="strict", shadow=True
    )
    model = ScriptedModel([*turns, {"text": "ok"}])
    agent = Agent(model, tools=[note], hooks=registry, cwd=project, max_turns=len(texts) + 1)
    with attach_audit(agent):
        agent.run_sync("take notes")
    return agent.session.id


def timeline(*args: str) -> Result:
    return CliRunner().invoke(cli, ["timeline", *args])


def test_the_steps_say_what_ran_what_was_refused_and_which_hooks_said_so(tmp_path: Path) -> None:
    RAN.clear()
    sid = session(tmp_path, ["hello", "secret", HOSTILE])
    assert RAN == ["hello", HOSTILE]
    result = timeline(sid[:8], "--cwd", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["verified"] is True and report["session"] == sid
    steps = report["steps"]
    [prompt] = [s for s in steps if s["kind"] == "prompt"]
    assert prompt["detail"] == "take notes"
    [greeted] = [s for s in steps if s["kind"] == "hook"]
    assert greeted["title"] == "UserPromptSubmit hook greeter"
    replies = [s["detail"] for s in steps if s["kind"] == "model"]
    assert replies == ["asks for note"] * 3 + ["ok"]
    calls = [s for s in steps if s["kind"] == "tool"]
    assert [c["decision"] for c in calls] == ["executed", "deny (blocked)", "executed"]
    refused = calls[1]
    assert refused["reason"] == "no secrets" and refused["who"] == "hook"
    hooks = {h["hook"]: h for h in refused["hooks"]}
    assert hooks["no_secrets"]["decision"] == "deny" and hooks["no_secrets"]["shadow"] is False
    assert hooks["strict"]["shadow"] is True and hooks["strict"]["decision"] == "deny"
    assert calls[2]["detail"] == json.dumps({"text": HOSTILE}, ensure_ascii=False)
    text = timeline(sid, "--cwd", str(tmp_path))
    assert "PreToolUse hook strict would deny" in text.output
    assert "\u202e" not in text.output  # the override is shown, not obeyed


def test_the_page_holds_every_value_as_text(tmp_path: Path) -> None:
    sid = session(tmp_path, ["secret", HOSTILE])
    out = tmp_path / "timeline.html"
    result = timeline(sid, "--cwd", str(tmp_path), "--html", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "\u202e" not in text
    assert "http" not in text.replace("http-equiv", "")  # nothing fetched from anywhere
    assert out.stat().st_mode & 0o777 == 0o600


def test_a_tampered_audit_is_said_to_be_unverified(tmp_path: Path) -> None:
    sid = session(tmp_path, ["hello"])
    audit = tmp_path / ".hookline" / "state" / "audit.jsonl"
    audit.write_text(audit.read_text().replace('"hello"', '"HELLO"', 1))
    result = timeline(sid, "--cwd", str(tmp_path), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["verified"] is False


def test_a_session_with_no_records_is_one_line(tmp_path: Path) -> None:
    session(tmp_path, ["hello"])
    result = timeline("no-such-session", "--cwd", str(tmp_path))
    assert result.exit_code != 0 and "no audit records of session" in str(
        result.exception or result.output
    )


@needs_chromium
def test_chromium_shows_the_steps_and_runs_nothing_from_them(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    sid = session(tmp_path, ["hello", "secret", HOSTILE])
    out = tmp_path / "timeline.html"
    assert timeline(sid, "--cwd", str(tmp_path), "--html", str(out)).exit_code == 0
    browser.get(out.as_uri())
    assert browser.title.startswith("hookline timeline")  # no script set it
    rows = browser.find_elements(By.CSS_SELECTOR, "#steps tbody tr")
    assert len(rows) == 9  # the prompt, its hook, four model replies, three calls
    assert browser.find_elements(By.TAG_NAME, "script") == []
    page = browser.find_element(By.TAG_NAME, "body").text
    assert "<script>document.title='owned'</script>" in page  # shown as text
    assert "no secrets" in page and "no_secrets" in page
    health = browser.find_element(By.ID, "health").text
    assert "no_secrets" in health and "strict" in health
    [refused] = [row for row in rows if "deny (blocked)" in row.text]
    refused.find_element(By.TAG_NAME, "summary").click()  # its hooks, opened
    assert "strict would deny" in refused.text
    keep(browser, "timeline")


@pytest.mark.parametrize("calls", [1000])
def test_a_long_session_is_one_page(tmp_path: Path, calls: int) -> None:
    sid = session(tmp_path, [f"n{i}" for i in range(calls)])
    out = tmp_path / "long.html"
    assert timeline(sid, "--cwd", str(tmp_path), "--html", str(out)).exit_code == 0
    assert out.read_text().count("<tr class='step tool'>") == calls
