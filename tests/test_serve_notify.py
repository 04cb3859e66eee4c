"""``hookline serve --inbox --notify``: the webhooks are told of the store's paused sessions
as ``hookline inbox --notify`` tells them (the inbox's loop runs in the server, which mounts
the inbox), and of each live ask by the worker that makes it: each once, across two workers
sharing the state folder and across a restart.

Real ``hookline serve --workers 2`` processes on 127.0.0.1, real paused runs in the store
they serve (``hookline run --defer-asks``), a real webhook receiver on 127.0.0.1; the host's
live ask is an httpx POST shaped as Claude Code's hook.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from asks_server import asked, deploy, permission, policy, pool, posted, serve_process, users
from hookline._cli.serve_asks import INBOX_PATH
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.storage import AskStore, open_store
from inbox_server import paused_run
from test_inbox_notify import COMMAND, Receiver, receiving

__all__ = ["policy", "pool", "users"]  # the fixtures, for the tests that ask for them


def test_two_workers_tell_each_paused_session_and_each_live_ask_once_across_a_restart(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    state = project / ".hookline" / "state"  # the store the paused runs keep their sessions in
    receiver = Receiver()
    before = paused_run(project, command=COMMAND)
    with receiving(receiver) as hooks:
        given = ("--workers", "2", "--notify", f"json={hooks}/json")
        with serve_process(policy, state, users, *given) as where:
            assert receiver.wait_for(1), "the pause waiting when the server started was not told"
            host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
            assert receiver.wait_for(2), "the live ask was not told"
            # a pause while the ask waits: the round of the loop that tells it sees the ask
            # too, and leaves it to the worker that made it
            session = paused_run(project, command=COMMAND)
            assert receiver.wait_for(3), "the pause made while it served was not told"
            store = open_store(None, state_dir=state)
            assert isinstance(store, AskStore)
            [ask] = asked(store)
            assert store.answer_ask(ask.id, {"permission": "deny", "by": "ann", "via": "inbox"})
            assert permission(host.result())[0] == "deny"
            store.close()
        with serve_process(policy, state, users, *given):  # again: what was told is on record
            third = paused_run(project, command=COMMAND)
            assert receiver.wait_for(4), "the pause after the restart was not told"
    told = [body["session_id"] for _, body in receiver.got]
    assert told == [before, deploy(tmp_path)["session_id"], session, third]  # each once
    path, body = receiver.got[2]
    [call] = body["calls"]
    assert path == "/json" and call["tool"] == "Bash"
    assert call["approve_url"].startswith(where + INBOX_PATH + "/link?t=")
