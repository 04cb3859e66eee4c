"""The session state in the store holds no copy of the conversation in clear: a checkpointed
run's secrets are in its transcript (private) and nowhere else, not in the SQLite store, nor in
its -wal and -shm while it is open, nor in a PostgreSQL store (its rows, and the server's own
files); the key gives the conversation back, and an edit, a move to another session or a
state of the first format are told apart."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import os
import secrets
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import hookline
from hookline import Agent, ScriptedModel
from hookline._agent.saved.hidden import ALGORITHM, FIELD, INSTALL_HINT, PARTS, hidden, revealed
from hookline._agent.saved.seal import KEY_ENV, load_key
from hookline._agent.saved.state import load_state
from hookline._errors import ConfigError
from hookline.audit._keyed import chain_key
from hookline.storage import open_store
from postgres_schema import fresh_schema, query, rows_as_text

#: New in each test run: a server's files keep what an earlier run wrote (its WAL, dead rows).
_RUN = secrets.token_hex(6)
SECRETS = (f"postgres://app:Pg5ecret{_RUN}@db/x", f"sk_live_51StateKey{_RUN}", f"Hunter2{_RUN}")
FIRST_FORMAT = Path(__file__).parent / "fixtures" / "first_format_state.json"


@hookline.tool
def connect(url: str) -> str:
    """Connect."""
    return f"connected with {url}"


def script() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"id": "t1", "name": "connect", "input": {"url": SECRETS[0]}}]},
        {"text": f"the key is {SECRETS[1]} and the password {SECRETS[2]}"},
    ]


def files_but_transcripts(state: Path) -> bytes:
    return b"".join(
        p.read_bytes() for p in state.rglob("*") if p.is_file() and "transcripts" not in p.parts
    )


@dataclass
class Checkpointed:
    """A checkpointed, audited run that ended, and what its store held."""

    state: Path
    session_id: str
    #: Every byte the store held: the state folder's files (transcripts aside) while the SQLite
    #: store was open and after it closed; a PostgreSQL store's rows as text.
    held: list[bytes] = field(default_factory=list)
    #: The PostgreSQL store's URL ("" for SQLite).
    url: str = ""


@pytest.fixture(params=["sqlite", "postgres"])
def checkpointed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Checkpointed]:
    if request.param == "sqlite":
        yield _run(tmp_path, store=None)
        return
    with fresh_schema("hookline_secrets") as (schema, url):
        yield _run(tmp_path, store=url, schema=schema)


@pytest.fixture
def in_postgres(tmp_path: Path) -> Iterator[Checkpointed]:
    with fresh_schema("hookline_secrets") as (schema, url):
        yield _run(tmp_path, store=url, schema=schema)


def _run(tmp_path: Path, *, store: str | None, schema: str = "") -> Checkpointed:
    agent = Agent(ScriptedModel(script()), tools=[connect], cwd=tmp_path, checkpoint=True,
                  audit=True, store=store)  # fmt: skip
    result = agent.run_sync("go")
    state = tmp_path / ".hookline" / "state"
    done = Checkpointed(state, result.session_id, [files_but_transcripts(state)], store or "")
    asyncio.run(agent.close())
    done.held.append(files_but_transcripts(state))
    if store:
        done.held.append(rows_as_text(store, schema))
    return done


def test_the_store_and_its_wal_hold_no_secret_of_the_conversation(checkpointed):
    for secret in SECRETS:
        assert all(secret.encode() not in held for held in checkpointed.held)
    transcript = checkpointed.state / "transcripts" / f"{checkpointed.session_id}.jsonl"
    assert all(secret in transcript.read_text() for secret in SECRETS)  # the raw record
    assert transcript.stat().st_mode & 0o777 == 0o600
    if checkpointed.url:  # the rows were read: the session's and the audit's
        assert checkpointed.session_id.encode() in checkpointed.held[-1]


def test_the_postgresql_servers_own_files_hold_no_secret(in_postgres):
    """The server's tables and write-ahead log, on disk after a CHECKPOINT: a control value
    written in clear beside the run's rows is found there, the run's secrets are not."""
    folder = os.environ.get("HOOKLINE_TEST_POSTGRES_DIR")
    if not folder or not os.access(Path(folder) / "data", os.R_OK):
        pytest.skip("the server's files are not readable here (.ci/postgres.sh, run as root)")
    control = f"PgControlInClear{_RUN}"
    query(in_postgres.url, "CREATE TABLE control (value text)")
    query(in_postgres.url, f"INSERT INTO control VALUES ('{control}')")
    query(in_postgres.url, "CHECKPOINT")  # every changed page written to the data files
    data = Path(folder) / "data"
    files = [p for part in ("base", "pg_wal") for p in (data / part).rglob("*") if p.is_file()]
    on_disk = b"".join(p.read_bytes() for p in files)
    assert control.encode() in on_disk
    assert in_postgres.session_id.encode() in on_disk  # the run's rows are there too
    for secret in SECRETS:
        assert secret.encode() not in on_disk


def test_the_key_gives_the_conversation_back_and_an_edit_is_refused(checkpointed):
    store = open_store(checkpointed.url or None, state_dir=checkpointed.state)
    record = store.get_session(checkpointed.session_id)
    store.close()
    assert record is not None and FIELD in record.state and "messages" not in record.state
    assert record.state[FIELD]["alg"] == ALGORITHM
    _, messages, _ = load_state(record.state, where="here")
    assert SECRETS[0] in str([m.to_dict() for m in messages])
    assert "messages" in revealed(record.state)
    edited = copy.deepcopy(record.state)
    data = bytearray(base64.b64decode(edited[FIELD]["data"]))
    data[0] ^= 1
    edited[FIELD]["data"] = base64.b64encode(bytes(data)).decode()
    with pytest.raises(ConfigError, match="edited outside hookline"):
        load_state(edited, where="here")


def a_state(session_id: str = "s-1", text: str = "hello") -> dict[str, Any]:
    return {"version": 3, "session": {"id": session_id}, "messages": [{"text": text}],
            "turn": {"prompt": "go"}}  # fmt: skip


def test_each_save_has_a_nonce_of_its_own_and_nothing_is_compressed():
    text = "the same words " * 200  # compresses to a few dozen bytes
    one, two = hidden(a_state(text=text)), hidden(a_state(text=text))
    assert one[FIELD]["nonce"] != two[FIELD]["nonce"] and one[FIELD]["data"] != two[FIELD]["data"]
    assert len(bytes.fromhex(one[FIELD]["nonce"])) == 12
    plain = json.dumps({part: a_state(text=text)[part] for part in PARTS}, separators=(",", ":"))
    assert len(base64.b64decode(one[FIELD]["data"])) == len(plain) + 16  # text and the tag
    assert set(one[FIELD]) == {"alg", "key", "nonce", "data"}
    assert revealed(one) == a_state(text=text)


def test_a_conversation_moved_to_another_session_does_not_open():
    theirs = hidden(a_state("session-a", "a secret of a"))
    mine = hidden(a_state("session-b", "mine"))
    mine[FIELD] = theirs[FIELD]  # a store writer swaps the boxes; the ids stay
    with pytest.raises(ConfigError, match="moved from another session") as refused:
        revealed(mine, where="session session-b")
    assert "\n" not in refused.value.message
    assert revealed(theirs)["messages"] == [{"text": "a secret of a"}]


def test_the_conversations_key_is_neither_the_user_key_nor_the_audit_chains():
    saved = hidden(a_state())[FIELD]
    nonce, data = bytes.fromhex(saved["nonce"]), base64.b64decode(saved["data"])
    user_key = load_key(create=False)
    assert user_key is not None and len(user_key) == 32
    for key in (user_key, chain_key(create=False)):
        assert key is not None
        with pytest.raises(InvalidTag):
            AESGCM(key).decrypt(nonce, data, b"hookline session s-1")


def test_a_state_of_the_first_format_still_reads_and_its_edit_is_refused(tmp_path, monkeypatch):
    first = json.loads(FIRST_FORMAT.read_text())
    (tmp_path / "state.key").write_text(first["key"] + "\n")
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "state.key"))
    assert first["saved"][FIELD]["alg"] == "shake256-xor+hmac-sha256"
    assert revealed(first["saved"]) == first["plain"]
    edited = copy.deepcopy(first["saved"])
    edited[FIELD]["mac"] = "0" * 64
    with pytest.raises(ConfigError, match="edited outside hookline"):
        revealed(edited)
    assert hidden(first["plain"])[FIELD]["alg"] == ALGORITHM  # a save writes the new format


def test_an_unknown_format_and_another_key_are_one_line_each(tmp_path, monkeypatch):
    saved = hidden(a_state())
    newer = copy.deepcopy(saved)
    newer[FIELD]["alg"] = "xchacha20-poly1305"
    with pytest.raises(ConfigError, match="'xchacha20-poly1305', which this hookline does not"):
        revealed(newer, where="session s-1")
    (tmp_path / "other.key").write_text("ab" * 32 + "\n")
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "other.key"))
    with pytest.raises(ConfigError, match="made with another key") as refused:
        revealed(saved, where="session s-1")
    assert refused.value.file == str(tmp_path / "other.key")


def test_without_the_cryptography_package_a_save_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.ciphers.aead", None)
    with pytest.raises(ConfigError, match="cryptography package") as refused:
        hidden(a_state())
    assert refused.value.fix == INSTALL_HINT
