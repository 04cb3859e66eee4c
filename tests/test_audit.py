"""The audit log: records from a real agent run, who, redaction, both hash chains, crash safety.

Every test that writes runs against the fake store below (which follows the ``Store`` audit
contract exactly), the real SQLite store, and PostgreSQL when HOOKLINE_TEST_POSTGRES_URL names
a server (CI starts one).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

import hookline
from hookline import Agent, Decision, ScriptedModel, ToolError
from hookline._errors import ConfigError
from hookline._tools.approvals import Approval, ApprovalRequest
from hookline.audit import (
    AuditError,
    AuditLog,
    Redactor,
    attach_audit,
    canonical,
    link,
    unfolded,
    verify_jsonl,
    verify_rows,
)
from hookline.audit._keyed import chain_key
from hookline.audit._marks import Mark, compare, marks_jsonl, missing_head, stored_mark
from hookline.audit._writer import COPY_DELAY, catch_up
from hookline.storage import AuditEntry, AuditRow, SqliteStore
from hookline.storage._base import chained
from postgres_schema import fresh_schema, query

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _as_kept(rows: Sequence[AuditRow], texts: Sequence[str] | None) -> list[AuditRow]:
    """Rows with the data a real store reads back: the text its writer gave, parsed."""
    if texts is None:
        return list(rows)
    return [dataclasses.replace(r, data=json.loads(t)) for r, t in zip(rows, texts, strict=True)]


class FakeStore:
    """An in-memory store: the audit half of the ``Store`` protocol, nothing more."""

    def __init__(self) -> None:
        self.rows: list[AuditRow] = []

    def append_audit(
        self,
        entries: Sequence[AuditEntry],
        chain: Callable[[str | None, AuditEntry], str],
        texts: Sequence[str] | None = None,
    ) -> list[AuditRow]:
        last = self.rows[-1] if self.rows else None
        seq, prev = (last.seq, last.hash) if last else (0, None)
        added = []
        for entry in entries:
            seq += 1
            digest = chain(prev, entry)
            fields = {f.name: getattr(entry, f.name) for f in dataclasses.fields(entry)}
            added.append(AuditRow(seq, digest, prev, **fields))
            prev = digest
        self.rows += _as_kept(added, texts)
        return added

    def audit_rows(self, *, session_id: str | None = None, tool: str | None = None,
                   decision: str | None = None, since: float | None = None,
                   until: float | None = None, after_seq: int | None = None,
                   limit: int | None = None) -> list[AuditRow]:  # fmt: skip
        rows = [
            r for r in self.rows
            if (session_id is None or r.session_id == session_id)
            and (tool is None or r.tool == tool) and (decision is None or r.decision == decision)
            and (since is None or r.time >= since) and (until is None or r.time < until)
            and (after_seq is None or r.seq > after_seq)
        ]  # fmt: skip
        return rows[:limit] if limit is not None else rows

    def copy_audit(self, rows: Sequence[AuditRow], texts: Sequence[str] | None = None) -> bool:
        last = self.rows[-1] if self.rows else None
        if not chained((last.seq, last.hash) if last else None, rows):
            return False
        self.rows += _as_kept(rows, texts)
        return True

    def last_audit(self) -> AuditRow | None:
        return self.rows[-1] if self.rows else None

    def close(self) -> None:
        pass


#: PostgreSQL too where a server is given (CI starts one: see tests/test_storage.py).
POSTGRES_URL = os.environ.get("HOOKLINE_TEST_POSTGRES_URL")
BACKENDS = ["fake", "sqlite", *(["postgres"] if POSTGRES_URL else [])]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "postgres":
        yield from postgres_store()
        return
    made: Any = FakeStore() if request.param == "fake" else SqliteStore(tmp_path / "hookline.db")
    yield made
    made.close()


def postgres_store() -> Iterator[Any]:
    """A PostgresStore in a schema of its own, dropped afterwards."""
    from hookline.storage import open_store

    with fresh_schema("hookline_audit") as (_, url):
        made: Any = open_store(url, state_dir=Path("."))
        made.sql = lambda sql: query(made.url, sql)
        try:
            yield made
        finally:
            made.close()


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def agent_for(tmp_path: Path, script: list[dict[str, Any]], tools: list[Any], **opts: Any) -> Agent:
    return Agent(ScriptedModel(script), tools=tools, cwd=tmp_path, **opts)


def call(tool: str, id: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": id, "name": tool, "input": tool_input}]}


# -- what is recorded ---------------------------------------------------------------------------


def test_hook_runs_tool_results_and_a_rewrite_diff_are_recorded(store, jsonl, tmp_path):
    ran: list[tuple[str, bool]] = []

    @hookline.tool
    def echo(text: str, loud: bool = False, note: str = "") -> str:
        """Say it."""
        ran.append((text, loud))
        return f"echo: {text}"

    script = [call("echo", "t1", text="hi", note="x"), {"text": "done"}]
    agent = agent_for(tmp_path, script, [echo])
    agent.registry.add("PreToolUse", lambda e: Decision.rewrite({"text": "HI", "loud": True}),
                       kind="transformer", name="shout")  # fmt: skip
    agent.registry.add("PreToolUse", lambda e: Decision.allow("fine"), name="gate")
    log = AuditLog(store, jsonl_path=jsonl)
    log.attach(agent)
    agent.run_sync("go")
    log.close()

    (started,) = [r for r in store.audit_rows(tool="echo") if r.kind == "tool_started"]
    hooks = [r for r in unfolded([started]) if r.kind == "hook"]  # they ride in the start
    assert [(r.event, r.data["hook"], r.decision) for r in hooks] == [
        ("PreToolUse", "shout", "rewrite"),
        ("PreToolUse", "gate", "allow"),
    ]
    shout, gate = hooks
    diff = {"changed": {"text": ["hi", "HI"]}, "added": {"loud": True}, "removed": ["note"]}
    assert shout.data["input_diff"] == diff
    assert shout.data["hook_kind"] == "transformer" and shout.data["source"] == "python"
    assert gate.data["reason"] == "fine" and gate.tool_use_id == "t1"
    assert "input_diff" not in gate.data and gate.data["duration_ms"] >= 0
    (tool,) = store.audit_rows(decision="executed")
    assert tool.kind == "tool" and tool.tool == "echo" and tool.tool_use_id == "t1"
    assert tool.data["input"] == {"text": "HI", "loud": True}
    assert tool.data["input_digest"] == hashlib_digest({"text": "HI", "loud": True})
    assert tool.data["output_digest"] == hashlib_digest("echo: HI")
    assert ran == [("HI", True)]
    assert [r["hash"] for r in records(jsonl)] == [r.hash for r in store.audit_rows()]


def test_hook_runs_of_a_call_cut_off_before_it_started_are_records_of_their_own(
    store, jsonl, tmp_path
):
    """A run cancelled while a call waits for its approval: the call never gets a record its
    PreToolUse run could ride in, so the run is written as a ``hook`` record of its own."""
    from hookline._tools.approvals import Approver

    asked, ran = asyncio.Event(), []

    class Waits(Approver):
        async def approve(self, request: ApprovalRequest) -> Approval:
            asked.set()
            await asyncio.Event().wait()  # nobody answers
            raise AssertionError("unreachable")

    @hookline.tool
    def wipe(path: str) -> str:
        """Delete a folder."""
        ran.append(path)  # the sentinel: must stay empty
        return "wiped"

    agent = agent_for(tmp_path, [call("wipe", "t1", path="/")], [wipe], approver=Waits())
    agent.registry.add("PreToolUse", lambda e: Decision.ask("a person must look"), name="asker")
    log = AuditLog(store, jsonl_path=jsonl)
    log.attach(agent)

    async def cut() -> None:
        task = asyncio.ensure_future(agent.run("go"))
        await asked.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await agent.close()

    asyncio.run(cut())
    log.close()
    assert ran == []
    (hook,) = [r for r in store.audit_rows() if r.kind == "hook"]
    assert (hook.event, hook.tool, hook.tool_use_id, hook.decision, hook.data["hook"]) == (
        "PreToolUse", "wipe", "t1", "ask", "asker")  # fmt: skip
    assert hook.data["reason"] == "a person must look" and "user" in hook.data
    assert not [r for r in store.audit_rows() if r.kind == "tool_started"]
    assert [r["hash"] for r in records(jsonl)] == [r.hash for r in store.audit_rows()]


def test_a_model_repeating_a_call_id_cannot_blur_which_call_a_hook_refused(store, jsonl, tmp_path):
    """A model that gives two calls of one reply the same id: the second is told apart
    (``t1~2``) before anything records it, so the deny stays on the call it refused, and the
    call it refused never runs."""
    ran: list[str] = []

    @hookline.tool
    def echo(text: str) -> str:
        """Say it."""
        ran.append(text)  # the sentinel: "rm" must never be in it
        return text

    twice = [{"id": "t1", "name": "echo", "input": {"text": t}} for t in ("rm", "ok")]
    agent = agent_for(tmp_path, [{"tool_calls": twice}, {"text": "done"}], [echo])
    agent.registry.add("PreToolUse", lambda e: Decision.deny("no rm") if e.tool_input["text"]
                       == "rm" else Decision.allow("fine"), name="gate")  # fmt: skip
    with AuditLog(store, jsonl_path=jsonl) as log:
        log.attach(agent)
        result = agent.run_sync("go")
    assert ran == ["ok"]
    assert [(c.call.id, c.status) for c in result.tool_calls] == [
        ("t1", "blocked"), ("t1~2", "executed")]  # fmt: skip
    lines = [(r.kind, r.tool_use_id, r.decision) for r in unfolded(store.audit_rows())]
    assert lines == [("hook", "t1", "deny"), ("tool", "t1", "blocked"),
                     ("hook", "t1~2", "allow"), ("tool_started", "t1~2", "allow"),
                     ("tool", "t1~2", "executed")]  # fmt: skip


def hashlib_digest(value: Any) -> str:
    import hashlib

    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_denied_call_is_recorded_as_blocked_and_its_tool_never_ran(store, jsonl, tmp_path):
    ran: list[str] = []

    @hookline.tool
    def wipe(path: str) -> str:
        """Delete a folder."""
        ran.append(path)  # the sentinel: must stay empty
        return "wiped"

    agent = agent_for(tmp_path, [call("wipe", "t1", path="/"), {"text": "ok"}], [wipe])
    agent.registry.add("PreToolUse", lambda e: Decision.deny("never wipe /"), name="no_wipe")
    with AuditLog(store, jsonl_path=jsonl) as log:
        log.attach(agent)
        agent.run_sync("wipe it")
    assert ran == []
    (deny,) = [r for r in unfolded(store.audit_rows()) if r.decision == "deny"]
    assert (deny.kind, deny.event, deny.tool, deny.data["reason"]) == (
        "hook", "PreToolUse", "wipe", "never wipe /")  # fmt: skip
    (blocked,) = store.audit_rows(decision="blocked")
    assert deny.seq == blocked.seq  # the hook run is kept in the blocked call's record
    assert blocked.kind == "tool" and blocked.data["reason"] == "never wipe /"
    assert "output_digest" not in blocked.data


def test_a_failed_tool_and_a_failing_hook_are_recorded(store, jsonl, tmp_path):
    @hookline.tool
    def flaky(n: int) -> str:
        """Fail."""
        raise ToolError("the service is down")

    def broken(event: Any) -> None:
        raise RuntimeError("bug in hook")

    agent = agent_for(tmp_path, [call("flaky", "t1", n=1), {"text": "ok"}], [flaky])
    agent.registry.add("PostToolUseFailure", broken, kind="observer", name="broken")
    with AuditLog(store, jsonl_path=jsonl) as log:
        log.attach(agent)
        agent.run_sync("go")
    (failed,) = store.audit_rows(decision="failed")
    assert failed.data["reason"] == "the service is down" and failed.tool == "flaky"
    (hook,) = [r for r in unfolded(store.audit_rows()) if r.event == "PostToolUseFailure"]
    assert hook.data["failure"] == "exception" and "bug in hook" in hook.data["error"]


def test_approvals_record_who_answered_and_the_edited_input(store, jsonl):
    request = ApprovalRequest(
        "s1", "t9", "Bash", {"command": "rm -rf build", "timeout": 5},
        reason="asks", source="hook:guard", user="ana", tenant="acme")  # fmt: skip
    with AuditLog(store, jsonl_path=jsonl) as log:
        log.record_approval(request, Approval.edit({"command": "rm -rf build/tmp"},
                                                   approver="terminal"))  # fmt: skip
        assert len(records(jsonl)) == 1  # an approval is written at once (to the file)
    (row,) = store.audit_rows()
    assert (row.kind, row.session_id, row.tool_use_id, row.tool, row.decision) == (
        "approval", "s1", "t9", "Bash", "allow")  # fmt: skip
    assert row.data["answered_by"] == "terminal" and row.data["asked_by"] == "hook:guard"
    assert row.data["input_diff"] == {
        "changed": {"command": ["rm -rf build", "rm -rf build/tmp"]},
        "removed": ["timeout"],
    }
    assert (row.data["user"], row.data["tenant"]) == ("ana", "acme")


@pytest.mark.skipif(
    "approver" not in {f.name for f in dataclasses.fields(hookline.AgentOptions)},
    reason="approvers are not in this tree yet",
)
def test_a_call_a_person_approved_says_who_in_its_tool_record(store, jsonl, tmp_path, spy):
    from hookline._tools.approvals import Approver

    class Yes(Approver):
        async def approve(self, request: ApprovalRequest) -> Approval:
            return Approval.allow(approver="terminal")

    script = [call("echo", "t1", text="a"), {"text": "ok"}]
    agent = agent_for(tmp_path, script, [spy().tool], approver=Yes())
    agent.registry.add("PreToolUse", lambda e: Decision.ask("a person must look"), name="asker")
    with AuditLog(store, jsonl_path=jsonl) as log:
        log.attach(agent)
        agent.run_sync("go")
    (ask,) = [r for r in unfolded(store.audit_rows()) if r.decision == "ask"]
    assert ask.data["reason"] == "a person must look"
    (tool,) = store.audit_rows(decision="executed")
    assert tool.data["approver"] == "terminal"


def test_every_record_says_who_and_in_which_session(store, jsonl, tmp_path, spy):
    agent = agent_for(tmp_path, [call("echo", "t1", text="a"), {"text": "ok"}], [spy().tool],
                      user="ana", tenant="acme")  # fmt: skip
    agent.registry.add("PreToolUse", lambda e: None, name="look")
    agent.registry.add("UserPromptSubmit", lambda e: Decision.context(f"user is {e.user}"))
    with AuditLog(store, jsonl_path=jsonl, user="fallback", tenant="t0") as log:
        log.attach(agent)
        agent.run_sync("go")
    rows = store.audit_rows()  # UserPromptSubmit's hook; the start (with PreToolUse's); the call
    assert [r.kind for r in rows] == ["hook", "tool_started", "tool"]
    assert [r.kind for r in unfolded(rows)] == ["hook", "hook", "tool_started", "tool"]
    for row in unfolded(rows):
        assert row.session_id == agent.session.id
        assert (row.data["user"], row.data["tenant"]) == ("ana", "acme")

    other = agent_for(tmp_path, [{"text": "ok"}], [])
    other.registry.add("UserPromptSubmit", lambda e: None)
    with AuditLog(store, jsonl_path=jsonl, user="fallback", tenant="t0") as log:
        log.attach(other)
        other.run_sync("go")
    (row,) = store.audit_rows(session_id=other.session.id)
    assert (row.data["user"], row.data["tenant"]) == ("fallback", "t0")


def test_records_are_written_when_a_call_ends_or_an_event_is_done(store, jsonl, tmp_path, spy):
    agent = agent_for(tmp_path, [call("echo", "t1", text="a"), {"text": "ok"}], [spy().tool])
    agent.registry.add("SessionStart", lambda e: Decision.context("hello"), name="hello")
    agent.registry.add("PreToolUse", lambda e: None, name="look")
    log = AuditLog(store, jsonl_path=jsonl)
    log.attach(agent)
    seen: list[tuple[str, int]] = []

    def after_mine(item: Any) -> None:  # watchers run in order: the audit's went first
        if isinstance(item, hookline.ToolResult):
            seen.append((item.call.id, len(records(jsonl))))

    agent.watch(after_mine)

    asyncio.run(agent.start())
    assert [r["event"] for r in records(jsonl)] == ["SessionStart"]  # no flush() was needed
    agent.run_sync("go")
    assert seen == [("t1", 3)]  # SessionStart, the start (and PreToolUse's run), the call
    log.close()


@pytest.mark.skipif(not hasattr(Agent, "store"), reason="Agent.store is not in this tree yet")
def test_attach_audit_writes_to_the_agents_store_even_after_it_reopens(tmp_path, spy):
    script = [call("echo", "t1", text="a"), {"text": "ok"}, call("echo", "t2", text="b")]
    agent = agent_for(tmp_path, [*script, {"text": "ok"}], [spy().tool])
    log = attach_audit(agent)
    agent.run_sync("go")  # closes the agent, and with it its store
    agent.run_sync("again")  # the store opens anew; the audit follows it
    log.close()
    state = tmp_path / ".hookline" / "state"
    calls = ["t1", "t1", "t2", "t2"]  # each call's start, then its result
    assert [r["tool_use_id"] for r in records(state / "audit.jsonl")] == calls
    with SqliteStore(state / "hookline.db") as store:
        assert [r.tool_use_id for r in store.audit_rows()] == calls


def test_detach_stops_recording(store, jsonl, tmp_path, spy):
    agent = agent_for(tmp_path, [call("echo", "t1", text="a"), {"text": "ok"}], [spy().tool])
    log = AuditLog(store, jsonl_path=jsonl)
    log.attach(agent)()
    agent.run_sync("go")
    log.close()
    assert store.audit_rows() == [] and not jsonl.exists()


# -- redaction ---------------------------------------------------------------------------------

#: kind -> (text holding the secret, the part that must never be written, what stays)
SECRETS = {
    "openai": ("key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4", "A1b2C3d4E5f6G7h8I9j0", "sk-proj-…"),
    "anthropic": ("sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2", "Zx9Yw8Vu7Ts6Rq5", "sk-ant-api03-…"),
    "aws": ("id AKIAIOSFODNN7EXAMPLE end", "IOSFODNN7EXAMPLE", "AKIA…"),
    "github": ("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "aBcDeFgHiJkLmNoPqRsTu", "ghp_…"),
    "github_pat": ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "11ABCDEFG01234567",
                   "github_pat_…"),
    "slack": ("xoxb-123456789012-abcdefghijkl", "123456789012-abcdef", "xoxb-…"),
    "authorization": ("Authorization: Bearer q1w2e3r4t5y6u7i8o9p0", "q1w2e3r4t5y6u7i8o9p0",
                      "Authorization: Bearer …"),
    "bearer": ("curl -H 'X: Bearer 9z8y7x6w5v4u3t2s1r0q'", "9z8y7x6w5v4u3t2s1r0q", "Bearer …"),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
            "dBjftJeZ4CVPmB92K27uhbUJU1p1r", "eyJ…"),
    "pem": ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----",
            "MIIEpAIBAAKCAQEA7bq", "-----BEGIN RSA PRIVATE KEY-----…"),
    "password": ("mysql -u root password=hunter2hunter2 -h db", "hunter2hunter2", "password=…"),
    "json_password": ('{"password": "correct horse battery"}', "correct horse battery",
                      '"password": "…'),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_redactor_masks_each_kind_of_secret_and_keeps_a_prefix(kind):
    text, secret, kept = SECRETS[kind]
    masked = Redactor().text(f"before {text} after")
    assert secret not in masked
    assert f"{kept}[REDACTED]" in masked
    assert masked.startswith("before ") and masked.rstrip().endswith("after")


def test_redactor_masks_values_under_secret_keys_and_leaves_lookalikes_alone():
    redactor = Redactor()
    value = {"db_password": "pw1", "headers": {"Authorization": "Basic abc"}, "max_tokens": 5,
             "diff": {"api_key": ["old", "new"]}, "note": "task-abcdefghijklmnopqrstuvwxyz0",
             7: (1.5, float("nan"))}  # fmt: skip
    assert redactor.redact(value) == {
        "db_password": "[REDACTED]", "headers": {"Authorization": "[REDACTED]"},
        "max_tokens": 5, "diff": {"api_key": ["[REDACTED]", "[REDACTED]"]},
        "note": "task-abcdefghijklmnopqrstuvwxyz0", "7": [1.5, "nan"],
    }  # fmt: skip
    assert redactor.text("the tokens: 5 and PWD=/home/x") == "the tokens: 5 and PWD=/home/x"


def test_redactor_masks_configured_patterns_and_refuses_bad_ones():
    redactor = Redactor([r"ORDER-\d{4,}", r"(?i:internal-[a-z]+)"])
    assert redactor.text("ORDER-12345 Internal-Zeus sk-proj-abcdefghijklmnopqrstu") == (
        "[REDACTED] [REDACTED] sk-proj-…[REDACTED]"
    )
    with pytest.raises(ConfigError, match="not a valid regular expression"):
        Redactor(["(unclosed"])
    with pytest.raises(ConfigError, match="empty string"):
        Redactor(["x*"])


def test_no_secret_reaches_the_file_or_the_store(store, jsonl, tmp_path):
    texts = " | ".join(text for text, _, _ in SECRETS.values())

    @hookline.tool
    def echo(text: str) -> dict[str, str]:
        """Echo, with the secrets again in the output."""
        return {"said": text, "env": texts}

    script = [call("echo", "t1", text=texts), call("echo", "t2", text="deny me"), {"text": "ok"}]
    agent = agent_for(tmp_path, script, [echo])
    agent.registry.add("PreToolUse", lambda e: Decision.rewrite({"text": e.tool_input["text"] +
                       texts}), kind="transformer", name="add")  # fmt: skip
    agent.registry.add("PreToolUse", lambda e: Decision.deny(f"no: {texts}")
                       if "deny" in e.tool_input["text"] else Decision.context(texts))  # fmt: skip
    agent.registry.add("PostToolUse", lambda e: Decision.replace_output(texts),
                       kind="transformer", name="swap")  # fmt: skip
    with AuditLog(store, jsonl_path=jsonl, redactor=Redactor([r"deny me"])) as log:
        log.attach(agent)
        agent.run_sync(texts)
    written = jsonl.read_text() + json.dumps([r.data for r in store.audit_rows()])
    rows = store.audit_rows()  # t1 started and done, t2 blocked: five hook runs inside them
    assert (len(rows), len(list(unfolded(rows)))) == (3, 8) and "[REDACTED]" in written
    for text, secret, _ in SECRETS.values():
        assert secret not in written, text
    assert "deny me" not in written


# -- the hash chains ---------------------------------------------------------------------------


def filled(store: Any, jsonl: Path, count: int = 5) -> AuditLog:
    log = AuditLog(store, jsonl_path=jsonl)
    for n in range(count):
        log.add(AuditEntry(kind="hook", session_id="s", tool=f"t{n}", data={"n": n}))
        log.flush()
    return log


def rewrite(path: Path, change: Callable[[list[str]], list[str]]) -> None:
    path.write_text("".join(change(path.read_text().splitlines(keepends=True))))


def test_link_hashes_the_previous_hash_and_the_canonical_record():
    entry = AuditEntry(kind="hook", time=1.0, data={"b": 1, "a": "é"})
    body = '{"data":{"a":"é","b":1},"decision":null,"event":null,"kind":"hook",' \
           '"session_id":null,"time":1.0,"tool":null,"tool_use_id":null}'  # fmt: skip
    assert canonical(entry) == body.encode()
    import hashlib

    assert link("abc", entry) == hashlib.sha256(b"abc" + body.encode()).hexdigest()
    assert link(None, entry) == hashlib.sha256(body.encode()).hexdigest()


def test_an_untouched_log_verifies(store, jsonl):
    filled(store, jsonl).close()
    assert verify_rows(store.audit_rows()) is None and verify_jsonl(jsonl) is None
    assert [r["seq"] for r in records(jsonl)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("change", "kind", "line"),
    [
        (lambda ls: [*ls[:2], ls[2].replace('"n":2', '"n":9'), *ls[3:]], "edited", 3),
        (lambda ls: [*ls[:2], *ls[3:]], "deleted", 3),
        (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], "reordered", 2),
        (lambda ls: ls[1:], "deleted", 1),
        (lambda ls: [*ls[:2], "not json\n", *ls[3:]], "malformed", 3),
        (lambda ls: [*ls[:4], ls[4].replace('"n":4', '"n":4,"x":1')], "edited", 5),
    ],
    ids=["edited", "deleted", "reordered", "first-deleted", "malformed", "key-added"],
)
def test_verify_jsonl_names_the_first_broken_line(store, jsonl, change, kind, line):
    filled(store, jsonl).close()
    rewrite(jsonl, change)
    problem = verify_jsonl(jsonl)
    assert problem is not None and (problem.kind, problem.line) == (kind, line)
    assert problem.tampered


def test_a_partial_last_line_is_a_crash_artefact_and_the_next_writer_cuts_it(store, jsonl):
    filled(store, jsonl, 3).close()
    with open(jsonl, "ab") as file:
        file.write(b'{"seq":4,"prev_hash":"ab')  # what a write cut short leaves
    problem = verify_jsonl(jsonl)
    assert problem is not None and (problem.kind, problem.line, problem.tampered) == (
        "truncated", 4, False)  # fmt: skip
    log = filled(store, jsonl, 1)
    log.close()
    assert verify_jsonl(jsonl) is None and [r["seq"] for r in records(jsonl)] == [1, 2, 3, 4]


def test_a_removed_or_replaced_file_is_reopened_not_written_into_the_void(store, jsonl):
    log = filled(store, jsonl, 2)
    jsonl.unlink()
    log.add(AuditEntry(kind="hook", data={"n": 2}))
    log.flush()
    assert [r["seq"] for r in records(jsonl)] == [1] and verify_jsonl(jsonl) is None
    jsonl.with_suffix(".new").write_text("")
    jsonl.with_suffix(".new").replace(jsonl)  # rotated: a new, empty file under the name
    log.add(AuditEntry(kind="hook", data={"n": 3}))
    log.close()
    assert [r["data"]["n"] for r in records(jsonl)] == [3]
    assert [r.data["n"] for r in store.audit_rows()] == [0, 1, 2, 3]


def test_a_writer_refuses_to_chain_onto_an_edited_last_line(store, jsonl):
    filled(store, jsonl, 2).close()
    rewrite(jsonl, lambda ls: [ls[0], "garbage\n"])
    log = AuditLog(store, jsonl_path=jsonl)
    log.add(AuditEntry(kind="hook"))
    with pytest.raises(AuditError, match="not an audit record"):
        log.flush()


def tamper(store: Any, sql: str, *params: Any) -> None:
    if isinstance(store, FakeStore):
        rows = {r.seq: r for r in store.rows}
        if sql.startswith("UPDATE"):
            rows[3] = dataclasses.replace(rows[3], data={"n": 9})
        else:
            del rows[3]
        store.rows = list(rows.values())
    elif hasattr(store, "sql"):  # PostgreSQL
        store.sql(sql)
    else:
        with sqlite3.connect(store.path) as conn:
            conn.execute(sql, params)


@pytest.mark.parametrize(
    ("sql", "kind"),
    [("UPDATE hookline_audit SET data = '{\"n\":9}' WHERE seq = 3", "edited"),
     ("DELETE FROM hookline_audit WHERE seq = 3", "deleted")],
    ids=["update", "delete"],
)  # fmt: skip
def test_verify_rows_finds_an_edited_or_deleted_store_row(store, jsonl, sql, kind):
    filled(store, jsonl).close()
    tamper(store, sql)
    problem = verify_rows(store.audit_rows())
    assert problem is not None and (problem.kind, problem.seq) == (
        kind,
        3 if kind == "edited" else 4,
    )


def test_a_failed_copy_to_the_store_raises_and_keeps_the_records_for_the_next(jsonl):
    class Down(FakeStore):
        down = True

        def copy_audit(self, rows: Any, texts: Any = None) -> bool:
            if self.down:
                raise sqlite3.OperationalError("disk I/O error")
            return super().copy_audit(rows, texts)

    store = Down()
    log = AuditLog(store, jsonl_path=jsonl)
    log.add(AuditEntry(kind="hook", data={"n": 1}))
    with pytest.raises(AuditError, match="disk I/O error"):
        log.flush(copy=True)
    assert len(records(jsonl)) == 1 and store.rows == []  # acknowledged: in the file
    store.down = False
    assert log.flush(copy=True) is not None
    assert [r.data for r in store.rows] == [{"n": 1}] and len(records(jsonl)) == 1


def test_a_store_down_never_stops_a_call_the_file_says_started(jsonl, tmp_path, monkeypatch):
    """The copy is due at every flush here, but not at the write ahead of a body: the call the
    file says started does run; the run stops after it, at the copy that fails."""
    monkeypatch.setattr("hookline.audit._writer.COPY_DELAY", 0.0)

    class Down(FakeStore):
        def copy_audit(self, rows: Any, texts: Any = None) -> bool:
            raise sqlite3.OperationalError("the server closed the connection")

    ran: list[int] = []

    @hookline.tool
    def pay(n: int) -> str:
        """Pay."""
        ran.append(n)
        return "paid"

    agent = agent_for(tmp_path, [call("pay", "t1", n=1), call("pay", "t2", n=2)], [pay])
    store = Down()
    AuditLog(store, jsonl_path=jsonl).attach(agent)
    with pytest.raises(AuditError, match="closed the connection"):
        agent.run_sync("go")
    assert ran == [1]  # started, so it ran; the run stopped before the next call
    assert [(r["kind"], r["tool_use_id"]) for r in records(jsonl)] == [
        ("tool_started", "t1"), ("tool", "t1")]  # fmt: skip
    assert store.rows == []


def test_a_failed_file_write_raises_and_keeps_the_records(store, jsonl):
    log = AuditLog(store, jsonl_path=jsonl)
    full = OSError(28, "No space left on device")
    with patch.object(log.file, "append", side_effect=full):
        log.add(AuditEntry(kind="hook", data={"n": 1}))
        with pytest.raises(AuditError, match="No space left"):
            log.flush(copy=True)
    assert (records(jsonl) if jsonl.exists() else []) == [] and store.audit_rows() == []
    log.close()  # the record waited, and is written now
    assert [r["data"] for r in records(jsonl)] == [{"n": 1}]
    assert [r.data for r in store.audit_rows()] == [{"n": 1}]


# -- the store, copied from the file in groups ---------------------------------------------------


def same_copies(store: Any, jsonl: Path) -> bool:
    return compare(marks_jsonl(jsonl), store_marks(store)) is None


def test_the_store_gets_the_files_records_in_groups_with_the_same_seq_and_hash(store, jsonl):
    log = filled(store, jsonl, 3)  # each flush written to the file: acknowledged
    assert [r["data"]["n"] for r in records(jsonl)] == [0, 1, 2] and store.audit_rows() == []
    for n in range(3, 256):
        log.add(AuditEntry(kind="hook", data={"n": n}))
        log.flush()
    assert len(store.audit_rows()) == 256 and same_copies(store, jsonl)  # a group's worth
    assert stored_mark(jsonl) == store_marks(store)[-1]  # noted beside the file
    log.close()


def test_a_copy_is_due_a_second_after_the_oldest_record_waiting(store, jsonl, monkeypatch):
    log = filled(store, jsonl, 1)
    assert store.audit_rows() == []
    clock = time.monotonic() + COPY_DELAY
    monkeypatch.setattr("hookline.audit._writer.monotonic", lambda: clock)
    log.add(AuditEntry(kind="hook", data={"n": 1}))
    log.flush()
    assert [r.data["n"] for r in store.audit_rows()] == [0, 1] and same_copies(store, jsonl)
    log.close()


def test_the_next_writer_copies_what_a_killed_one_left_in_the_file(store, jsonl):
    dead = filled(store, jsonl, 3)
    dead._uncopied.clear()  # killed before its copy: the records are in the file only
    heir = AuditLog(store, jsonl_path=jsonl)
    heir.add(AuditEntry(kind="hook", data={"n": 3}))
    heir.close()
    assert [r.data["n"] for r in store.audit_rows()] == [0, 1, 2, 3]
    assert same_copies(store, jsonl) and verify_rows(store.audit_rows()) is None


def test_writers_sharing_a_file_copy_each_others_records_in_the_files_order(store, jsonl):
    one, two = AuditLog(store, jsonl_path=jsonl), AuditLog(store, jsonl_path=jsonl)
    for n in range(6):
        writer = (one, two)[n % 2]
        writer.add(AuditEntry(kind="hook", data={"n": n}))
        writer.flush()
    two.close()  # copies one's records too: they come first in the file
    assert [r.data["n"] for r in store.audit_rows()] == list(range(6))
    one.close()  # its own were copied already: nothing twice
    assert [r.data["n"] for r in store.audit_rows()] == list(range(6))
    assert same_copies(store, jsonl)


def test_a_record_edited_in_the_file_before_its_copy_is_not_copied(store, jsonl):
    dead = filled(store, jsonl, 3)
    dead._uncopied.clear()
    rewrite(jsonl, lambda ls: [ls[0], ls[1].replace('"n":1', '"n":7'), ls[2]])
    heir = AuditLog(store, jsonl_path=jsonl)
    heir.add(AuditEntry(kind="hook", data={"n": 3}))
    with pytest.raises(AuditError, match="the record after seq 1 was edited"):
        heir.flush(copy=True)
    assert store.audit_rows() == []  # nothing edited reached the store
    with pytest.raises(AuditError):
        catch_up(jsonl, store)


def test_a_long_stretch_is_copied_in_steps_each_kept_up_to_an_edited_record(
    store, jsonl, monkeypatch
):
    monkeypatch.setattr("hookline.audit._chained_file._BATCH", 2)
    dead = filled(store, jsonl, 7)
    dead._uncopied.clear()  # seven records in the file only
    rewrite(jsonl, lambda ls: [*ls[:5], ls[5].replace('"n":5', '"n":9'), ls[6]])
    with pytest.raises(AuditError, match="the record after seq 5 was edited"):
        catch_up(jsonl, store)
    assert [r.data["n"] for r in store.audit_rows()] == [0, 1, 2, 3]  # two steps taken
    assert stored_mark(jsonl) == store_marks(store)[-1]


def test_a_link_planted_as_the_copy_note_is_not_written_through(store, jsonl, tmp_path):
    target = tmp_path / "bashrc"
    target.write_text("export SAFE=1\n")
    jsonl.with_suffix(".stored").symlink_to(target)
    log = filled(store, jsonl, 1)
    with pytest.raises(AuditError, match="could not be written"):
        log.flush(copy=True)
    assert target.read_text() == "export SAFE=1\n"  # the sentinel: untouched


def test_a_store_that_follows_other_files_keeps_its_own_chain(store, jsonl, tmp_path):
    elsewhere = filled(store, tmp_path / "other.jsonl", 2)  # another project's file
    elsewhere.close()
    log = filled(store, jsonl, 2)
    log.close()
    rows = store.audit_rows()
    assert [r.data["n"] for r in rows] == [0, 1, 0, 1] and verify_rows(rows) is None
    assert [r["seq"] for r in records(jsonl)] == [1, 2]  # the file's chain is its own


def test_a_float_json_cannot_hold_is_null_in_the_file_and_the_store_alike(store, jsonl):
    """The file never holds what its copy could not: a NaN (which hookline's own records never
    hold: the redactor writes it as text) is null in both, and both verify."""
    log = AuditLog(store, jsonl_path=jsonl)
    log.add(AuditEntry(kind="hook", data={"x": math.nan, "y": 1}))
    log.flush(copy=True)
    [written] = records(jsonl)
    assert written["data"] == {"x": None, "y": 1}
    assert [row.data for row in store.audit_rows()] == [{"x": None, "y": 1}]
    assert verify_jsonl(jsonl) is None and verify_rows(store.audit_rows()) is None


def test_a_record_the_store_would_refuse_is_refused_before_the_file(store, jsonl):
    """One orjson cannot encode (a lone surrogate) falls back to the strict encoding, which
    refuses a NaN beside it: before the file, else no copy could ever take it."""
    log = AuditLog(store, jsonl_path=jsonl)
    log.add(AuditEntry(kind="hook", data={"x": math.nan, "said": "\ud800"}))
    with pytest.raises(AuditError, match=r"not JSON compliant"):
        log.flush()
    assert not jsonl.exists() or records(jsonl) == []


# -- attacks on the file written first, and on its copy ----------------------------------------


def test_a_link_planted_as_the_audit_file_is_not_written_through(store, jsonl, tmp_path):
    """A link in the file's place would have the writer append to the file it names, and cut
    that file's last line (it looks like a line a crash left half written)."""
    target = tmp_path / "notes.txt"
    target.write_text("keep this\nand this last line")  # no newline at the end
    jsonl.symlink_to(target)
    log = AuditLog(store, jsonl_path=jsonl)
    log.add(AuditEntry(kind="hook", data={"n": 1}))
    with pytest.raises(AuditError, match="is a symbolic link"):
        log.flush()
    with pytest.raises(AuditError, match="is a symbolic link"):
        catch_up(jsonl, store)  # what `hookline audit` runs first
    assert target.read_text() == "keep this\nand this last line"  # the sentinel: untouched
    assert store.audit_rows() == []


def test_an_edited_last_line_is_refused_before_anything_is_cut(store, jsonl):
    filled(store, jsonl, 2).close()
    edited = records_text(jsonl)[0] + "an edited line\n" + "and one without its newline"
    jsonl.write_text(edited)
    log = AuditLog(store, jsonl_path=jsonl)
    log.add(AuditEntry(kind="hook"))
    with pytest.raises(AuditError, match="not an audit record"):
        log.flush()
    assert jsonl.read_text() == edited  # the evidence stays for `hookline audit verify`


def test_a_tail_forged_before_its_copy_reaches_the_store_as_it_was_written(store, jsonl):
    """Whoever holds the key and rewrites the file's newest records, hashes and links made
    good, before the writer copies them: the writer copies what it wrote, and the copies then
    differ."""
    log = filled(store, jsonl, 3)  # in the file, waiting for their copy
    key = chain_key(create=False)

    def forged(lines: list[str]) -> list[str]:
        prev, out = None, []
        for line in lines:
            record = json.loads(line)
            if record["data"]["n"] == 1:
                record["data"]["n"] = 100  # the forgery
            record["prev_hash"], record["hash"] = prev, link(prev, record, key)
            prev = record["hash"]
            out.append(json.dumps(record, separators=(",", ":")) + "\n")
        return out

    rewrite(jsonl, forged)
    assert verify_jsonl(jsonl) is None  # the file alone cannot tell
    log.close()
    assert [r.data["n"] for r in store.audit_rows()] == [0, 1, 2]  # what was written
    mismatch = compare(marks_jsonl(jsonl), store_marks(store))
    assert mismatch is not None and mismatch.seq == 2 and "differs" in mismatch.detail


HOSTILE = [
    '\n{"seq":99,"prev_hash":null,"hash":"00",',  # a line head of its own, after a newline
    "\u2028\u2029\x85 breaks JavaScript and str.splitlines see",
    '"}\n\r{"',
    "\ud800 a lone surrogate",
]


def test_hostile_data_is_one_record_a_line_through_a_copy_from_the_file(store, jsonl):
    dead = AuditLog(store, jsonl_path=jsonl)
    for n, text in enumerate(HOSTILE):
        dead.add(AuditEntry(kind="hook", tool_use_id=text, data={"n": n, "said": text}))
        dead.flush()
    dead._uncopied.clear()  # killed before its copy: the heir copies from the file
    assert catch_up(jsonl, store) == len(HOSTILE)
    rows = store.audit_rows()
    assert [r.data for r in rows] == [{"n": n, "said": t} for n, t in enumerate(HOSTILE)]
    assert len(records_text(jsonl)) == len(HOSTILE) and same_copies(store, jsonl)


@pytest.mark.parametrize("note", ["folder", "bytes", "words"])
def test_a_copy_note_that_is_not_one_reads_as_none(jsonl, note):
    filled(None, jsonl, 1).close()
    path = jsonl.with_suffix(".stored")
    if note == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"\xff\xfe\x00" if note == "bytes" else b"twelve deadbeef\n")
    assert stored_mark(jsonl) is None


# -- several processes, and SIGKILL ------------------------------------------------------------

WRITER = """
import sys
from pathlib import Path
from hookline.audit import AuditLog
from hookline.storage import AuditEntry, SqliteStore
state, tag, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
log = AuditLog(SqliteStore(state / "hookline.db"), jsonl_path=state / "audit.jsonl")
for n in range(count):
    for k in range(1 + n % 3):
        log.add(AuditEntry(kind="hook", session_id=tag, data={"n": n, "k": k}))
    log.flush()
log.close()
"""

AGENT = """
import sys
from pathlib import Path
from hookline import Agent, Decision, Message, ToolCall, tool
from hookline.audit import AuditLog

class Endless:
    name = "endless"
    calls = 0

    async def complete(self, messages, tools, *, system=None):
        self.calls += 1
        n = self.calls
        return Message.assistant("", (ToolCall(f"{sys.argv[2]}-{n}", "work", {"n": n}),))

@tool
def work(n: int) -> str:
    "Work."
    return f"did {n} with sk-proj-abcdefghijklmnopqrstuvwxyz"

class Printing(AuditLog):
    def flush(self, **how):
        done = super().flush(**how)
        if done is not None and done.records:  # one write: a line is whole, or not there
            sys.stdout.write(f"{done.file_seq}\\n")
            sys.stdout.flush()
        return done

agent = Agent(Endless(), tools=[work], cwd=sys.argv[1], max_turns=10**9)
agent.registry.add("PreToolUse", lambda e: Decision.allow("ok"), name="ok")
agent.registry.add("PostToolUse", lambda e: Decision.context("noted"), name="note")
Printing.open(Path(sys.argv[1]) / ".hookline" / "state").attach(agent)
agent.run_sync("work forever")
"""


def child(tmp_path: Path, code: str, *args: str) -> subprocess.Popen[bytes]:
    """A Python process running ``code``. The script is put in place whole (``os.replace``):
    rewritten in place for a second child, it was once read empty by the first, which then
    ran nothing and exited 0."""
    script = tmp_path / "child.py"
    draft = tmp_path / f"child.py.{time.monotonic_ns()}"
    draft.write_text(code)
    os.replace(draft, script)
    env = {**os.environ, "PYTHONPATH": SRC}
    cmd = [sys.executable, str(script), *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)


def test_processes_sharing_the_file_and_the_store_keep_both_chains(tmp_path):
    state = tmp_path / "state"
    procs = [child(tmp_path, WRITER, str(state), tag, "150") for tag in ("a", "b", "c")]
    assert [p.communicate(timeout=60)[0] for p in procs] == [b"", b"", b""]
    assert [p.returncode for p in procs] == [0, 0, 0]
    store = SqliteStore(state / "hookline.db")
    rows = store.audit_rows()
    assert verify_rows(rows) is None and verify_jsonl(state / "audit.jsonl") is None
    lines = records(state / "audit.jsonl")
    assert len(rows) == len(lines) == 3 * (50 * 1 + 50 * 2 + 50 * 3)
    # flushes interleave as whole blocks, in the same order in both (the file lock spans both)
    assert [r.hash for r in rows] == [line["hash"] for line in lines]
    for tag in ("a", "b", "c"):
        assert [(r.data["n"], r.data["k"]) for r in rows if r.session_id == tag] == [
            (n, k) for n in range(150) for k in range(1 + n % 3)]  # fmt: skip
    store.close()


def test_sigkill_at_any_moment_loses_no_acknowledged_record(tmp_path):
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    acknowledged: list[int] = []
    for round in range(6):
        proc = child(tmp_path, AGENT, str(tmp_path), f"r{round}")
        assert proc.stdout is not None
        first = proc.stdout.readline()  # it is running and writing
        time.sleep(rng.uniform(0.0, 0.25))
        proc.kill()
        rest, _ = proc.communicate()
        for line in (first + rest).decode().splitlines():
            if line.isdigit():  # a line cut by the kill is no ack: it has no newline
                acknowledged.append(int(line))
    state = tmp_path / ".hookline" / "state"
    store = SqliteStore(state / "hookline.db")
    catch_up(state / "audit.jsonl", store)  # what the last one killed did not copy yet
    rows = {r.seq: r for r in store.audit_rows()}
    store.close()
    assert verify_rows(rows.values()) is None, seed
    problem = verify_jsonl(state / "audit.jsonl")
    assert problem is None or not problem.tampered, (seed, problem)
    lines, hashes = {}, {}
    for text in (state / "audit.jsonl").read_bytes().split(b"\n")[:-1]:  # complete lines
        record = json.loads(text)
        lines[record["seq"]], hashes[record["seq"]] = canonical(record), record["hash"]
    assert len(acknowledged) > 20, seed
    for seq in acknowledged:  # in the file, and in the store at the same place
        assert canonical(rows[seq]) == lines[seq] and rows[seq].hash == hashes[seq], (seed, seq)
    assert b"abcdefghijklmnop" not in (state / "audit.jsonl").read_bytes()


def test_group_commit_lets_records_wait_until_the_delay_or_close(tmp_path):
    store, jsonl = SqliteStore(tmp_path / "hookline.db"), tmp_path / "audit.jsonl"
    log = AuditLog(store, jsonl_path=jsonl, max_delay=3600)
    log.add(AuditEntry(kind="hook", session_id="s", data={"n": 1}))
    log.settle()  # within the delay: it waits
    assert not jsonl.exists() and store.audit_rows() == []
    log.close()  # closing writes what waits, and copies it to the store
    assert [r["data"]["n"] for r in records(jsonl)] == [r.data["n"] for r in store.audit_rows()]
    strict = AuditLog(store, jsonl_path=jsonl)
    strict.add(AuditEntry(kind="hook", session_id="s", data={"n": 2}))
    strict.settle()  # no delay: written at once, to the file; the store's copy waits
    assert [r["data"]["n"] for r in records(jsonl)] == [1, 2]
    assert [r.data["n"] for r in store.audit_rows()] == [1]
    strict.close()
    assert [r.data["n"] for r in store.audit_rows()] == [1, 2]
    store.close()


def test_group_commit_keeps_one_timer_through_a_write_and_still_bounds_the_next_records(
    tmp_path,
):
    """The timer armed for a result stays armed when the next write takes that result early:
    a record queued after that write is written by the same timer, within its delay."""
    store, jsonl = SqliteStore(tmp_path / "hookline.db"), tmp_path / "audit.jsonl"
    log = AuditLog(store, jsonl_path=jsonl, max_delay=0.05)

    async def calls() -> list[int]:
        log.add(AuditEntry(kind="hook", session_id="s", data={"n": 1}))
        armed = log._timer
        log.write_ahead()  # the next call's write takes it before the delay is up
        log.add(AuditEntry(kind="hook", session_id="s", data={"n": 2}))
        assert armed is not None and log._timer is armed  # not armed again
        await asyncio.sleep(0.2)  # nothing else writes
        return [r["data"]["n"] for r in records(jsonl)]

    assert asyncio.run(calls()) == [1, 2]
    log.close()
    store.close()


def test_group_commit_writes_a_result_when_its_delay_is_up_while_the_model_thinks(
    store, jsonl, tmp_path
):
    """A long model call after a tool call: its result does not wait for the next write."""
    on_file: list[list[str]] = []

    class Slow(ScriptedModel):
        async def complete(self, messages: Any, tools: Any, **kw: Any) -> Any:
            if self.calls == 1:  # the call after the tool's: thinks until the result is on file
                for _ in range(1000):
                    kinds = [r["kind"] for r in records(jsonl)] if jsonl.exists() else []
                    if kinds.count("tool") == kinds.count("tool_started"):  # this call's too
                        break
                    await asyncio.sleep(0.01)
                on_file.append(kinds)
            return await super().complete(messages, tools, **kw)

    @hookline.tool
    def probe(n: int) -> str:
        """Do nothing."""
        return "ok"

    log = AuditLog(store, jsonl_path=jsonl, max_delay=0.02)
    for _ in range(2):  # a second run, on an event loop of its own, is bounded too
        script = [call("probe", "t1", n=1), {"text": "ok"}]
        agent = Agent(Slow(script), tools=[probe], cwd=tmp_path, audit=False)
        agent.registry.add("Stop", lambda e: None, name="noted")  # a record as the run ends
        detach = log.attach(agent)
        asyncio.run(agent.run("go"))  # an event loop of its own, the agent still open at its end
        detach()
        asyncio.run(agent.close())
    log.close()
    first = ["tool_started", "tool"]  # written by the timer, the model still waiting
    assert on_file == [first, [*first, "hook", *first]]  # the Stop hook's run, then the second


# -- written ahead; the two copies compared; a head kept elsewhere -------------------------------


def test_what_lets_a_call_run_is_written_before_its_body_and_the_result_follows(
    store, jsonl, tmp_path
):
    seen: list[list[tuple[str, str | None]]] = []

    @hookline.tool
    def probe(n: int) -> str:
        """Look at the audit file from inside the body."""
        seen.append([(r["kind"], r["tool_use_id"]) for r in records(jsonl)])
        return "ok"

    script = [call("probe", "t1", n=1), call("probe", "t2", n=2), {"text": "ok"}]
    agent = agent_for(tmp_path, script, [probe])
    agent.registry.add("PreToolUse", lambda e: Decision.allow("fine"), name="gate")
    log = AuditLog(store, jsonl_path=jsonl, max_delay=3600)  # group commit: results may wait
    log.attach(agent)
    agent.run_sync("go")
    first = [("tool_started", "t1")]  # with the gate's run in it
    second = [*first, ("tool", "t1"), ("tool_started", "t2")]
    assert seen == [first, second]  # the result rode with the next start
    log.close()
    assert compare(marks_jsonl(jsonl), (Mark(r.seq, r.hash) for r in store.audit_rows())) is None
    started, _ = store.audit_rows(session_id=agent.session.id, decision="allow", tool="probe")
    assert started.kind == "tool_started" and started.data["input"] == {"n": 1}
    assert started.data["reason"] == "fine"
    assert [(h["hook"], h["decision"]) for h in started.data["hooks"]] == [("gate", "allow")]
    assert [r.kind for r in store.audit_rows()][-1] == "tool"


def test_a_failed_write_ahead_stops_the_call_before_its_body(store, jsonl, tmp_path):
    ran: list[str] = []

    @hookline.tool
    def wipe(path: str) -> str:
        """Delete a folder."""
        ran.append(path)  # the sentinel: must stay empty
        return "wiped"

    agent = agent_for(tmp_path, [call("wipe", "t1", path="/tmp/x"), {"text": "ok"}], [wipe])
    log = AuditLog(store, jsonl_path=jsonl)
    log.attach(agent)
    real = log.file.append

    def append(records: Any, **options: Any) -> Any:  # the disk fills up as the call is to start
        if any(b'"kind":"tool_started"' in record.body for record in records):
            raise OSError(28, "No space left on device")
        return real(records, **options)

    with patch.object(log.file, "append", append), pytest.raises(AuditError, match="No space"):
        agent.run_sync("go")
    assert ran == []


def newest_cut(store: Any, jsonl: Path | None, count: int) -> None:
    """Delete the newest ``count`` records from the store (and the file, if given)."""
    last = store.last_audit().seq
    if isinstance(store, FakeStore):
        del store.rows[-count:]
    elif hasattr(store, "sql"):  # PostgreSQL
        store.sql(f"DELETE FROM hookline_audit WHERE seq > {last - count}")
    else:
        with sqlite3.connect(store.path) as conn:
            conn.execute("DELETE FROM hookline_audit WHERE seq > ?", (last - count,))
    if jsonl is not None:
        rewrite(jsonl, lambda ls: ls[:-count])


def records_text(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def store_marks(store: Any) -> list[Mark]:
    return [Mark(row.seq, row.hash) for row in store.audit_rows()]


def test_compare_names_the_first_record_missing_or_different_in_one_copy(store, jsonl):
    filled(store, jsonl).close()
    assert compare(marks_jsonl(jsonl), store_marks(store)) is None
    newest_cut(store, None, 1)
    assert verify_rows(store.audit_rows()) is None  # the store's chain alone cannot tell
    missing = compare(marks_jsonl(jsonl), store_marks(store))
    assert str(missing) == "record 5: in the file, missing from the store"
    zeros = '"hash":"v3:' + "0" * 64 + '"'
    other = re.sub(r'"hash":"v3:[0-9a-f]{64}"', zeros, records_text(jsonl)[1])
    rewrite(jsonl, lambda ls: [ls[0], other, *ls[2:]])
    differs = compare(marks_jsonl(jsonl), store_marks(store))
    assert str(differs) == "record 2: differs between the file and the store"
    rewrite(jsonl, lambda ls: [ls[0], *ls[2:]])
    gone = compare(marks_jsonl(jsonl), store_marks(store))
    assert str(gone) == "record 2: in the store, missing from the file"


def test_a_head_kept_elsewhere_finds_newest_records_cut_from_both_copies(store, jsonl):
    filled(store, jsonl).close()
    head = store.last_audit()
    assert missing_head(store_marks(store), head.hash, head.seq) is None
    assert missing_head(marks_jsonl(jsonl), head.hash) is None
    newest_cut(store, jsonl, 2)
    assert verify_rows(store.audit_rows()) is None and verify_jsonl(jsonl) is None
    assert compare(marks_jsonl(jsonl), store_marks(store)) is None  # the copies agree
    for marks in (store_marks(store), list(marks_jsonl(jsonl))):
        why = missing_head(marks, head.hash, head.seq)
        assert why is not None and "the newest record is 3" in why and "cut" in why
    rewritten = [*store_marks(store), Mark(4, "f" * 64), Mark(5, "e" * 64)]
    assert "rewritten" in (missing_head(rewritten, head.hash, head.seq) or "")


def test_redactor_walks_nested_keys_commands_and_leaves_as_before() -> None:
    """The mapping fast path: a value under a secret key is masked at any depth, a ``command``
    key's line has its password options masked, keys that are not text become text, plain
    leaves pass as they are, and a secret in a plain string is masked."""
    from hookline.audit._redact import MASK, Redactor

    value = {
        "tool_input": {"command": "mysql -pHunter2secret db", "n": 3, "ok": True, "none": None},
        "db_password": {"inner": ["x", 1, 2.5]},
        7: "sk-ant-api03-" + "A" * 40,
        "ratio": float("inf"),
        "items": ("a", b"b"),
        "empty": [],
        "api_token": 2.5,
    }
    shown = Redactor().redact(value)
    assert "Hunter2secret" not in shown["tool_input"]["command"]
    assert shown["tool_input"]["command"].startswith("mysql -p")
    assert shown["tool_input"]["n"] == 3 and shown["tool_input"]["ok"] is True
    assert shown["tool_input"]["none"] is None
    assert shown["db_password"] == {"inner": [MASK, 1, 2.5]}
    assert shown["7"].startswith("sk-ant") and shown["7"].endswith(MASK)
    assert shown["ratio"] == "inf"
    assert shown["items"] == ["a", "b"]
    assert shown["empty"] == [] and shown["api_token"] == 2.5  # a number is no secret's text
