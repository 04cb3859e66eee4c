"""An answer given in the inbox, applied by ``hookline sessions resume``, and its record.

The inbox does not resume a run itself: each answer starts ``hookline sessions resume ID
--approve|--deny MESSAGE|--edit JSON --user NAME`` in a process of its own, with no terminal, so
everything a resume does holds as it does at the command line: the claim in the store (a
compare-and-set: of the inbox, a link, a terminal and another resume, the first answer wins and
the others are told the session was resumed already), the edit judged again by PreToolUse hooks
and the permission layer, the settings checked against the pause, the audit's ``resume`` record
with who. A call the run asks about again with nobody to answer (``--defer-asks``) pauses it
again: it is back in the inbox. The inbox's own ``inbox_answer`` record says who answered, in
which role, through what (the inbox or a signed link), why, and what came of it; a viewer's
refused try is one too. After the pause's deadline an answer is refused: the session is resumed
with no answer, and the resume denies its waiting calls as expired
(``hookline._agent.saved.deadline``); so is an answer the resume finds past it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from hookline._agent.saved.deadline import EXPIRED_BY
from hookline._cli.paused import EXIT_PAUSED
from hookline.audit._redact import Redactor
from hookline.storage import AuditEntry

Action = Literal["approve", "deny", "edit"]
ACTIONS: Final = ("approve", "deny", "edit")
#: ``hookline sessions resume``'s exit code for a resume that did not start (nothing answered).
_NOT_STARTED: Final = 2
#: The audit record of an answer given (or refused) in the inbox.
KIND: Final = "inbox_answer"
#: The audit record of a try to sign in to the inbox.
SIGNIN_KIND: Final = "inbox_signin"
#: Why an answer after the pause's deadline was not applied.
EXPIRED: Final = (
    "refused: the pause's deadline for an answer passed, so its waiting calls were denied as "
    "expired (the model reads why); this answer was not applied"
)


@dataclass(frozen=True, slots=True)
class Answer:
    """What a person answered for one paused session's waiting calls."""

    action: Action
    by: str
    role: str
    #: inbox (the page) or link (a signed one-time link).
    via: str = "inbox"
    #: On deny: what the model reads.
    message: str | None = None
    #: On edit: the whole input to run instead (judged again before it runs).
    edited: dict[str, Any] | None = None
    #: The person's own words on why, for the record.
    why: str = ""
    #: The one call it answers (its tool_use_id); None: every call the session waits on.
    call: str | None = None
    #: An approval that also allows, for the rest of the session, what the ask offered.
    for_session: bool = False

    def flags(self) -> list[str]:
        """``sessions resume``'s answer flags for it: ``--approve``, ``--deny MESSAGE`` or
        ``--edit JSON`` for every waiting call, ``--answer ID=...`` for one."""
        said: str | None = None
        if self.action == "deny":
            said = self.message or "Denied in the inbox."
        elif self.action == "edit":
            said = json.dumps(self.edited, ensure_ascii=True)
        lasting = ["--for-session"] if self.for_session else []
        if self.call is not None:
            one = f"{self.call}={self.action}" + (f":{said}" if said is not None else "")
            return ["--answer", one, *lasting]
        return [f"--{self.action}", *([said] if said is not None else []), *lasting]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of an answer: whether it was the one applied, and one line saying what."""

    applied: bool
    said: str
    calls: dict[str, str] = field(default_factory=dict)  # tool_use_id -> status
    #: The pause's deadline had passed: its calls got the expiry answer, not this one.
    expired: bool = False


@dataclass(frozen=True, slots=True)
class Resumer:
    """How the inbox starts ``hookline sessions resume``: the project and the store."""

    cwd: str
    store: str | None = None
    #: How long a page waits for the run to finish or pause again before it says it goes on.
    wait: float = 60.0

    def command(self, session_id: str, answer: Answer, *, expired: bool = False) -> list[str]:
        """The resume with ``answer``'s flags; ``expired``: with none (past the deadline the
        resume denies the waiting calls, and needs no answer)."""
        store = ["--store", self.store] if self.store else []
        return [
            sys.executable,
            "-m",
            "hookline",
            "sessions",
            "resume",
            session_id,
            "--cwd",
            self.cwd,
            *store,
            "--user",
            answer.by,
            "--via",
            answer.via,
            "--output-format",
            "json",
            *([] if expired else answer.flags()),
        ]

    async def apply(self, session_id: str, answer: Answer, *, expired: bool = False) -> Outcome:
        """Run the resume; its outcome once it ends (or, after ``wait``, that it goes on).
        ``expired``: the pause is past its deadline: resume it with no answer (refused)."""
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command(session_id, answer, expired=expired),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # a Ctrl-C at the inbox's terminal does not cut the run
            )
        except OSError as exc:  # an edit too long for a command line (E2BIG), ...
            return Outcome(False, f"the resume could not start ({exc.strerror or exc})")
        ended = asyncio.ensure_future(process.communicate())
        try:
            out, err = await asyncio.wait_for(asyncio.shield(ended), self.wait)
        except TimeoutError:
            if expired:
                return Outcome(False, EXPIRED, expired=True)
            return Outcome(True, f"answered; the run goes on (process {process.pid})")
        return outcome(
            process.returncode, out.decode(errors="replace"), err.decode("utf-8", "replace")
        )


def outcome(code: int | None, out: str, err: str) -> Outcome:
    """What a finished ``sessions resume`` said: its exit code, JSON result and error line."""
    if code == _NOT_STARTED:
        lines = [line for line in err.splitlines() if line.strip()]
        return Outcome(False, lines[-1] if lines else "the resume did not start")
    result = _result(out)
    done = result.get("tool_calls", [])
    calls = {str(c.get("tool_use_id")): str(c.get("status")) for c in done}
    if any(c.get("approver") == EXPIRED_BY for c in done):  # past the deadline at the claim
        return Outcome(False, EXPIRED, calls, expired=True)
    if code == 0:
        return Outcome(True, "answered; the run finished", calls)
    if code == EXIT_PAUSED:
        return Outcome(True, "answered; the run paused again: a call waits", calls)
    return Outcome(True, f"answered; the run ended with exit code {code}", calls)


def record(
    answer: Answer | None,
    *,
    session_id: str | None,
    call: tuple[str, str] | None,
    outcome: Outcome | None,
    redactor: Redactor,
    by: str = "",
    role: str = "",
    refused: str | None = None,
    ask: str | None = None,
    grant: dict[str, Any] | None = None,
) -> AuditEntry:
    """The ``inbox_answer`` record of an answer (with its outcome) or of a refused try;
    ``ask``: the live ask it answered (``hookline._inbox.live``), when not a paused session;
    ``grant``: what an approval for the session allows (the ask's offer)."""
    data: dict[str, Any] = {
        "by": answer.by if answer else by,
        "role": answer.role if answer else role,
        "ask": ask,
    }
    if answer is not None:
        data |= {"via": answer.via, "why": answer.why or None, "message": answer.message}
        data |= {"call": answer.call, "for_session": answer.for_session or None}
        data["grant"] = grant if answer.for_session else None
    if outcome is not None:
        data |= {"applied": outcome.applied, "outcome": outcome.said}
    if outcome is not None and outcome.expired:
        refused = refused or "the pause's deadline had passed"
    if refused is not None:
        data["refused"] = refused
    decision = "refused" if refused is not None or answer is None else answer.action
    allowed = answer is not None and answer.action != "deny" and refused is None
    return AuditEntry(
        kind=KIND,
        session_id=session_id,
        tool_use_id=call[0] if call else None,
        tool=call[1] if call else None,
        decision=decision,
        permission="allow" if allowed else "deny",
        data=redactor.redact({k: v for k, v in data.items() if v is not None}),
    )


def signin_record(name: str, decision: str, said: str) -> AuditEntry:
    """The ``inbox_signin`` record of a try to sign in as ``name``: ``signed_in`` (``said``:
    the role) or ``refused`` (``said``: why)."""
    key = "role" if decision == "signed_in" else "reason"
    data = Redactor().redact({"name": name, key: said})
    return AuditEntry(kind=SIGNIN_KIND, decision=decision, data=data)


def _result(out: str) -> dict[str, Any]:
    """The last JSON object ``--output-format json`` printed, else {}."""
    for line in reversed(out.splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}
