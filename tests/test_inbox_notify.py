"""Notifications of a waiting call: a real paused run (its Bash line holding a Stripe key),
told to a real webhook receiver on 127.0.0.1 in Slack's, Teams', Discord's and hookline's own
JSON shapes. A send the receiver fails (a 500) is tried again; each pause is told once; no body
holds the key; chat text is escaped so it cannot ping a channel; the links are signed and open
the call in the inbox."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookline._agent.saved.deadline import when
from hookline._errors import ConfigError
from hookline._inbox import links
from hookline._inbox.notify import FORMATS, Notifier, Target
from hookline._inbox.pending import Pending, pending_sessions
from hookline.audit._writer import AuditWriter
from hookline.storage import SqliteStore
from inbox_server import add_users, paused_run, started
from local_http import RecordingServer, serve

SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
COMMAND = f"curl -u {SECRET}: https://api.example.com <!channel> @everyone >> sentinel.txt"
KEY = b"k" * 32


class Flaky:
    """A receiver's answers: 500 to the first ``fail`` POSTs to each path, then 200."""

    def __init__(self, fail: int = 0) -> None:
        self.fail = fail
        self.failed: Counter[str] = Counter()

    def get(self, path: str, default: tuple[int, bytes]) -> tuple[int, bytes]:
        if self.failed[path] < self.fail:
            self.failed[path] += 1
            return (500, b"")
        return (200, b"")


class Receiver:
    """A webhook receiver on 127.0.0.1 (``tests/local_http.py``): each request's path and JSON
    body in ``got``, answered as ``Flaky`` says."""

    def __init__(self, fail: int = 0) -> None:
        self.arrived = threading.Condition()
        self.server = RecordingServer(Flaky(fail), record=self._record)  # type: ignore[arg-type]

    @property
    def got(self) -> list[tuple[str, Any]]:
        return self.server.seen

    def _record(self, handler: Any, body: Any) -> tuple[str, Any]:
        with self.arrived:
            self.arrived.notify_all()
        return (handler.path, body)

    def wait_for(self, count: int) -> bool:
        """Whether ``count`` requests arrived (bounded, so a bug fails instead of hanging)."""
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.got) >= count, timeout=120)


@contextmanager
def receiving(receiver: Receiver) -> Iterator[str]:
    with serve(receiver.server):
        yield receiver.server.url("")


def waiting(project: Path) -> list[Pending]:
    return waiting_on(project, COMMAND)


def notifier(url: str, *, said: list[str] | None = None) -> Notifier:
    targets = tuple(Target.parse(f"{name}={url}/{name}") for name in FORMATS)
    told = said if said is not None else []
    return Notifier(targets, inbox="https://inbox.example", key=KEY, backoff=0.001,
                    say=told.append)  # fmt: skip


def test_a_waiting_call_is_told_once_in_every_shape_with_no_secret(tmp_path: Path) -> None:
    found = waiting(tmp_path)
    receiver = Receiver(fail=1)
    with receiving(receiver) as url:
        notify = notifier(url)
        assert asyncio.run(notify.newly(found)) == len(FORMATS)
        assert asyncio.run(notify.newly(found)) == 0  # told once
    bodies = {path.strip("/"): body for path, body in receiver.got}
    assert sorted(bodies) == sorted(FORMATS)
    assert len(receiver.got) == 2 * len(FORMATS)  # each failed once, then went through
    everything = json.dumps([body for _, body in receiver.got])
    assert SECRET not in everything and "[REDACTED]" in everything
    slack = bodies["slack"]
    assert "<!channel>" not in json.dumps(slack["text"]) and "Bash" in slack["text"]
    assert bodies["discord"]["allowed_mentions"] == {"parse": []}
    card = bodies["teams"]["attachments"][0]["content"]
    assert card["type"] == "AdaptiveCard" and card["actions"][0]["type"] == "Action.OpenUrl"
    [call] = bodies["json"]["calls"]
    assert call["tool"] == "Bash" and bodies["json"]["session_id"] == found[0].session_id
    token = call["approve_url"].split("/link?t=", 1)[1]
    link = links.read(KEY, token)
    assert (link.session_id, link.action, link.paused_at) == (
        found[0].session_id,
        "approve",
        found[0].paused_at,
    )
    with pytest.raises(links.BadLink):
        links.read(b"another key" * 3, token)


def test_a_target_that_keeps_failing_is_tried_a_bounded_number_of_times(tmp_path: Path) -> None:
    found = waiting(tmp_path)
    receiver = Receiver(fail=100)
    said: list[str] = []
    with receiving(receiver) as url:
        notify = Notifier((Target.parse(f"json={url}/json"),), backoff=0.001, say=said.append)
        assert asyncio.run(notify.newly(found)) == 0
    assert len(receiver.got) == 5
    assert said and "json notification was not delivered" in said[0]


@pytest.mark.parametrize("given", ["slack", "irc=https://x", "json=ftp://x", "=https://x"])
def test_a_target_that_is_not_format_equals_url_is_refused(given: str) -> None:
    with pytest.raises(ConfigError, match="FORMAT=URL"):
        Target.parse(given)


def test_a_running_inbox_tells_its_webhook_when_a_run_pauses(tmp_path: Path) -> None:
    """``hookline inbox --notify``: the inbox looks at the store, and a pause that appears is
    told, with links to the inbox's own address."""
    project, users = tmp_path / "project", tmp_path / "users.json"
    project.mkdir()
    add_users(users)
    receiver = Receiver()
    before = paused_run(project, command=COMMAND)  # the store the inbox reads
    with receiving(receiver) as url:
        given = ("--notify", f"json={url}/json", "--public-url", "https://inbox.example:8443")
        with started(project, users, *given):
            assert receiver.wait_for(1), "the pause waiting when the inbox started was not told"
            session = paused_run(project, command=COMMAND)
            assert receiver.wait_for(2), "the new pause was not told"
        with started(project, users, *given):  # started again: what it told is on record
            third = paused_run(project, command=COMMAND)
            assert receiver.wait_for(3), "the pause after the restart was not told"
    told = [before, session, third]
    assert [body["session_id"] for _, body in receiver.got] == told  # each once, across starts
    path, body = receiver.got[1]
    assert path == "/json"
    [call] = body["calls"]
    assert call["approve_url"].startswith("https://inbox.example:8443/link?t=")
    assert SECRET not in json.dumps(body)


def audit_of(project: Path) -> AuditWriter:
    return AuditWriter.open(project / ".hookline" / "state")


def test_what_was_told_is_on_record_and_not_told_again_after_a_restart(tmp_path: Path) -> None:
    found = waiting(tmp_path)
    receiver = Receiver()
    with receiving(receiver) as url, audit_of(tmp_path) as audit:
        first = Notifier((Target.parse(f"json={url}/json"),), audit=audit)
        assert asyncio.run(first.newly(found)) == 1
        again = Notifier((Target.parse(f"json={url}/json"),), audit=audit)  # a new process
        assert asyncio.run(again.newly(found)) == 0
    assert len(receiver.got) == 1
    store = SqliteStore(tmp_path / ".hookline" / "state" / "hookline.db")
    try:
        (row,) = [r for r in store.audit_rows() if r.kind == "inbox_notify"]
    finally:
        store.close()
    assert (row.session_id, row.decision) == (found[0].session_id, "notified")
    assert row.data["formats"] == ["json"] and row.data["delivered"] == 1
    assert row.data["calls"] == [found[0].calls[0].request.tool_use_id]


def test_a_telling_nobody_received_is_tried_again_after_a_restart(tmp_path: Path) -> None:
    found = waiting(tmp_path)
    down, up = Receiver(fail=100), Receiver()
    with audit_of(tmp_path) as audit:
        with receiving(down) as url:
            failing = Notifier((Target.parse(f"json={url}/json"),), audit=audit, backoff=0.001,
                               say=lambda _: None)  # fmt: skip
            assert asyncio.run(failing.newly(found)) == 0
        with receiving(up) as url:
            later = Notifier((Target.parse(f"json={url}/json"),), audit=audit)
            assert asyncio.run(later.newly(found)) == 1
    assert [body["session_id"] for _, body in up.got] == [found[0].session_id]


def test_chat_text_forges_no_link_and_renders_no_markdown(tmp_path: Path) -> None:
    forged = "echo '[Approve](https://evil.example/x) **now** # urgent' >> sentinel.txt"
    found = waiting_on(tmp_path, forged)
    receiver = Receiver()
    with receiving(receiver) as url:
        assert asyncio.run(notifier(url).newly(found)) == len(FORMATS)
    bodies = {path.strip("/"): body for path, body in receiver.got}
    embed = bodies["discord"]["embeds"][0]["description"]
    links_in = re.findall(r"(?<!\\)\[([^\]]*)\]\(([^)]*)\)", embed)
    assert links_in and all(u.startswith("https://inbox.example/link?t=") for _, u in links_in)
    assert "\\[Approve\\]\\(https\\://evil.example/x\\)" in embed
    card = bodies["teams"]["attachments"][0]["content"]
    blocks = card["body"]
    assert all(b["type"] == "RichTextBlock" for b in blocks)  # text runs: no markdown
    runs = [run["text"] for b in blocks for run in b["inlines"]]
    assert any("[Approve](https://evil.example/x)" in text for text in runs)
    assert all(a["url"].startswith("https://inbox.example/link?t=") for a in card["actions"])
    assert card["actions"] and card["actions"][0]["url"].startswith("https://inbox.example/link?t=")
    slack_calls = [b for b in bodies["slack"]["blocks"][1:] if b["type"] == "section"]
    assert all(b["text"]["type"] == "plain_text" for b in slack_calls)


def waiting_on(project: Path, command: str) -> list[Pending]:
    paused_run(project, command=command)
    store = SqliteStore(project / ".hookline" / "state" / "hookline.db")
    try:
        return pending_sessions(store)
    finally:
        store.close()


def test_chat_text_shows_bidi_and_invisible_characters_written_out(tmp_path: Path) -> None:
    """A right-to-left override or a zero-width character in a call's input could make a chat
    line read as something else: in Slack, Teams and Discord they are written out, as the
    terminal prompt and the inbox write them; hookline's own JSON keeps the value exact."""
    found = waiting_on(tmp_path, "echo 'safe\u202etxt.exe\u200b' >> sentinel.txt")
    receiver = Receiver()
    with receiving(receiver) as url:
        assert asyncio.run(notifier(url).newly(found)) == len(FORMATS)
    bodies = {path.strip("/"): json.dumps(body, ensure_ascii=False) for path, body in receiver.got}
    for chat in ("slack", "teams", "discord"):
        assert "\u202e" not in bodies[chat] and "\u200b" not in bodies[chat], chat
        assert "202e" in bodies[chat].lower(), chat
    assert "\u202e" in bodies["json"]


def test_a_pause_with_a_deadline_is_told_with_it_and_its_links_end_there(tmp_path: Path) -> None:
    [found] = waiting(tmp_path)
    deadline = time.time() + 600  # sooner than a link's own day
    pause = replace(found, deadline=deadline)
    receiver = Receiver()
    with receiving(receiver) as url:
        assert asyncio.run(notifier(url).newly([pause])) == len(FORMATS)
    bodies = {path.strip("/"): body for path, body in receiver.got}
    said = f"answer by {when(deadline)}"
    assert (
        said in bodies["slack"]["text"]
        and said in bodies["teams"]["attachments"][0]["content"]["body"][0]["inlines"][0]["text"]
    )
    assert bodies["json"]["answer_by"] == deadline
    [call] = bodies["json"]["calls"]
    link = links.read(KEY, call["deny_url"].split("/link?t=", 1)[1])
    assert link.expires == deadline
    receiver = Receiver()  # with no deadline: none said, a link lasts its day
    with receiving(receiver) as url:
        asyncio.run(notifier(url).newly([found]))
    bodies = {path.strip("/"): body for path, body in receiver.got}
    assert "answer by" not in bodies["slack"]["text"] and bodies["json"]["answer_by"] is None
    [call] = bodies["json"]["calls"]
    link = links.read(KEY, call["deny_url"].split("/link?t=", 1)[1])
    assert link.expires > deadline
