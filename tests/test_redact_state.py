"""The session state in the store holds no copy of the conversation in clear: a checkpointed
run's secrets are in its transcript (private) and nowhere else in the state folder, not in the
store, nor in its -wal and -shm while it is open; the key gives the conversation back."""

from __future__ import annotations

import asyncio
import base64
import copy
from pathlib import Path
from typing import Any

import pytest

import hookline
from hookline import Agent, ScriptedModel
from hookline.agent.hidden import FIELD, revealed
from hookline.agent.state import load_state
from hookline.errors import ConfigError
from hookline.storage import open_store

SECRETS = ("postgres://app:Pg5ecretInState@db/x", "sk_live_51StateStripeKey0042", "Hunter2State")


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


@pytest.fixture
def checkpointed(tmp_path: Path) -> tuple[Path, str, bytes]:
    """A checkpointed, audited run that ends: its state folder, its session id, and the bytes of
    the state folder (transcripts aside) while the store was still open."""
    agent = Agent(ScriptedModel(script()), tools=[connect], cwd=tmp_path, checkpoint=True,
                  audit=True)  # fmt: skip
    result = agent.run_sync("go")
    state = tmp_path / ".hookline" / "state"
    open_bytes = files_but_transcripts(state)
    asyncio.run(agent.close())
    return state, result.session_id, open_bytes


def test_the_store_and_its_wal_hold_no_secret_of_the_conversation(checkpointed):
    state, session_id, open_bytes = checkpointed
    for secret in SECRETS:
        assert secret.encode() not in open_bytes
        assert secret.encode() not in files_but_transcripts(state)
    transcript = state / "transcripts" / f"{session_id}.jsonl"
    assert all(secret in transcript.read_text() for secret in SECRETS)  # the raw record
    assert transcript.stat().st_mode & 0o777 == 0o600


def test_the_key_gives_the_conversation_back_and_an_edit_is_refused(checkpointed):
    state, session_id, _ = checkpointed
    store = open_store(None, state_dir=state)
    record = store.get_session(session_id)
    store.close()
    assert record is not None and FIELD in record.state and "messages" not in record.state
    _, messages, _ = load_state(record.state, where="here")
    assert SECRETS[0] in str([m.to_dict() for m in messages])
    assert "messages" in revealed(record.state)
    edited = copy.deepcopy(record.state)
    data = bytearray(base64.b64decode(edited[FIELD]["data"]))
    data[0] ^= 1
    edited[FIELD]["data"] = base64.b64encode(bytes(data)).decode()
    with pytest.raises(ConfigError, match="edited outside hookline"):
        load_state(edited, where="here")
