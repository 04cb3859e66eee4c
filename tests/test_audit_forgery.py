"""Attacks on the audit record by someone who can write the state folder but not read the key.

Each attack is done for real, on the SQLite store and the file a real audited run wrote, with
nothing but sqlite3, hashlib and file writes (what a model's file tools or a script in the
project could do); ``hookline audit verify`` must exit 1 and say what it found.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import hookline
from hookline import Agent, ScriptedModel
from hookline._cli.audit_cmd import audit
from hookline.audit import attach_audit
from hookline.audit._heads import head_path


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose audit (file and SQLite store) holds two sessions' records."""
    for word in ("one", "two"):
        script = [{"tool_calls": [{"id": f"t_{word}", "name": "echo", "input": {"text": word}}]},
                  {"text": "ok"}]  # fmt: skip
        agent = Agent(ScriptedModel(script), tools=[echo], cwd=tmp_path, user="ana")
        with attach_audit(agent):
            agent.run_sync("go")
    assert verify(tmp_path).exit_code == 0
    return tmp_path


def verify(project: Path, *args: str) -> Result:
    return CliRunner().invoke(audit, ["verify", *args, "--cwd", str(project)])


def state(project: Path) -> Path:
    return project / ".hookline" / "state"


def rows(project: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(state(project) / "hookline.db") as conn:
        return conn.execute("SELECT seq, hash FROM hookline_audit ORDER BY seq").fetchall()


def plain_hash(prev: str, record: dict[str, Any]) -> str:
    """How a record was hashed before keyed chains: what anyone can compute."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((prev + body).encode()).hexdigest()


def test_an_approval_appended_to_both_copies_with_a_plain_hash_is_tampering(project):
    (seq, prev), *_ = reversed(rows(project))
    kept = f"{seq}:{prev}"  # the head as it was: the append comes after it
    record = {"time": 1.0, "session_id": "s", "tool_use_id": "t_forged", "event": None,
              "kind": "approval", "tool": "Bash", "decision": "allow", "permission": "allow",
              "data": {"answered_by": "ana", "behavior": "allow"}}  # fmt: skip
    forged = plain_hash(prev, record)
    with sqlite3.connect(state(project) / "hookline.db") as conn:
        conn.execute(
            "INSERT INTO hookline_audit (seq, hash, prev_hash, time, session_id, tool_use_id, "
            "event, kind, tool, decision, data, permission) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (seq + 1, forged, prev, record["time"], record["session_id"], record["tool_use_id"],
             None, "approval", "Bash", "allow", json.dumps(record["data"]), "allow"),
        )  # fmt: skip
    line = {"seq": seq + 1, "prev_hash": prev, "hash": forged, **record}
    with open(state(project) / "audit.jsonl", "a") as file:
        file.write(json.dumps(line, separators=(",", ":")) + "\n")
    for result in (verify(project), verify(project, "--head", kept)):
        assert result.exit_code == 1, result.output
        why = "edited: a plain-hash record after a keyed one"
        assert f"hookline.db: TAMPERED: seq {seq + 1}: {why}" in result.output
        assert f"audit.jsonl: TAMPERED: line {seq + 1} (seq {seq + 1}): {why}" in result.output


def cut_store_to(project: Path, count: int) -> None:
    with sqlite3.connect(state(project) / "hookline.db") as conn:
        conn.execute("DELETE FROM hookline_audit WHERE seq > ?", (count,))


def test_a_store_cut_to_two_rows_with_its_note_rewritten_is_found(project):
    note = state(project) / "audit.stored"
    newest = rows(project)[-1][0]
    (_, second), *_ = reversed(rows(project)[:2])
    cut_store_to(project, 2)
    note.write_text(f"{2:>20} {second}\n")  # the note as hookline wrote it before keyed chains
    result = verify(project)
    assert result.exit_code == 1, result.output
    assert "audit.stored: TAMPERED: a keyed log's note without its MAC" in result.output
    assert f"RECORDS CUT: hookline copied records through {newest} to it" in result.output
    note.write_text(f"{2:>20} {second} {'0' * 64}\n")  # a MAC made up
    result = verify(project)
    assert result.exit_code == 1 and "its MAC does not match" in result.output, result.output


def test_a_genuine_older_note_put_back_does_not_hide_the_cut(project, tmp_path):
    """The note's MAC holds for any note hookline once wrote: a replay of one from when the
    store had two rows. The head kept beside the key is the newer copy, and it tells."""
    first = tmp_path / "first"
    first.mkdir()
    script = [{"tool_calls": [{"id": "t1", "name": "echo", "input": {"text": "x"}}]}]
    agent = Agent(ScriptedModel(script), tools=[echo], cwd=first)
    with attach_audit(agent):
        agent.run_sync("go")
    old_note = (state(first) / "audit.stored").read_bytes()
    assert verify(first).exit_code == 0
    count = len(rows(first))
    for word in ("more", "again"):
        script = [{"tool_calls": [{"id": word, "name": "echo", "input": {"text": word}}]}]
        agent = Agent(ScriptedModel(script), tools=[echo], cwd=first)
        with attach_audit(agent):
            agent.run_sync("go")
    assert len(rows(first)) > count
    cut_store_to(first, count)
    (state(first) / "audit.stored").write_bytes(old_note)
    result = verify(first)
    assert result.exit_code == 1, result.output
    assert "TAMPERED" not in result.output  # the note is genuine ...
    assert "hookline.db: RECORDS CUT: hookline copied records through" in result.output


def test_a_store_emptied_with_its_note_deleted_is_found(project):
    newest = rows(project)[-1][0]
    cut_store_to(project, 0)
    (state(project) / "audit.stored").unlink()
    result = verify(project)
    assert result.exit_code == 1, result.output
    assert f"RECORDS CUT: hookline copied records through {newest} to it" in result.output
    assert "there are no records" in result.output


def test_a_whole_log_rewritten_the_plain_way_is_found_by_the_kept_head(project):
    """Both copies rebuilt from nothing with plain hashes: a chain of format 1 throughout,
    which verifies as plain; the heads kept beside the key are not in it."""
    jsonl = state(project) / "audit.jsonl"
    prev, lines = "", []
    for seq, text in enumerate(jsonl.read_text().splitlines(), 1):
        chained = json.loads(text)
        record = {k: v for k, v in chained.items() if k not in ("seq", "prev_hash", "hash")}
        this = plain_hash(prev, record)
        lines.append(json.dumps({"seq": seq, "prev_hash": prev or None, "hash": this, **record}))
        prev = this
    jsonl.write_text("\n".join(lines) + "\n")
    cut_store_to(project, 0)
    (state(project) / "audit.stored").unlink()
    result = verify(project, "--file-only")
    assert result.exit_code == 1, result.output
    assert "plain sha256, written before keyed chains" in result.output
    assert "audit.jsonl: RECORDS CUT: record" in result.output


def test_a_kept_head_written_without_the_key_is_tampering(project):
    kept = head_path(state(project) / "audit.jsonl", "file")
    seq, hash, _ = kept.read_text().split()
    kept.write_text(f"{seq:>20} {hash:>69} {'f' * 64}\n")
    result = verify(project)
    assert result.exit_code == 1, result.output
    assert "the head kept beside the key: TAMPERED" in result.output
    assert kept.stat().st_mode & 0o777 == 0o600
    assert kept.parent.parent.name == "keys" and kept.parent.parent.parent.name == ".hookline"


def test_the_key_and_the_kept_heads_are_in_the_protected_set(tmp_path, monkeypatch):
    """Wherever the key is (the home folder's, or one ``HOOKLINE_STATE_KEY_FILE`` names), the
    permission layer protects it and the heads beside it, and the sandbox keeps them read-only."""
    from hookline._agent.saved.seal import KEY_ENV, key_path
    from hookline.permissions._protected import protected_set

    log = tmp_path / "ws" / ".hookline" / "state" / "audit.jsonl"
    for given in (None, str(tmp_path / "keys-elsewhere" / "state.key")):
        if given is not None:
            monkeypatch.setenv(KEY_ENV, given)
        found = protected_set([str(tmp_path / "ws")])
        for path in (key_path(), head_path(log, "file"), head_path(log, "stored")):
            assert found.covers(str(path)) is not None, path
        assert any(str(head_path(log, "file")).startswith(p) for p in found.paths())


def test_a_process_killed_while_making_a_kept_head_leaves_none_not_an_empty_one(
    tmp_path, monkeypatch
):
    """The kill a crash campaign found: between making the head's file and writing it. The
    head is written whole beside its place and renamed in, so a kill there leaves no head
    (the log verifies) and never an empty one (which verify must call forged)."""
    from hookline.audit._heads import Keeper, kept_head
    from hookline.audit._keyed import chain_key

    log = tmp_path / "audit.jsonl"
    key = chain_key(create=True)
    assert key is not None

    def killed(*args: Any) -> None:
        raise SystemExit("killed before the head's line was written")

    monkeypatch.setattr("hookline.audit._heads.os.write", killed)
    monkeypatch.setattr("hookline.audit._heads.os.pwrite", killed)
    with pytest.raises(SystemExit):
        Keeper(log, key).keep("stored", 3, "hmac:" + "a" * 64)
    assert not head_path(log, "stored").exists()
    assert kept_head(log, "stored", key) is None  # none kept: nothing said about the log
    monkeypatch.undo()
    keeper = Keeper(log, key)
    keeper.keep("stored", 3, "hmac:" + "a" * 64)
    keeper.keep("stored", 4, "hmac:" + "b" * 64)  # rewritten in place
    noted = kept_head(log, "stored", key)
    assert noted is not None and (noted.seq, noted.hash, noted.forged) == (
        4,
        "hmac:" + "b" * 64,
        None,
    )
    keeper.keep("stored", 5, "v3:" + "c" * 64)  # a shorter hash leaves no old tail
    keeper.close()
    noted = kept_head(log, "stored", key)
    assert noted is not None and (noted.seq, noted.hash, noted.forged) == (
        5,
        "v3:" + "c" * 64,
        None,
    )
    assert head_path(log, "stored").stat().st_mode & 0o777 == 0o600
