"""The parts of audit records that take some working out: digests, diffs, and who resumed.

Pure functions of what was observed; ``hookline.audit._log`` redacts, queues and writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, get_args

from hookline._decisions import UNCHANGED, Permission
from hookline._tools.base import ToolStatus
from hookline.audit._chain import digest
from hookline.audit._redact import Redactor, clip
from hookline.storage._base import AuditRow

if TYPE_CHECKING:
    from hookline._agent.saved.pause import Claimed, Resumer
    from hookline._events import HookEvent
    from hookline._tools.approvals import Approval

PREVIEW = 200  # characters of a string kept in an input preview or a diff
#: Every word a record's decision can say: a hook's answer (``Decision.label``), an approval,
#: a call's outcome, the answer a resume gave. ``hookline audit --decision`` takes these only.
DECISIONS: Final = frozenset(
    {*get_args(Permission), *get_args(ToolStatus), "stop", "rewrite", "replace_output", "context"}
    | {"approve", "edit", "none"}
)


def shown_input(redactor: Redactor, value: Any) -> dict[str, Any]:
    """The digest of the redacted input, and the input itself, redacted and clipped."""
    shown = redactor.redact(value)
    return {"input_digest": digest(shown), "input": clip(shown, PREVIEW)}


def input_diff(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    """The keys a rewrite changed, added and removed, with the values (redacted later)."""
    old = before if isinstance(before, dict) else {}
    diff: dict[str, Any] = {
        "changed": {k: [old[k], v] for k, v in after.items() if k in old and old[k] != v},
        "added": {k: v for k, v in after.items() if k not in old},
        "removed": [k for k in old if k not in after],
    }
    return {k: v for k, v in diff.items() if v}


def output_diff(before: Any, after: Any) -> dict[str, Any]:
    """A short summary of a replaced output: its shape before and after, and a preview."""
    return {"from": _shape(before), "to": _shape(after), "preview": after}


def _shape(value: Any) -> str:
    if value is UNCHANGED:
        return "unknown"
    size = f" of {len(value)}" if isinstance(value, str | list | dict) else ""
    return f"{type(value).__name__}{size}"


class Call:
    """A tool call in flight: its tool, its input and output as the next hook sees them, and
    its hook runs not yet written (they ride in the call's next record)."""

    __slots__ = ("hooks", "input", "output", "started", "tool")

    def __init__(self, event: HookEvent | None) -> None:
        self.tool: str | None = None
        self.input: Any = {}
        self.output: Any = UNCHANGED
        #: The input the body ran with, and its redacted fields (the result reuses them).
        self.started: tuple[Any, dict[str, Any]] | None = None
        #: The hook runs since the call's last record, each with the time it was recorded.
        self.hooks: list[tuple[float, dict[str, Any]]] = []
        self.seen(event)

    def seen(self, event: HookEvent | None) -> None:
        """The call as ``event``'s hooks see it (None: no hook has seen it yet)."""
        self.tool = getattr(event, "tool_name", None)
        self.input = getattr(event, "tool_input", {})
        self.output = getattr(event, "tool_response", UNCHANGED)

    def rewritten(self, answer: Any) -> None:
        if answer.updated_input is not None:
            self.input = answer.updated_input
        if answer.updated_output is not UNCHANGED:
            self.output = answer.updated_output

    def taken(self) -> list[dict[str, Any]]:
        """The hook runs waiting for a record, now handed to it."""
        runs, self.hooks = [data for _, data in self.hooks], []
        return runs


def resumed_by(by: Resumer, claimed: Claimed) -> dict[str, Any]:
    """Who resumed, for which tenant, and what they overrode (reloaded settings, an edited
    state they trusted)."""
    session = claimed.session
    data: dict[str, Any] = {"user": by.user or session["user"], "tenant": session["tenant"]}
    if by.user and by.user != session["user"]:
        data["session_user"] = session["user"]
    if by.reload_settings:
        data["reload_settings"] = True
        data["settings_changed"] = list(by.settings_changed)
    if by.trust_edited_state:
        data["trust_edited_state"] = True
        data["state_edits"] = list(claimed.edited)
    if by.rerun_interrupted:
        data["rerun_interrupted"] = True
    return data


def expired_data(claimed: Claimed, call_id: str) -> dict[str, Any]:
    """For a call that waited past its deadline: ``expired`` with the deadline, when the
    resume found it past, and the answer a person gave that it replaced ({} for any other)."""
    expired = claimed.expired
    if expired is None or call_id not in expired.answers:
        return {}
    said: dict[str, Any] = {"deadline": expired.deadline, "at": expired.at}
    refused = expired.refused.get(call_id)
    if refused is not None:
        said["refused"] = answer_data(refused)["answer"]
    return {"expired": said}


def answer_data(answer: Approval | None) -> dict[str, Any]:
    """The answer a resume gave a waiting call: approve, edit, deny (defer), or none (a crashed
    session going on from its checkpoint)."""
    if answer is None:
        return {"answer": "none"}  # a crashed session goes on from its checkpoint
    said = answer.permission
    name = said if said != "allow" else "edit" if answer.updated_input is not None else "approve"
    data = {"answer": name, "answered_by": answer.approver or None, "message": answer.message}
    return {key: value for key, value in data.items() if value is not None}


#: The fields of a hook run that are columns when it is a record of its own.
_RUN_COLUMNS = ("event", "decision", "permission")


def run_columns(run: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A hook run's fields as a record of its own has them: its columns (event, decision,
    permission) and the rest, its data."""
    columns = {name: run.get(name) for name in _RUN_COLUMNS}
    return columns, {k: v for k, v in run.items() if k not in _RUN_COLUMNS}


def unfolded(rows: Iterable[AuditRow]) -> Iterator[AuditRow]:
    """Every row, each tool call's record after the hook runs it carries, those as ``hook``
    rows of their own.

    A hook run inside a tool call is not a record of its own: it rides in the call's next
    record (``tool_started`` for the PreToolUse and PermissionRequest runs, ``tool`` for the
    rest), in ``data["hooks"]``. Here each comes out as the row it would have been: kind
    ``hook``, its event, decision and permission as columns, the call's session, tool and
    tool_use_id, and the user and tenant of the record holding it, whose seq, hash and time it
    shares (it is not in the chain by itself)."""
    for row in rows:
        runs = row.data.get("hooks") if row.kind != "hook" else None
        if runs:
            who = {k: v for k, v in row.data.items() if k in ("user", "tenant")}
            for run in runs:
                columns, data = run_columns(run)
                yield replace(row, kind="hook", data=who | data, **columns)
        yield row
