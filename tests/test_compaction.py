"""Compaction: PreCompact may block it or add to the summarising instructions, the model
summarises with no tools, the transcript so far is archived, SessionStart (source compact) and
PostCompact follow; a summary that fails changes nothing and an automatic one ends the run.

Hooks are real command hooks from a project's settings; the model is scripted (each summary
request takes a turn of the script) and remembers what each call was shown, offered and told.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import hookline
from cli_runner import hookline as hookline_cli
from hookline import Agent, Decision, Message, ScriptedModel
from hookline.agent.compaction import (
    GO_ON,
    SUMMARY_SYSTEM,
    Compaction,
    due,
    estimate_tokens,
)
from hookline.agent.messages import TextBlock, Usage
from hookline.agent.transcript import first_bad_line
from hookline.audit import verify_jsonl, verify_rows
from hookline.errors import ConfigError, ModelError
from hookline.storage import SqliteStore
from recording_model import RecordingModel

#: The fields of each payload as Claude Code was observed to send it (a manual compaction).
PAYLOADS = Path(__file__).parent / "reaction_hooks" / "payloads"
CLAUDE_CODE_FIELDS = {
    name: set(json.loads((PAYLOADS / f"{name}.json").read_text()))
    for name in ("PreCompact", "SessionStart.compact", "PostCompact")
}
OBSERVED = ".observed.jsonl"
RECORD = f'cat >> "$CLAUDE_PROJECT_DIR/{OBSERVED}"; echo >> "$CLAUDE_PROJECT_DIR/{OBSERVED}"'
#: The PostCompact hook of every project here leaves this file: it ran.
POST_RAN = "post-compact.ran"
SUMMARY = "SUMMARY-TEXT"


class Recording(RecordingModel):
    """The recording model, failing the calls whose number (0-based) is in ``fail_at`` with a
    ModelError instead of answering (the turn stays for the next call)."""

    def __init__(self, script: Sequence[dict[str, Any]], *, fail_at: Sequence[int] = ()) -> None:
        super().__init__(script)
        self.fail_at = set(fail_at)

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        if len(self.seen) not in self.fail_at:
            return await super().complete(messages, tools, system=system)
        self.record(messages, tools, system)
        raise ModelError("the provider is down (503): try again later")


def sh(code: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": f'cd "$CLAUDE_PROJECT_DIR" && {code}'}]}


def project(root: Path, **hooks: Sequence[dict[str, Any]]) -> Path:
    """A project whose settings hold ``hooks`` by event, plus a recorder on the compaction
    events and SessionStart, and a PostCompact hook that leaves POST_RAN."""
    configured = {event: list(groups) for event, groups in hooks.items()}
    for event in ("PreCompact", "SessionStart", "PostCompact"):
        configured.setdefault(event, []).append(sh(RECORD))
    configured["PostCompact"].append(sh(f"touch {POST_RAN}"))
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": configured}))
    return root


def agent_in(root: Path, model: ScriptedModel, **options: Any) -> Agent:
    loaded = hookline.load_project(root)
    assert loaded.warnings == ()

    @hookline.tool(name="echo")
    def echoed(text: str) -> str:
        return f"echo: {text}"

    return Agent(model, hooks=loaded.hooks, cwd=root, tools=[echoed], **options)


def observed(root: Path, event: str | None = None) -> list[dict[str, Any]]:
    path = root / OBSERVED
    lines = path.read_text().splitlines() if path.exists() else []
    payloads = [json.loads(line) for line in lines if line.strip()]
    return [p for p in payloads if event is None or p["hook_event_name"] == event]


def say(text: str) -> dict[str, Any]:
    return {"text": text}


def echo(text: str, call_id: str = "toolu_1") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "echo", "input": {"text": text}}]}


def archives(agent: Agent) -> list[Path]:
    return sorted(agent.session.transcript.path.parent.glob("*.pre-compact.jsonl"))


async def first_run_then(agent: Agent, prompt: str = "say hello") -> None:
    result = await agent.run(prompt)
    assert result.stop_reason == "end_turn"


# -- manual: PreCompact and the summarising request ----------------------------------------------


def test_precompact_stdout_joins_the_instructions_raw_after_the_users_own(tmp_path: Path) -> None:
    root = project(tmp_path, PreCompact=[sh("printf 'O-from-hook'")])
    model = Recording([say("hello"), say(SUMMARY)])
    agent = agent_in(root, model)

    async def go() -> Compaction:
        async with agent:
            await first_run_then(agent)
            return await agent.compact("focus on hello")

    done = asyncio.run(go())
    assert (done.status, done.summary, done.trigger) == ("compacted", SUMMARY, "manual")
    messages, tools, system = model.seen[1]
    assert (tools, system) == ([], SUMMARY_SYSTEM)  # no tools: text only
    assert [m.role for m in messages] == ["user", "assistant", "user"]  # all of it, then ours
    request = messages[-1].text
    assert "Additional instructions:\nfocus on hello\n\nO-from-hook\n\nREMINDER:" in request
    assert "hook success" not in request  # raw, not worded as context
    [payload] = observed(root, "PreCompact")
    assert set(payload) == CLAUDE_CODE_FIELDS["PreCompact"]
    assert (payload["trigger"], payload["custom_instructions"]) == ("manual", "focus on hello")


def test_without_instructions_custom_instructions_is_null_and_none_are_added(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    model = Recording([say("hello"), say(SUMMARY)])
    agent = agent_in(root, model)

    async def go() -> Compaction:
        async with agent:
            await first_run_then(agent)
            return await agent.compact()

    assert asyncio.run(go()).compacted
    [payload] = observed(root, "PreCompact")
    assert set(payload) == CLAUDE_CODE_FIELDS["PreCompact"]
    assert payload["custom_instructions"] is None
    assert "Additional instructions" not in model.seen[1].messages[-1].text


def blocked_by(tmp_path: Path, hook: dict[str, Any]) -> tuple[Agent, Recording, Compaction, bytes]:
    """Run a prompt, then ask for a compaction that ``hook`` (on PreCompact) blocks; return
    the transcript as it was before the attempt."""
    root = project(tmp_path, PreCompact=[hook])
    model = Recording([say("hello"), say(SUMMARY)])
    agent = agent_in(root, model)
    done, before = compacted_after_a_run(agent, "focus")
    return agent, model, done, before


def compacted_after_a_run(agent: Agent, focus: str | None = None) -> tuple[Compaction, bytes]:
    """Run a prompt, then ask for a compaction (``focus``: its instructions); what it gave,
    and the transcript as it was before the attempt."""

    async def go() -> tuple[Compaction, bytes]:
        async with agent:
            await first_run_then(agent)
            agent.session.transcript.flush()
            before = agent.session.transcript.path.read_bytes()
            return await agent.compact(focus), before

    return asyncio.run(go())


def assert_nothing_changed(agent: Agent, model: Recording, before: bytes) -> None:
    assert len(model.seen) == 1  # the model was never asked for a summary
    assert [m.role for m in agent.session.messages] == ["user", "assistant"]
    assert agent.session.messages[-1].text == "hello"
    assert agent.session.transcript.path.read_bytes() == before
    assert archives(agent) == []
    assert not (agent.session.cwd / POST_RAN).exists()  # PostCompact never fired


def test_precompact_exit_2_blocks_with_claude_codes_words(tmp_path: Path) -> None:
    code = "echo S >&2; exit 2"
    agent, model, done, before = blocked_by(tmp_path, sh(code))
    command = f'cd "$CLAUDE_PROJECT_DIR" && {code}'
    assert done.status == "blocked"
    assert done.detail == f"Compaction blocked by PreCompact hook: [{command}]: S"
    assert_nothing_changed(agent, model, before)


def test_a_json_block_decision_blocks(tmp_path: Path) -> None:
    answer = json.dumps({"decision": "block", "reason": "not now"})
    agent, model, done, before = blocked_by(tmp_path, sh(f"echo {shlex.quote(answer)}"))
    assert (done.status, done.detail) == (
        "blocked",
        "Compaction blocked by PreCompact hook: not now",
    )
    assert_nothing_changed(agent, model, before)


@pytest.mark.parametrize("failure", ["closed", "open"])
def test_a_python_gate_that_raises_blocks_only_when_it_fails_closed(
    tmp_path: Path, failure: str
) -> None:
    root = project(tmp_path)
    model = Recording([say("hello"), say(SUMMARY)])
    agent = agent_in(root, model)

    def broken(event: Any) -> None:
        raise RuntimeError("the policy service is down")

    agent.registry.add("PreCompact", broken, failure=failure, name="policy")  # type: ignore[arg-type]

    async def go() -> Compaction:
        async with agent:
            await first_run_then(agent)
            return await agent.compact()

    done = asyncio.run(go())
    if failure == "closed":
        assert done.status == "blocked" and "fails closed" in (done.detail or "")
        assert len(model.seen) == 1 and not (root / POST_RAN).exists()
    else:  # the default on PreCompact: a broken hook does not stop the compaction
        assert done.compacted and (root / POST_RAN).exists()


def test_nothing_to_compact_fires_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    model = Recording([])
    agent = agent_in(root, model)
    done = asyncio.run(agent.compact())
    assert (done.status, done.detail) == (
        "failed",
        "there is nothing to compact: the conversation is empty",
    )
    assert model.seen == [] and observed(root) == []


# -- after the summary: the conversation, SessionStart, PostCompact, the archive -------------------


def test_session_start_compact_then_post_compact_and_the_context_reaches_the_next_request(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path,
        SessionStart=[{"matcher": "compact", **sh("printf 'CTX-after-compact'")}],
    )
    model = Recording([say("hello"), say(SUMMARY), say("next answer")])
    agent = agent_in(root, model)

    async def go() -> None:
        async with agent:
            await first_run_then(agent)
            assert (await agent.compact()).compacted
            await first_run_then(agent, "and now?")

    asyncio.run(go())
    order = [(p["hook_event_name"], p.get("source")) for p in observed(root)]
    assert order == [
        ("SessionStart", "startup"),
        ("PreCompact", None),
        ("SessionStart", "compact"),  # as observed: SessionStart, then PostCompact
        ("PostCompact", None),
    ]
    start = observed(root, "SessionStart")[1]
    assert set(start) == CLAUDE_CODE_FIELDS["SessionStart.compact"]
    assert start["model"] == model.name
    [post] = observed(root, "PostCompact")
    assert set(post) == CLAUDE_CODE_FIELDS["PostCompact"]
    assert (post["trigger"], post["compact_summary"]) == ("manual", SUMMARY)
    shown = model.seen[2].messages  # the request after the compaction
    assert [m.role for m in shown] == ["user", "user", "user"]
    assert SUMMARY in shown[0].text and shown[0].text.startswith("This session continues")
    assert "SessionStart:compact hook success: CTX-after-compact" in shown[1].text
    assert shown[2].text == "and now?"


def test_the_archive_holds_the_whole_transcript_and_the_new_one_starts_at_the_summary(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    model = Recording([echo("a"), say("hello"), say(SUMMARY), say("two"), say("SUMMARY-2")])
    agent = agent_in(root, model)
    path = agent.session.transcript.path

    async def go() -> tuple[bytes, bytes]:
        async with agent:
            await first_run_then(agent)
            agent.session.transcript.flush()
            first = path.read_bytes()
            assert (await agent.compact()).archive == path.with_name(
                f"{agent.session.id}.1.pre-compact.jsonl"
            )
            await first_run_then(agent, "more")
            agent.session.transcript.flush()
            second = path.read_bytes()
            assert (await agent.compact()).compacted
            return first, second

    first, second = asyncio.run(go())
    one, two = archives(agent)
    assert one.read_bytes() == first and two.read_bytes() == second  # nothing lost, nothing added
    assert two.name == f"{agent.session.id}.2.pre-compact.jsonl"
    entries = [json.loads(line) for line in first.splitlines()]
    assert [e["type"] for e in entries] == ["user", "assistant", "user", "assistant"]
    assert entries[0]["message"]["content"] == "say hello"  # the prompt, call, result, answer
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert entries[0]["parentUuid"] is None and "SUMMARY-2" in entries[0]["message"]["content"]
    assert all(first_bad_line(p) is None for p in (path, one, two))


def test_a_pre_model_request_redaction_applies_to_the_summary_request(tmp_path: Path) -> None:
    root = project(tmp_path)
    model = Recording([say("the key is SECRET-123"), say(SUMMARY)])
    agent = agent_in(root, model)

    def redact(event: Any) -> Decision:
        text = json.dumps(event.messages).replace("SECRET-123", "[redacted]")
        return Decision.rewrite({"messages": json.loads(text)})

    agent.registry.add("PreModelRequest", redact)

    async def go() -> Compaction:
        async with agent:
            await first_run_then(agent)
            return await agent.compact()

    assert asyncio.run(go()).compacted
    assert not any("SECRET-123" in text for text in model.seen[1].texts())
    assert any("[redacted]" in text for text in model.seen[1].texts())


# -- automatic --------------------------------------------------------------------------------


def test_passing_the_budget_compacts_before_the_next_request_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, PreCompact=[{"matcher": "auto", **sh("printf 'keep names'")}])
    model = Recording([echo("a"), say(SUMMARY), say("done")])
    agent = agent_in(root, model, compact_at_tokens=1)
    result = agent.run_sync("work")
    assert (result.stop_reason, result.final_text) == ("end_turn", "done")
    assert model.seen[1].tools == [] and "keep names" in model.seen[1].messages[-1].text
    [payload] = observed(root, "PreCompact")
    assert (payload["trigger"], payload["custom_instructions"]) == ("auto", None)
    [post] = observed(root, "PostCompact")
    assert post["trigger"] == "auto"
    [summary] = model.seen[2].messages  # the work goes on from the summary alone
    assert SUMMARY in summary.text and summary.text.endswith(GO_ON)
    assert len(archives(agent)) == 1


def test_under_the_budget_nothing_is_compacted(tmp_path: Path) -> None:
    root = project(tmp_path)
    model = Recording([echo("a"), say("done")])
    result = agent_in(root, model, compact_at_tokens=1_000_000).run_sync("work")
    assert result.final_text == "done" and len(model.seen) == 2
    assert observed(root, "PreCompact") == [] and not (root / POST_RAN).exists()


def test_an_automatic_compaction_a_hook_blocks_lets_the_run_go_on_uncompacted(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, PreCompact=[sh("exit 2")])
    model = Recording([echo("a"), echo("b", "toolu_2"), say("done")])
    result = agent_in(root, model, compact_at_tokens=1).run_sync("work")
    assert (result.stop_reason, result.final_text) == ("end_turn", "done")
    assert [len(r.messages) for r in model.seen] == [1, 3, 5]  # the whole conversation each time
    assert len(observed(root, "PreCompact")) == 2  # asked again before each later request
    assert not (root / POST_RAN).exists()


def test_a_subagents_conversation_is_never_compacted(tmp_path: Path) -> None:
    from dataclasses import replace

    agent = agent_in(project(tmp_path), Recording([]), compact_at_tokens=1)
    agent.session.messages = [Message.user("go"), Message.assistant("long " * 100)]
    assert due(agent.options, agent.session)
    agent.session.scope = replace(agent.session.scope, agent_id="a1", agent_type="Explore")
    assert not due(agent.options, agent.session)


def test_the_estimate_counts_the_last_reported_usage_and_the_characters_after_it() -> None:
    after = Message.user("x" * 400)
    counted = Message("assistant", (TextBlock("hi"),), Usage(1000, 50, 200, 0))
    assert (
        estimate_tokens([Message.user("y" * 4000), counted, after])
        == 1250 + len(json.dumps(after.to_dict())) // 4
    )
    unreported = [Message.user("y" * 4000)]
    assert estimate_tokens(unreported) == len(json.dumps(unreported[0].to_dict())) // 4


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "1000"])
def test_a_budget_that_is_no_token_count_is_a_config_error(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(ConfigError, match="compact_at_tokens"):
        Agent(Recording([]), cwd=tmp_path, compact_at_tokens=bad)


# -- a summary that fails -----------------------------------------------------------------------

FAILURES = {
    "model error": ([echo("a"), say("never")], [1], "the summary request failed: the provider"),
    "no text": ([echo("a"), say("")], [], "the model answered the summary request with no text"),
    "tool calls": (
        [echo("a"), echo("b", "toolu_2")],
        [],
        "the model answered the summary request with tool calls (echo), not a summary",
    ),
}


@pytest.mark.parametrize("kind", list(FAILURES))
def test_a_failed_automatic_summary_ends_the_run_and_leaves_session_and_audit_whole(
    tmp_path: Path, kind: str
) -> None:
    script, fail_at, detail = FAILURES[kind]
    root = project(tmp_path)
    model = Recording(script, fail_at=fail_at)
    agent = agent_in(root, model, compact_at_tokens=1, audit=True)
    result = agent.run_sync("work")
    assert result.stop_reason == "compaction_failed"
    assert (result.stop_detail or "").startswith(detail)
    assert [m.role for m in agent.session.messages] == ["user", "assistant", "user"]
    assert model.seen[1].messages[:-1] == agent.session.messages  # unchanged: what was asked
    assert archives(agent) == [] and not (root / POST_RAN).exists()
    lines = agent.session.transcript.path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["user", "assistant", "user"]
    state = root / ".hookline" / "state"
    with SqliteStore(state / "hookline.db") as store:
        rows = store.audit_rows()
        assert rows and verify_rows(rows) is None
    assert verify_jsonl(state / "audit.jsonl") is None


def test_a_failed_manual_summary_says_why_and_changes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    model = Recording([say("hello"), say("never")], fail_at=[1])
    agent = agent_in(root, model)
    done, before = compacted_after_a_run(agent)
    assert done.status == "failed" and (done.detail or "").startswith("the summary request failed")
    assert [m.text for m in agent.session.messages] == ["say hello", "hello"]
    assert agent.session.transcript.path.read_bytes() == before and archives(agent) == []
    assert not (root / POST_RAN).exists()


# -- the command line ---------------------------------------------------------------------------


def cli_project(root: Path, summary_turn: dict[str, Any]) -> Path:
    project(root)
    (root / "note.txt").write_text("a note\n")
    read = {"id": "toolu_1", "name": "Read", "input": {"file_path": str(root / "note.txt")}}
    turns = [{"tool_calls": [read]}, summary_turn, say("done")]
    (root / "script.json").write_text(json.dumps({"turns": turns}))
    return root


def test_compact_at_compacts_a_hookline_run(tmp_path: Path) -> None:
    root = cli_project(tmp_path, say(SUMMARY))
    args = ["run", "read note.txt", "--model", "scripted:script.json", "--compact-at", "1"]
    done = hookline_cli(*args, "--output-format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["subtype"], result["result"]) == ("success", "done")
    assert (root / POST_RAN).exists()
    assert len(list((root / ".hookline" / "state" / "transcripts").glob("*.pre-compact.jsonl")))


def test_a_failed_summary_in_a_hookline_run_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    root = cli_project(tmp_path, {"tool_calls": [{"id": "toolu_2", "name": "Read", "input": {}}]})
    args = ["run", "read note.txt", "--model", "scripted:script.json", "--compact-at", "1"]
    done = hookline_cli(*args, "--output-format", "json", cwd=root)
    assert done.returncode == 2
    result = json.loads(done.stdout)
    assert (result["subtype"], result["stop_reason"]) == (
        "error_during_execution",
        "compaction_failed",
    )
    assert "tool calls (Read)" in done.stderr and "Traceback" not in done.stderr
    assert not (root / POST_RAN).exists()
