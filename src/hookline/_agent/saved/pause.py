"""Pausing a session into the store, and claiming it back for a resume, exactly once.

A session's record moves ``running`` (only when checkpointing) → ``deferred`` (paused, waiting
for an answer) → ``resuming`` (claimed by one process: a compare-and-set, so two processes
trying at once cannot both win; the status names the process, ``hookline._agent.saved.owners``) →
``running`` (saved at once by the process that claimed it, under its pid, and at every step
after) → ``done`` or ``deferred`` again. A ``running`` record whose process died (its pid is
gone on this host) can be claimed too: a crashed session resumes from its last checkpoint. So
can a claim whose process died before its first save: the session is taken over from it. A
run that a Ctrl-C or an error stops is marked ``interrupted`` (by ``interrupted``), noting the
status it had: it resumes from its last checkpoint, if any.

At most once: a checkpoint notes each call whose body is about to run (``Turn.started``), before
the audit's write-ahead record and the body. A resume reads that mark, and only that: a call
that started and has no saved result is never run again on its own; the model reads that it was
interrupted and its outcome is unknown (status ``interrupted``, recorded in the audit as such),
unless the resumer asks for it to run again (``Resumer.rerun_interrupted``, recorded with who).
The mark lives in the sealed state the resume claims, so it is there with the audit off, and a
call without it never reached its body.

Everything is checked before the claim (``check``): the state against its typed model and its
keyed hash (``hookline._agent.saved.seal``: a state edited outside hookline, or saved without one,
is refused unless the resumer trusts it), and every line of the transcript. A failure is one
ConfigError and the session stays as it was. Should anything fail once the session is taken
and before its first step, ``release`` gives the claim back. A claim after the pause's
deadline gives each waiting call the expiry answer, not the resumer's
(``hookline._agent.saved.deadline``): every answer comes through here, once. With a tenant
(``--tenant``), a session of another tenant is "no such session", exactly as one that does not
exist.

Saving is an observer (``Persistence``), plugged into every agent after the audit log: it
saves the session when the run pauses, at each checkpoint (``checkpoint=True``), and as done
when a run of a session it keeps ends. Observers hear of each resume (``Observer.resumed``, with
the claim and the ``Resumer``): the audit log records who resumed, the answer and the edit.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookline._agent.messages import Message
from hookline._agent.observers import Observer
from hookline._agent.saved import seal
from hookline._agent.saved.deadline import Expired, expire
from hookline._agent.saved.hidden import hidden
from hookline._agent.saved.owners import RESUMING, claim_of, claim_status, is_claimed, owner_alive
from hookline._agent.saved.state import SEALED_SINCE, STATE_VERSION, Turn, dump_state, load_state
from hookline._agent.saved.store import SessionRecord, SessionStore
from hookline._agent.session import transcript_path
from hookline._agent.transcript import first_bad_line
from hookline._errors import ConfigError, ToolInputError
from hookline._tools.approvals import Approval
from hookline._tools.base import ToolContext, Workspace

if TYPE_CHECKING:
    from hookline._agent.result import RunResult
    from hookline._agent.session import Session
    from hookline._tools.base import Toolbox, ToolCall

Answers = Approval | Mapping[str, Approval] | None


@dataclass
class Claimed:
    """A session taken for a resume: what to rebuild, and the answer for each waiting call."""

    session: dict[str, Any]
    messages: list[Message]
    turn: Turn
    answers: dict[str, Approval]
    launch: Mapping[str, Any] | None
    #: The status it had before the claim: what ``release`` puts back.
    status: str = "deferred"
    #: What was edited outside hookline (or why that cannot be told), when it was trusted.
    edited: tuple[str, ...] = ()
    #: The status the claim set (it names this process).
    held: str = RESUMING
    #: Claimed after the pause's deadline: ``answers`` are the expiry's, not the resumer's.
    expired: Expired | None = None


#: What the model reads for a call that started before its session stopped and has no result.
UNKNOWN_OUTCOME = (
    "This call was interrupted: the session stopped while it ran, so whether it took effect is "
    "unknown. It was not run again; check before repeating it."
)


@dataclass(frozen=True)
class Resumer:
    """Who resumes a session and how, for the audit log."""

    #: Who resumed (``--user``); None: the session's own user.
    user: str | None = None
    #: The settings changed under the paused session and were loaded again as they are now.
    reload_settings: bool = False
    #: What changed (``path (changed|new|removed)``), when they were reloaded.
    settings_changed: tuple[str, ...] = ()
    #: Resume a state edited outside hookline, or saved without a keyed hash (recorded).
    trust_edited_state: bool = False
    #: Only a session of this tenant (``--tenant``); any other is "no such session".
    tenant: str | None = None
    #: Run again, on purpose, the calls that started before a crash and have no result.
    rerun_interrupted: bool = False


@dataclass(frozen=True)
class Checked:
    """A stored session, checked whole for a resume; nothing taken yet."""

    record: SessionRecord
    #: The status the claim expects (deferred, running for a crashed session, the claim of a
    #: resume killed before its first save).
    expected: str
    #: The status the session was taken from (before any claim): what a release puts back.
    taken_from: str
    session: dict[str, Any]
    messages: list[Message]
    turn: Turn
    #: What was edited outside hookline (or why that cannot be told), when it was trusted.
    edited: tuple[str, ...] = ()

    @property
    def launch(self) -> Mapping[str, Any] | None:
        launch: Mapping[str, Any] | None = self.record.state.get("launch")
        return launch


class Persistence(Observer):
    """Keeps sessions in the store: paused, at each checkpoint, and done when a run of a
    session it keeps (paused, checkpointed or resumed before) ends."""

    #: A pause that cannot be saved must not look saved: the run stops with the error.
    fail_closed = True

    def __init__(self, store: Callable[[], SessionStore], *, launch: Any = None) -> None:
        #: The store now (an agent reopens its store after ``close``).
        self.store = store
        #: Opaque data saved with each state (the CLI's flags).
        self.launch = launch
        self._kept: set[str] = set()

    def checkpoint(self, session: Session, turn: Turn) -> None:
        self._save(session, turn, "running")  # under this process's pid: a crash is resumable

    def paused(self, session: Session, turn: Turn) -> None:
        self._save(session, turn, "deferred")

    def resumed(self, session: Session, claimed: Claimed, by: Resumer) -> None:
        self._kept.add(session.id)

    def run_ended(self, session: Session, turn: Turn, result: RunResult) -> None:
        if session.id in self._kept and result.stop_reason != "tool_deferred":
            self._save(session, turn, "done")  # the store holds this session: close its record

    def _save(self, session: Session, turn: Turn, status: str) -> None:
        self._kept.add(session.id)
        save(self.store(), session, turn, status=status, launch=self.launch)


def save(store: SessionStore, session: Session, turn: Turn, *, status: str, launch: Any) -> None:
    """Write the session's state, sealed, with ``status`` (deferred: paused; running: a
    checkpoint; done)."""
    session.transcript.flush()  # the conversation is on disk before the state says so
    state = hidden(
        dump_state(session.snapshot(), session.messages, turn)
    )  # no conversation in clear
    state["launch"] = dict(launch) if launch else None
    state["owner"] = {"host": socket.gethostname(), "pid": os.getpid()}
    scope = session.scope
    record = SessionRecord(
        id=session.id,
        status=status,
        version=STATE_VERSION,
        state=state,
        user=scope.user,
        tenant=scope.tenant,
    )
    state["seal"] = seal.seal(state, record)
    store.put_session(record)


def find(store: SessionStore, session_id: str, *, tenant: str | None = None) -> SessionRecord:
    """The stored session; a ConfigError when there is none, or (with ``tenant``) when it is
    another tenant's: the same words, so a tenant cannot tell which."""
    record = store.get_session(session_id)
    if record is None or (tenant is not None and record.tenant != tenant):
        raise ConfigError(
            f"no session {session_id!r} in the store",
            key="session",
            fix="hookline sessions list shows the sessions that can be resumed",
        )
    return record


def check(record: SessionRecord, *, trust_edited_state: bool = False) -> Checked:
    """Everything a resume of ``record`` reads, checked: its status, its state (typed, and
    sealed by hookline unless ``trust_edited_state``) and its transcript. A ConfigError says
    what is wrong; nothing is taken or changed."""
    where = f"session {record.id}"
    expected = resumable(record)
    left = claim_of(record.status)  # a claim left by a resume killed before its first save
    taken_from = left.taken_from if left is not None else expected
    session, messages, turn = load_state(record.state, where=where)
    if session["id"] != record.id:
        raise ConfigError(
            f"its saved state is session {session['id']}'s",
            file=where,
            fix="it cannot be resumed; start a new session",
        )
    edited = _edits(replace(record, status=taken_from), trusted=trust_edited_state)
    path = transcript_path(session["state_dir"], record.id)
    bad = first_bad_line(path)
    if bad is not None:
        raise ConfigError(
            f"transcript line {bad} is not a message object",
            file=where,
            fix=f"correct or remove line {bad} of {path}, then resume again",
        )
    return Checked(record, expected, taken_from, session, messages, turn, edited)


def claim(
    store: SessionStore,
    session_id: str,
    answer: Answers,
    tools: Toolbox,
    *,
    by: Resumer | None = None,
    now: float | None = None,
) -> Claimed:
    """Check everything, then take the session; ConfigError (nothing taken) when it cannot be.
    ``now``: the time of the claim, which a deadline is compared with (None: the clock's)."""
    by = by or Resumer()
    checked = check(
        find(store, session_id, tenant=by.tenant), trust_edited_state=by.trust_edited_state
    )
    session, turn = checked.session, checked.turn
    to_run = [*turn.waiting, *(turn.interrupted if by.rerun_interrupted else [])]
    answers = _answers(to_run, answer)  # a call run again is judged again: it takes an answer
    expired = expire(turn, answers, time.time() if now is None else now)
    if expired is not None:  # past the deadline: the expiry answers, not the resumer's
        answers = {**answers, **expired.answers}
    ctx = ToolContext(cwd=Path(session["cwd"]), workspace=Workspace.of(*session["roots"]))
    _check_edits(answers, to_run, tools, ctx)
    held = claim_status(checked.taken_from)
    if not store.claim_session(session_id, expected=checked.expected, new=held):
        raise ConfigError(
            f"session {session_id} was resumed by another process just now",
            key="session",
            fix="a paused session resumes once; see hookline sessions show",
        )
    return Claimed(
        session,
        checked.messages,
        turn,
        answers,
        checked.launch,
        checked.taken_from,
        checked.edited,
        held,
        expired,
    )


def release(store: SessionStore, claimed: Claimed) -> None:
    """Give back a claim (status ``resuming`` -> what it was) when the resume could not start."""
    store.claim_session(claimed.session["id"], expected=claimed.held, new=claimed.status)


def resumable(record: SessionRecord) -> str:
    """The status the claim expects; ConfigError when the session cannot be resumed."""
    if record.status == "deferred":
        return "deferred"
    if record.status == "running" and not owner_alive(record.state.get("owner")):
        return "running"  # its process crashed: go on from the last checkpoint
    if record.status == "interrupted" and record.state.get("interrupted_from") in _SAVED:
        return "interrupted"  # a Ctrl-C or an error: go on from the last checkpoint
    left = claim_of(record.status)
    if left is not None and left.taken_from in _TAKEN and left.stale:
        return record.status  # its resume died before its first save: take it over
    why = {
        "resuming": "is being resumed by another process",
        "done": "has finished",
        "running": "is still running (in a live process here, or on another machine)",
        "interrupted": "was interrupted before anything was saved to go on from (its "
        "conversation is in its transcript)",
        "started": "is running, or its process ended without saving anything to go on from",
    }.get(RESUMING if is_claimed(record.status) else record.status, f"is {record.status}")
    raise ConfigError(
        f"session {record.id} {why}; only a paused (or crashed) session can be resumed",
        key="session",
        fix="hookline sessions list --status paused",
    )


#: The statuses whose state a resume can go on from: a pause, a checkpoint, a claim.
_SAVED = ("deferred", "running", "resuming")
#: The statuses a claim can be taken from.
_TAKEN = ("deferred", "running", "interrupted")
#: The statuses of a session a process is working on.
_LIVE = ("running", "resuming", "started")


def interrupted(store: SessionStore, session_id: str) -> None:
    """Mark the session's record ``interrupted`` (a Ctrl-C, an error stopped its run), noting
    the status it had, so it is not left looking alive. Its state is kept as it was saved, and
    sealed again only when its seal holds: an edit made outside hookline is never vouched for."""
    record = store.get_session(session_id)
    if record is None or record.status not in _LIVE:
        return
    try:
        if seal.changed(record):
            return
    except seal.Unverifiable:
        return
    state = {key: value for key, value in record.state.items() if key != "seal"}
    state["interrupted_from"] = record.status
    marked = replace(record, status="interrupted", state=state, updated_at=time.time())
    state["seal"] = seal.seal(state, marked)
    store.put_session(marked)


def _edits(record: SessionRecord, *, trusted: bool) -> tuple[str, ...]:
    """What was edited outside hookline; a ConfigError unless ``trusted``."""
    where, fix = f"session {record.id}", "--trust-edited-state resumes it anyway (on record)"
    try:
        edited = seal.changed(record)
    except seal.Unverifiable as exc:
        if trusted:
            return (str(exc),)
        if record.state.get("version", 0) < SEALED_SINCE and "no keyed hash" in str(exc):
            raise ConfigError(
                "it was saved by an older hookline, without a keyed hash, so an edit outside "
                "hookline cannot be ruled out",
                file=where,
                fix=f"check it with hookline sessions show {record.id}; {fix}",
            ) from None
        raise ConfigError(
            f"its saved state cannot be checked: {exc}",
            file=where,
            fix=f"{fix}, if you know where it came from",
        ) from None
    if edited and not trusted:
        raise ConfigError(
            f"its saved state was changed outside hookline ({', '.join(edited)})",
            file=where,
            fix=f"put the row back as hookline saved it; if the change is yours, {fix}",
        )
    return tuple(edited)


def _answers(waiting: list[ToolCall], answer: Answers) -> dict[str, Approval]:
    if answer is None:
        return {}
    if isinstance(answer, Approval):
        return {call.id: answer for call in waiting}
    unknown = sorted(set(answer) - {call.id for call in waiting})
    if unknown:
        raise ConfigError(
            f"no waiting call has the id {unknown[0]!r}",
            key="answer",
            fix=f"answer one of: {', '.join(c.id for c in waiting)}",
        )
    return dict(answer)


def _check_edits(
    answers: dict[str, Approval], waiting: list[ToolCall], tools: Toolbox, ctx: ToolContext
) -> None:
    """An edited input must fit its tool before anything is claimed or run."""
    for call in waiting:
        edited = answers.get(call.id)
        tool = tools.get(call.name)
        if edited is None or edited.updated_input is None or tool is None:
            continue
        try:
            tool.prepare(dict(edited.updated_input), ctx)
        except ToolInputError as exc:
            raise ConfigError(
                f"the edited input does not fit {call.name}: {exc}",
                key="--edit",
                fix=f"give a JSON object {call.name} accepts",
            ) from None
