"""What a kill left, each check a function of the story's folder (run in the campaign's worker,
whose HOME is the story's home, so the keys are the story's own):

- ``audit_problem``: ``hookline audit verify`` (its own command, in this process) must pass;
- ``doubled``: no tool_use_id twice in the ledger;
- ``unrecorded``: each ledger line has its call's ``tool_started`` record (written ahead);
- ``remaining``: the processes of the run still alive (found by the victim's mark in their
  environment, by the story's folder in their command line or as their folder);
- ``standing``: the session can be resumed (every check a resume makes before it claims it
  passes), or it is final: done, or a ``hookline run`` killed before it saved anything to go
  on from (listed as crashed, refused by a resume in one line), or nothing was stored yet;
- ``not_once``: at the story's end, a call the audit says executed is in the ledger exactly
  once, and one whose outcome is unknown (interrupted) at most once;
- ``misshapen``: at the end of a finished story, the conversation its transcript holds answers
  each call once, right after it (a resume goes on from its save in the transcript too).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from crash.gate import MARK_VAR
from crash.story import Story
from crash.victim import LEDGER
from hookline._agent.messages import ToolResultBlock
from hookline._agent.saved.owners import owner_alive
from hookline._agent.saved.pause import check
from hookline._agent.transcript import read_conversation
from hookline._cli.main import cli
from hookline._errors import ConfigError
from hookline.storage import open_store

#: How long the processes of a killed run get to end on their own (the keepers of its calls
#: end them when the harness's sockets close; a hook's own process ends).
GRACE = 1.0


def audit_problem(story: Story) -> str | None:
    """None when ``hookline audit verify`` passes (or nothing was written yet); else its
    output."""
    if not (story.state / "audit.jsonl").exists():
        return None
    done = CliRunner().invoke(cli, ["audit", "verify", "--cwd", str(story.project)])
    return None if done.exit_code == 0 else f"exit {done.exit_code}: {done.output.strip()}"


def ledger(story: Story) -> list[str]:
    path = story.project / LEDGER
    return path.read_text().splitlines() if path.exists() else []


def doubled(story: Story) -> list[str]:
    """The tool_use_ids in the ledger more than once."""
    return sorted(entry for entry, count in Counter(ledger(story)).items() if count > 1)


def audit_records(story: Story) -> list[dict[str, Any]]:
    """The audit file's whole records (a cut last line left out)."""
    path = story.state / "audit.jsonl"
    if not path.exists():
        return []
    records = []
    for line in path.read_bytes().split(b"\n"):
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def unrecorded(story: Story) -> list[str]:
    """Ledger entries whose call has no ``tool_started`` record: it ran unrecorded."""
    started = {r["tool_use_id"] for r in audit_records(story) if r["kind"] == "tool_started"}
    return sorted(set(ledger(story)) - started)


def not_once(story: Story) -> list[str]:
    """At the story's end: each executed call once in the ledger, an interrupted one at most
    once; what does not hold, said."""
    counts = Counter(ledger(story))
    problems = []
    for record in audit_records(story):
        if record["kind"] != "tool":
            continue
        call, outcome = record["tool_use_id"], record["decision"]
        if outcome == "executed" and counts[call] != 1:
            problems.append(f"{call} executed, in the ledger {counts[call]} times")
        elif counts[call] > 1:
            problems.append(f"{call} {outcome}, in the ledger {counts[call]} times")
    return problems


def misshapen(story: Story) -> list[str]:
    """At the end of a finished story: what is wrong with the conversation its transcript
    holds (what a transcript-based resume would send a model): a call answered other than
    once, right after it."""
    problems, asked = [], set()
    path = story.state / "transcripts" / f"{story.session_id}.jsonl"
    messages = read_conversation(path)
    for message, after in zip(messages, [*messages[1:], None], strict=True):
        calls = [call.id for call in message.tool_calls] if message.role == "assistant" else []
        if asked & set(calls):
            problems.append(f"a call asked for twice: {sorted(asked & set(calls))}")
        asked |= set(calls)
        blocks = after.content if after is not None else ()
        answered = [b.tool_use_id for b in blocks if isinstance(b, ToolResultBlock)]
        if calls and sorted(answered) != sorted(calls):
            problems.append(f"calls {calls} answered by {answered}")
    return problems


@dataclass
class Found:
    pid: int
    how: str
    command: str


def marked(mark: str, folder: Path) -> list[Found]:
    """The live processes carrying ``mark`` in their environment, or ``folder`` in their
    command line or as their working folder (a zombie has none of these: it is not live)."""
    found = []
    needle = f"{MARK_VAR}={mark}".encode()
    under = str(folder)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        how = _how(pid, needle, under)
        if how is not None:
            found.append(Found(pid, how, _read(pid, "cmdline").replace(b"\0", b" ").decode()))
    return found


def _how(pid: int, needle: bytes, under: str) -> str | None:
    if needle in _read(pid, "environ").split(b"\0"):
        return "environment"
    if under.encode() in _read(pid, "cmdline"):
        return "command line"
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None
    return "folder" if cwd == under or cwd.startswith(under + "/") else None


def _read(pid: int, name: str) -> bytes:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as file:
            return file.read()
    except OSError:  # gone, or not ours
        return b""


def remaining(mark: str, folder: Path, grace: float = GRACE) -> list[Found]:
    """The processes of the run alive ``grace`` seconds after it was killed (fewer if they
    are all gone sooner); each is then ended by its pid, so the story goes on clean."""
    deadline = time.monotonic() + grace
    while (found := marked(mark, folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for process in found:
        with suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
    return found


@dataclass
class Standing:
    """Where the session stands: ``resumable``, ``final`` or ``stuck`` (``problem`` says
    why); ``status`` as stored; ``waiting``: a resume must answer calls."""

    kind: str
    status: str = "-"
    waiting: bool = False
    problem: str | None = None
    session_id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


def standing(story: Story) -> Standing:
    if not (story.state / "hookline.db").exists():
        return Standing("final", "nothing stored")
    store = open_store(None, state_dir=story.state)
    try:
        records = store.list_sessions()
    finally:
        store.close()
    if not records:
        return Standing("final", "nothing stored")
    if len(records) > 1:
        return Standing("stuck", problem=f"{len(records)} sessions in one story")
    record = records[0]
    here = Standing("final", record.status, session_id=record.id)
    if record.status == "done":
        return here
    if record.status == "started":
        return _crashed(story, here, owner_alive(record.state.get("owner")))
    try:
        checked = check(record)
    except ConfigError as exc:
        here.kind, here.problem = "stuck", str(exc)
        return here
    here.kind, here.waiting = "resumable", bool(checked.turn.waiting)
    return here


def _crashed(story: Story, here: Standing, alive: bool) -> Standing:
    """A ``started`` run: final when its process is gone and a resume refuses it in one line
    (nothing was saved to go on from); stuck otherwise."""
    if alive:
        here.kind, here.problem = "stuck", "started, and its process looks alive"
        return here
    args = ["sessions", "resume", str(here.session_id), "--cwd", str(story.project)]
    done = CliRunner().invoke(cli, args)  # main() prints a ConfigError as one line, exit 2
    refused = isinstance(done.exception, ConfigError) and "\n" not in str(done.exception)
    if not refused:
        here.kind, here.problem = "stuck", f"a resume did not refuse it: {done.exception!r}"
    return here
