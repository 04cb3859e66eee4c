"""``hookline audit``: queries by session, tool, decision and time; ``audit verify`` exit codes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import hookline
from hookline import Agent, Decision, ScriptedModel
from hookline._errors import ConfigError
from hookline.audit import attach_audit

from hookline._cli.audit_cmd import audit  # isort: skip
from hookline._cli.audit_rows import UNFINISHED  # isort: skip

from cli_runner import hookline as run_hookline


def _wired() -> bool:
    from hookline._cli.main import cli

    return "audit" in cli.commands


wired = pytest.mark.skipif(not _wired(), reason="the audit group is not in hookline._cli.main yet")


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


@hookline.tool
def wipe(path: str) -> str:
    """Delete a folder."""
    raise AssertionError("a denied call must never run")


def session(project: Path, script: list[dict[str, Any]]) -> str:
    """One audited session in ``project``; its id."""
    agent = Agent(ScriptedModel(script), tools=[echo, wipe], cwd=project, user="ana")
    agent.registry.add("PreToolUse", lambda e: Decision.deny("never wipe"), matcher="wipe",
                       name="no_wipe")  # fmt: skip
    with attach_audit(agent):
        agent.run_sync("go")  # closes the agent and its store
    return agent.session.id


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str, str]:
    """A project with two sessions: one echoes (executed), one tries to wipe (denied)."""
    first = session(tmp_path, [call("e1", "echo", text="hi"), {"text": "ok"}])
    second = session(tmp_path, [call("w1", "wipe", path="/"), {"text": "ok"}])
    return tmp_path, first, second


def call(id: str, tool: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": id, "name": tool, "input": tool_input}]}


def run(project: Path, *args: str) -> Result:
    sub = args[:1] in (("verify",), ("head",))
    return CliRunner().invoke(audit, [*args, "--cwd", str(project)] if sub
                              else ["--cwd", str(project), *args])  # fmt: skip


def lines(result: Result) -> list[str]:
    """The records printed: the text lines under the header, or the JSON lines."""
    printed = result.stdout.splitlines()
    return printed[1:] if printed and printed[0].startswith("TIME ") else printed


def test_query_shows_every_record_one_line_each(project):
    path, first, second = project
    result = run(path)
    assert result.exit_code == 0, result.output
    # echo: its start, the call; wipe: the deny (kept in the call's record), the blocked call
    assert len(lines(result)) == 4
    assert first[:8] in result.output and second[:8] in result.output
    deny = next(line for line in lines(result) if " deny " in line)
    assert "wipe" in deny and "PreToolUse" in deny and "no_wipe" in deny and "never wipe" in deny


def test_query_by_session_tool_and_decision(project):
    path, first, second = project
    assert all(first[:8] in line for line in lines(run(path, "--session", first)))
    assert len(lines(run(path, "--session", second))) == 2
    assert len(lines(run(path, "--tool", "echo"))) == 2
    (denied,) = lines(run(path, "--decision", "deny"))
    assert "no_wipe" in denied
    (blocked,) = lines(run(path, "--decision", "blocked", "--tool", "wipe"))
    assert second[:8] in blocked


def test_query_by_time_relative_or_iso(project):
    path = project[0]
    assert len(lines(run(path, "--since", "1h"))) == 4
    assert len(lines(run(path, "--since", "1h", "--until", "30m"))) == 0
    soon = (datetime.now() + timedelta(minutes=5)).isoformat(timespec="seconds")
    assert len(lines(run(path, "--until", soon))) == 4
    empty = run(path, "--since", soon)
    assert empty.exit_code == 0 and empty.stdout == ""
    assert "no audit records match" in empty.stderr
    bad = run(path, "--since", "yesterday")
    assert bad.exit_code == 2 and "neither ISO 8601" in bad.output


def test_query_as_json_gives_whole_records(project):
    path, _, second = project
    result = run(path, "--session", second, "--json")
    records = [json.loads(line) for line in lines(result)]
    assert [(r["kind"], r["decision"]) for r in records] == [("tool", "blocked")]
    (denied,) = records[0]["data"][
        "hooks"
    ]  # the hook run that denied it rides in the call's record
    assert (denied["event"], denied["hook"], denied["decision"], denied["reason"]) == (
        "PreToolUse", "no_wipe", "deny", "never wipe")  # fmt: skip
    assert {r["session_id"] for r in records} == {second}
    assert all({"seq", "hash", "prev_hash", "data"} <= r.keys() for r in records)
    assert all(r["data"]["user"] == "ana" for r in records)


def test_verify_a_clean_log_exits_0_and_says_what_it_checked(project):
    result = run(project[0], "verify")
    assert result.exit_code == 0, result.output
    store, file, kept, both, verdict = lines(result)
    assert store.startswith("store ") and "hookline.db: 3 records, chain intact (keyed" in store
    assert file.startswith("file ") and "audit.jsonl: 3 records, chain intact (keyed" in file
    assert kept.endswith("the head hookline keeps beside the key is in the chain")
    assert both == "file and store: the same records, seq by seq and hash by hash"
    assert verdict == "audit verify: OK"


def test_the_same_edit_in_file_and_store_never_reads_as_all_clear(project):
    state = project[0] / ".hookline" / "state"
    jsonl = state / "audit.jsonl"
    jsonl.write_text(jsonl.read_text().replace('"user":"ana"', '"user":"bob"', 1))
    with sqlite3.connect(state / "hookline.db") as conn:
        conn.execute("UPDATE hookline_audit SET data = replace(data, '\"user\":\"ana\"', "
                     "'\"user\":\"bob\"') WHERE seq = 1")  # fmt: skip
    result = run(project[0], "verify")
    assert result.exit_code == 1
    printed = lines(result)
    assert sum("TAMPERED" in line for line in printed) == 2  # the store and the file
    assert "file and store: the same records, seq by seq and hash by hash" not in printed
    assert printed[-2].endswith("so both hold what failed above")
    assert printed[-1] == "audit verify: FAILED (see above)"


def test_verify_exits_1_on_an_edited_line_or_a_deleted_store_row(project):
    path = project[0]
    state = path / ".hookline" / "state"
    jsonl = state / "audit.jsonl"
    original = jsonl.read_text()
    jsonl.write_text(original.replace('"user":"ana"', '"user":"bob"', 1))
    edited = run(path, "verify")
    assert edited.exit_code == 1 and "file" in edited.output and "TAMPERED" in edited.output
    assert "line 1 (seq 1): edited" in edited.output
    jsonl.write_text(original)
    with sqlite3.connect(state / "hookline.db") as conn:
        conn.execute("DELETE FROM hookline_audit WHERE seq = 2")
    deleted = run(path, "verify")
    assert deleted.exit_code == 1 and "seq 3: deleted" in deleted.output
    assert "record 2: in the file, missing from the store" in deleted.output


def test_verify_reports_a_partial_last_line_as_a_crash_artefact(project):
    path = project[0]
    with open(path / ".hookline" / "state" / "audit.jsonl", "a") as file:
        file.write('{"seq":4,"prev')
    result = run(path, "verify")
    assert (
        result.exit_code == 0 and "truncated" in result.output and "crash artefact" in result.output
    )


def test_a_missing_store_or_file_is_a_config_error(tmp_path, project):
    result = run(tmp_path / "nowhere", "--tool", "x")
    assert isinstance(result.exception, ConfigError) and "no audit store" in str(result.exception)
    result = run(tmp_path / "nowhere", "verify")
    assert isinstance(result.exception, ConfigError) and "no audit file" in str(result.exception)


def test_an_audit_file_hookline_wrote_and_someone_deleted_is_records_cut(project):
    (project[0] / ".hookline" / "state" / "audit.jsonl").unlink()
    result = run(project[0], "verify")
    assert result.exit_code == 1, result.output
    assert "RECORDS CUT: it is gone, but hookline wrote 3 records to it" in result.output


def hookline_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_hookline(*args, keep_pythonpath=False)  # PYTHONPATH is exactly src


@wired
def test_hookline_audit_queries_from_the_command_line(project):
    path, _, second = project
    done = hookline_cli("audit", "--cwd", str(path), "--decision", "deny")
    assert done.returncode == 0 and second[:8] in done.stdout and "no_wipe" in done.stdout
    missing = hookline_cli("audit", "--cwd", str(path / "nowhere"))
    assert missing.returncode == 2 and missing.stderr.startswith("hookline: error: no audit store")


@wired
def test_hookline_audit_verify_exit_codes_from_the_command_line(project):
    path = project[0]
    assert hookline_cli("audit", "verify", "--cwd", str(path)).returncode == 0
    with sqlite3.connect(path / ".hookline" / "state" / "hookline.db") as conn:
        # the hook's deny, inside the blocked call's record, turned into an allow
        edited = conn.execute("UPDATE hookline_audit SET data = replace(data, 'deny', 'allow') "
                              "WHERE data LIKE '%deny%'")  # fmt: skip
        assert edited.rowcount == 1
    done = hookline_cli("audit", "verify", "--cwd", str(path))
    assert done.returncode == 1 and "TAMPERED" in done.stdout and "edited" in done.stdout


# -- the file against the store, the kept head, calls cut off mid-body --------------------------


def newest_rows_deleted(project: Path, count: int) -> None:
    with sqlite3.connect(project / ".hookline" / "state" / "hookline.db") as conn:
        conn.execute("DELETE FROM hookline_audit WHERE seq > (SELECT MAX(seq) FROM "
                     "hookline_audit) - ?", (count,))  # fmt: skip


def newest_lines_cut(project: Path, count: int) -> None:
    jsonl = project / ".hookline" / "state" / "audit.jsonl"
    jsonl.write_text("".join(jsonl.read_text().splitlines(keepends=True)[:-count]))


def test_verify_names_the_newest_row_deleted_from_the_store_only(project):
    path = project[0]
    newest_rows_deleted(path, 1)
    result = run(path, "verify")
    assert result.exit_code == 1, result.output
    assert "hookline.db: 2 records, chain intact" in result.output  # the chain alone cannot tell
    assert "DIFFER: record 3: in the file, missing from the store" in result.output


def rehash_last_line(path: Path, key: bytes | None) -> None:
    """Edit the file's last record and hash it again: plain sha256 (``key`` None), as anyone
    who can write the file can, or under the chain key, as only its holder can."""
    from hookline.audit import canonical, link

    jsonl = path / ".hookline" / "state" / "audit.jsonl"
    *kept, last = (json.loads(line) for line in jsonl.read_text().splitlines())
    last["data"]["reason"] = "nothing to see"
    last["hash"] = link(last["prev_hash"], last, key)
    head = f'{{"seq":{last["seq"]},"prev_hash":"{last["prev_hash"]}","hash":"{last["hash"]}",'
    lines_ = [json.dumps(r, separators=(",", ":")) for r in kept]
    jsonl.write_text("\n".join([*lines_, head + canonical(last).decode()[1:]]) + "\n")


def test_a_file_record_rehashed_the_plain_way_breaks_the_keyed_chain(project):
    path = project[0]
    rehash_last_line(path, None)
    result = run(path, "verify")
    assert result.exit_code == 1, result.output
    assert "audit.jsonl: TAMPERED: line 3 (seq 3): edited: a plain-hash record after a keyed " \
           "one: added or rewritten by someone without the key" in result.output  # fmt: skip


def test_verify_finds_a_file_record_rewritten_under_the_key_by_the_store(project):
    """Whoever holds the key keeps the file's chain intact (the last line re-hashed under it);
    the store's copy still tells."""
    from hookline.audit._keyed import chain_key

    path = project[0]
    rehash_last_line(path, chain_key(create=False))
    result = run(path, "verify")
    assert "audit.jsonl: 3 records, chain intact" in result.output
    assert result.exit_code == 1 and "record 3: differs between the file and the store" in (
        result.output
    )


def test_a_cut_from_both_copies_is_found_by_the_kept_heads(project, tmp_path):
    """Beside the key, hookline keeps the file's head and the store's: a cut of both copies
    is found. Whoever holds the key can remove those too; a head kept elsewhere still tells."""
    from hookline.audit._heads import heads_folder

    path = project[0]
    kept = run(path, "head")
    assert kept.exit_code == 0 and kept.stdout.startswith("3 v3:")
    (as_json,) = [json.loads(line) for line in lines(run(path, "head", "--json"))]
    assert kept.stdout.split() == [str(as_json["seq"]), as_json["hash"]]
    assert run(path, "verify", "--head", kept.stdout.strip()).exit_code == 0
    newest_rows_deleted(path, 2)
    newest_lines_cut(path, 2)
    found = run(path, "verify")
    assert found.exit_code == 1, found.output
    assert "audit.jsonl: RECORDS CUT: the head that was kept (record 3) is not in the chain: " \
           "the newest record is 1" in found.output  # fmt: skip
    assert "hookline.db: RECORDS CUT: hookline copied records through 3 to it" in found.output
    heads_folder().rename(tmp_path / "heads-moved-away")  # what the key's holder can do
    assert run(path, "verify").exit_code == 0  # a log that ended at record 1, for all it knows
    for given in (as_json["hash"], f"3:{as_json['hash']}"):
        result = run(path, "verify", "--head", given)
        assert result.exit_code == 1, result.output
        assert "RECORDS CUT" in result.output and "the newest record is 1" in result.output
    bad = run(path, "verify", "--head", "not-a-hash")
    assert bad.exit_code == 2 and "not a head" in bad.output


def test_a_store_gone_or_emptied_is_a_difference_even_for_the_file_alone(project):
    path = project[0]
    db = path / ".hookline" / "state" / "hookline.db"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM hookline_audit")  # every row cut from the store
    emptied = run(path, "verify")
    assert emptied.exit_code == 1, emptied.output
    assert "holds no audit records, but the file has records" in emptied.output
    db.unlink()
    gone = run(path, "verify")
    assert gone.exit_code == 1 and "does not exist, but the file has records" in gone.output
    alone = run(path, "verify", "--file-only")  # hookline copied to a store: it is missing
    assert alone.exit_code == 1, alone.output
    assert "hookline.db: RECORDS CUT: hookline copied records through 3 to it" in alone.output
    assert "audit.jsonl: 3 records, chain intact" in alone.output
    assert run(path, "head").stdout.startswith("3 ")  # the file's head, then


def test_a_log_written_without_a_store_verifies_as_the_file_alone(tmp_path):
    from hookline.audit import AuditLog
    from hookline.storage import AuditEntry

    state = tmp_path / ".hookline" / "state"
    with AuditLog(None, jsonl_path=state / "audit.jsonl") as log:
        log.add(AuditEntry(kind="hook", data={"n": 1}))
    assert run(tmp_path, "verify").exit_code == 1
    alone = run(tmp_path, "verify", "--file-only")
    assert alone.exit_code == 0, alone.output
    assert "does not exist; the file is verified alone (file-only mode)" in alone.output
    assert "audit.jsonl: 1 record, chain intact (keyed" in alone.output


BASH_SCRIPT = {"turns": [
    {"tool_calls": [{"id": "t_ok", "name": "Bash", "input": {"command": "true"}}]},
    {"tool_calls": [{"id": "t_cut", "name": "Bash",
                     "input": {"command": "echo $$ > marker; exec sleep 120"}}]},
    {"text": "never reached"},
]}  # fmt: skip


def test_a_run_killed_mid_tool_leaves_the_call_started_not_finished(tmp_path):
    """SIGKILL the harness while a Bash body runs: the call is on record in both copies."""
    import contextlib
    import os
    import selectors
    import signal
    import sys

    from cli_runner import src_env

    (tmp_path / "script.json").write_text(json.dumps(BASH_SCRIPT))
    os.mkfifo(tmp_path / "marker")
    marker = os.open(tmp_path / "marker", os.O_RDONLY | os.O_NONBLOCK)  # before the writer
    harness = subprocess.Popen(
        [sys.executable, "-m", "hookline._cli.main", "run", "go", "--model",
         "scripted:script.json", "--permission-mode", "bypassPermissions"],
        cwd=tmp_path, env=src_env(keep_pythonpath=False), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert harness.stdout is not None
    with selectors.DefaultSelector() as events:  # the marker written, or the harness gone
        events.register(marker, selectors.EVENT_READ)
        events.register(harness.stdout, selectors.EVENT_READ)
        while not (ready := {key.fd for key, _ in events.select(timeout=60)}) & {marker}:
            assert ready and harness.poll() is None, harness.communicate(timeout=5)
            harness.stdout.read1(1 << 16)  # what it says meanwhile
    sleeper = int(os.read(marker, 64))
    os.close(marker)
    harness.kill()
    harness.wait()
    with contextlib.suppress(ProcessLookupError):  # ended with its harness, as it should
        os.kill(sleeper, signal.SIGKILL)  # the tool body it started, in a session of its own
    harness.communicate(timeout=30)  # closes the pipes

    state = tmp_path / ".hookline" / "state"
    in_file = [(r["tool_use_id"], r["kind"]) for r in
               map(json.loads, (state / "audit.jsonl").read_text().splitlines())]  # fmt: skip
    expected = [("t_ok", "tool_started"), ("t_ok", "tool"), ("t_cut", "tool_started")]
    assert in_file == expected
    assert in_store(state) == []  # written ahead to the file; the run never got to its copy
    waiting = run(tmp_path, "verify")  # not copied yet is no difference
    assert waiting.exit_code == 0 and "no records copied to it yet" in waiting.output
    shown = lines(run(tmp_path))  # reading copies them first
    assert in_store(state) == expected
    assert "bypassPermissions mode runs Bash" in shown[0]
    assert UNFINISHED not in shown[0] and shown[-1].endswith(UNFINISHED)
    (cut,) = lines(run(tmp_path, "--unfinished"))
    assert "Bash" in cut and cut == shown[-1]
    (record,) = [json.loads(x) for x in lines(run(tmp_path, "--unfinished", "--json"))]
    assert record["tool_use_id"] == "t_cut" and record["finished"] is False
    assert record["data"]["input"] == {"command": "echo $$ > marker; exec sleep 120"}
    verified = run(tmp_path, "verify")
    assert verified.exit_code == 0, verified.output


def in_store(state: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(state / "hookline.db") as conn:
        rows = conn.execute("SELECT tool_use_id, kind FROM hookline_audit ORDER BY seq")
        return [(use, kind) for use, kind in rows]


# -- a call's permission apart from its outcome -------------------------------------------------


def test_decision_deny_finds_a_call_a_permission_rule_refused(tmp_path):
    """No hook at all: a deny rule in the settings refuses the call. Its record keeps the
    outcome (blocked) and the permission (deny, from a rule) apart, and ``--decision deny``
    finds it; the command never ran."""
    (tmp_path / ".claude").mkdir()
    rules = {"permissions": {"deny": ["Bash(touch *)"]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(rules))
    touch = {"id": "t_touch", "name": "Bash", "input": {"command": "touch sentinel"}}
    script = [{"tool_calls": [touch]}, {"text": "it was refused"}]
    options = hookline.load_project(tmp_path).agent_options()
    result = Agent(ScriptedModel(script), **options, audit=True).run_sync("touch it")
    assert result.tool_calls[0].status == "blocked"
    assert not (tmp_path / "sentinel").exists()
    (denied,) = lines(run(tmp_path, "--decision", "deny"))
    assert " Bash " in denied and " rule " in denied and " blocked " in denied
    (record,) = [json.loads(x) for x in lines(run(tmp_path, "--decision", "deny", "--json"))]
    assert (record["kind"], record["decision"], record["permission"]) == ("tool", "blocked", "deny")
    assert (record["data"]["status"], record["data"]["origin"]) == ("blocked", "rule")
    assert lines(run(tmp_path, "--decision", "blocked")) == [denied]  # the outcome, as before


OLD_RECORDS = [
    {"time": 1.0, "session_id": "s", "tool_use_id": "t1", "event": "PreToolUse", "kind": "hook",
     "tool": "Bash", "decision": "deny", "data": {"hook": "guard", "reason": "no"}},
    {"time": 2.0, "session_id": "s", "tool_use_id": "t1", "event": None, "kind": "tool",
     "tool": "Bash", "decision": "blocked", "data": {"status": "blocked", "reason": "no"}},
]  # fmt: skip


def write_old_shape(state: Path) -> None:
    """A store and a file as hookline wrote them before the permission was kept apart: the
    schema-1 tables (no permission column), each record hashed with a decision only."""
    import hashlib

    from hookline.storage._sql import META_TABLE
    from hookline.storage._sqlite import MIGRATIONS

    state.mkdir(parents=True)
    prev, file_lines = None, []
    with sqlite3.connect(state / "hookline.db") as conn:
        for statement in (META_TABLE, *MIGRATIONS[1]):
            conn.execute(statement)
        conn.execute("INSERT INTO hookline_meta (key, value) VALUES ('schema', '1')")
        for seq, r in enumerate(OLD_RECORDS, 1):
            body = json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            hashed = hashlib.sha256(((prev or "") + body).encode()).hexdigest()
            conn.execute(
                "INSERT INTO hookline_audit (seq, hash, prev_hash, time, session_id, tool_use_id,"
                " event, kind, tool, decision, data) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (seq, hashed, prev, r["time"], r["session_id"], r["tool_use_id"], r["event"],
                 r["kind"], r["tool"], r["decision"], json.dumps(r["data"])),
            )  # fmt: skip
            file_lines.append(f'{{"seq":{seq},"prev_hash":{json.dumps(prev)},"hash":"{hashed}",')
            file_lines[-1] += body[1:]
            prev = hashed
    (state / "audit.jsonl").write_text("\n".join(file_lines) + "\n")


def test_a_log_written_before_the_permission_column_still_verifies_and_grows(tmp_path):
    from hookline.audit import AuditLog
    from hookline.storage import AuditEntry, SqliteStore

    state = tmp_path / ".hookline" / "state"
    write_old_shape(state)
    old = run(tmp_path, "verify")
    assert old.exit_code == 0, old.output
    assert "hookline.db: 2 records, chain intact (plain sha256, written before keyed" in old.output
    assert "audit.jsonl: 2 records, chain intact (plain sha256, written before keyed" in old.output
    with sqlite3.connect(state / "hookline.db") as conn:  # opening it added the column
        added = conn.execute("SELECT permission FROM hookline_audit").fetchall()
    assert added == [(None,), (None,)]
    entry = AuditEntry(kind="tool", session_id="s", tool_use_id="t2", tool="Bash",
                       decision="blocked", permission="deny", data={"origin": "rule"})  # fmt: skip
    with AuditLog(SqliteStore(state / "hookline.db"), jsonl_path=state / "audit.jsonl") as log:
        log.add(entry)  # a new record, chained onto the old ones
    grown = run(tmp_path, "verify")
    assert grown.exit_code == 0, grown.output
    assert "hookline.db: 3 records, chain intact (1 keyed; the first 2 plain sha256" in grown.output
    assert "file and store: the same records" in grown.output
    (last,) = [json.loads(x) for x in (state / "audit.jsonl").read_text().splitlines()][2:]
    assert last["hash"].startswith("v3:") and len(last["prev_hash"]) == 64  # keyed after plain
    denied = [json.loads(x) for x in lines(run(tmp_path, "--decision", "deny", "--json"))]
    assert [(r["tool_use_id"], r["kind"], r["permission"]) for r in denied] == [
        ("t1", "hook", None),  # an old record: found by its decision, as before
        ("t2", "tool", "deny"),
    ]
    with sqlite3.connect(state / "hookline.db") as conn:  # a permission slipped into an old row
        conn.execute("UPDATE hookline_audit SET permission = 'allow' WHERE seq = 2")
    edited = run(tmp_path, "verify")
    assert edited.exit_code == 1 and "seq 2: edited" in edited.output


# -- hookline run --audit-delay: group commit from the command line ---------------------------

PEEK_HOOKS = """
import json
from pathlib import Path
from hookline import HookMatcher

async def peek(input_data, tool_use_id, context):
    # what the audit file holds when the second call is about to be judged
    if tool_use_id == "r2":
        lines = Path(".hookline/state/audit.jsonl").read_text().splitlines()
        Path("seen.json").write_text(json.dumps([json.loads(l)["kind"] for l in lines]))
    return {}

HOOKS = {"PreToolUse": [HookMatcher(hooks=[peek])]}
"""


@pytest.mark.parametrize(("delay", "before_second"), [
    ("0", ["tool_started", "tool"]),  # no group commit: a call's result is written when it ends
    ("60", ["tool_started"]),  # it waits to ride with the next call's start
])  # fmt: skip
def test_audit_delay_lets_a_result_wait_for_the_next_write(
    tmp_path: Path, delay: str, before_second: list[str]
) -> None:
    (tmp_path / "note.txt").write_text("one line\n")
    (tmp_path / "hooks.py").write_text(PEEK_HOOKS)
    turns = [call(f"r{n}", "Read", file_path="note.txt") for n in (1, 2)]
    (tmp_path / "script.json").write_text(json.dumps({"turns": [*turns, {"text": "ok"}]}))
    done = run_hookline("run", "--model", "scripted:script.json", "--hooks", "hooks.py",
                        "--output-format", "json", "--audit-delay", delay, "go",
                        cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "seen.json").read_text()) == before_second
    kinds = [r.kind for r in records_of(tmp_path)]
    assert kinds == ["tool_started", "tool", "tool_started", "tool"]  # all there at the end
    assert run(tmp_path, "verify").exit_code == 0


def records_of(project: Path) -> list[Any]:
    from hookline.storage import SqliteStore

    with SqliteStore(project / ".hookline" / "state" / "hookline.db") as store:
        return store.audit_rows()


def test_a_negative_audit_delay_is_refused_with_the_flag_named(tmp_path: Path) -> None:
    done = run_hookline("run", "--model", "rules", "--audit-delay", "-1", "hi", cwd=tmp_path)
    assert done.returncode == 2 and "--audit-delay" in done.stderr
    assert not (tmp_path / ".hookline").exists()  # nothing ran, nothing was written


def shared_store(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two folders' audit files, one store (as servers on two hosts with one PostgreSQL): the
    first copies its records there, then the second's and the first's go on the store's own
    chain. The folders and the store's path."""
    from hookline.audit._writer import AuditWriter
    from hookline.storage import AuditEntry

    first, second, db = tmp_path / "first", tmp_path / "second", tmp_path / "shared.db"
    writers = [AuditWriter.open(folder / ".hookline" / "state", store=str(db))
               for folder in (first, second)]  # fmt: skip
    for writer, ids in zip(writers * 2, (["a1", "a2"], ["b1", "b2"], ["a3"], ["b3"]), strict=True):
        for id in ids:
            writer.add(AuditEntry(kind="served", tool_use_id=id, tool="Bash", decision="allow"))
        writer.flush(copy=True)
    for writer in writers:
        writer.close()
    return first, second, db


def test_verify_finds_each_record_of_a_file_in_a_store_other_servers_share(tmp_path: Path):
    first, second, db = shared_store(tmp_path)
    for folder in (first, second):
        result = run(folder, "verify", "--store", str(db))
        assert result.exit_code == 0, result.output
        assert "shared.db: 6 records, chain intact" in result.output
        assert "audit.jsonl: 3 records, chain intact" in result.output
        assert "the store is shared with other servers' files, and holds each of" in result.output
    with sqlite3.connect(db) as conn:  # the second's first record, on the store's own chain
        conn.execute("DELETE FROM hookline_audit WHERE tool_use_id = 'b1'")
    result = run(second, "verify", "--store", str(db))
    assert result.exit_code == 1
    assert "DIFFER: the store is shared with other servers' files, and record 1 of" in result.output
