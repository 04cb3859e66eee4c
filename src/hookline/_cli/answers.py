"""The answers a person gives on the command line: ``sessions resume``'s flags, JSON typed in.

--approve | --deny MESSAGE | --edit JSON          one answer for every waiting call
--answer ID=approve --answer ID=deny:MESSAGE      one answer a call (ID=edit:JSON too)
--for-session                                     an approval also allows, for the rest of
                                                  the session, what the call's ask offered
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hookline._errors import ConfigError
from hookline._tools.approvals import Approval

#: The answers ``--answer ID=...`` takes, each before its ``:`` (deny and edit say more after it).
PER_CALL = ("approve", "deny:MESSAGE", "edit:JSON")


def answers_from_cli(
    approve: bool,
    deny: str | None,
    edit: str | None,
    per_call: Sequence[str] = (),
    *,
    for_session: bool = False,
) -> Approval | dict[str, Approval]:
    """What ``hookline sessions resume`` was told: one answer for all the waiting calls (the
    three flags), or one a call (``--answer ID=...``, never with them); ``for_session``
    makes each approval one for the rest of the session."""
    if not per_call:
        one = answer_from_cli(approve, deny, edit)
        return _for_session([one])[0] if for_session else one
    if approve or deny is not None or edit is not None:
        fix = "answer every call with --approve, --deny or --edit, or each with --answer"
        raise ConfigError("--answer was given with another answer", key="--answer", fix=fix)
    answers = dict(_per_call(text) for text in per_call)
    if len(answers) != len(per_call):
        raise ConfigError("a call was answered twice", key="--answer", fix="answer each once")
    if for_session:
        answers = dict(zip(answers, _for_session(list(answers.values())), strict=True))
    return answers


def _per_call(text: str) -> tuple[str, Approval]:
    """``ID=approve``, ``ID=deny:MESSAGE`` or ``ID=edit:JSON``: the call's id and its answer."""
    call, sep, said = text.partition("=")
    kind, _, rest = said.partition(":")
    fix = f"write --answer CALL_ID={PER_CALL[0]} (or {', '.join(PER_CALL[1:])})"
    if not sep or not call.strip() or kind not in ("approve", "deny", "edit"):
        raise ConfigError(f"{text!r} is not an answer to one call", key="--answer", fix=fix)
    if kind == "approve" and rest:
        raise ConfigError(f"{text!r}: approve takes nothing after it", key="--answer", fix=fix)
    answer = answer_from_cli(
        kind == "approve",
        rest if kind == "deny" else None,
        rest if kind == "edit" else None,
    )
    return call.strip(), answer


def _for_session(answers: list[Approval]) -> list[Approval]:
    """Each approval of the call as it is made one for the rest of the session; the rest as
    they are. A ConfigError when none approves a call as it is."""
    if not any(a.permission == "allow" and a.updated_input is None for a in answers):
        fix = "use --for-session with --approve (or --answer ID=approve)"
        raise ConfigError("nothing is approved as it is", key="--for-session", fix=fix)
    return [
        replace(a, scope="session") if a.permission == "allow" and a.updated_input is None else a
        for a in answers
    ]


def answer_from_cli(approve: bool, deny: str | None, edit: str | None) -> Approval:
    """The answer given to ``hookline sessions resume ID``: exactly one of the three flags."""
    flags = (("--approve", approve), ("--deny", deny is not None), ("--edit", edit is not None))
    given = [flag for flag, present in flags if present]
    if len(given) != 1:
        said = " and ".join(given) + " were given together" if given else "no answer was given"
        fix = "give exactly one of --approve, --deny MESSAGE or --edit JSON"
        raise ConfigError(said, key="--approve/--deny/--edit", fix=fix)
    if deny is not None and not deny.strip():
        fix = "say why, for the model: --deny 'use the staging database instead'"
        raise ConfigError("the message is empty", key="--deny", fix=fix)
    if edit is None:
        return (
            Approval.deny(deny.strip(), approver="cli") if deny else Approval.allow(approver="cli")
        )
    fix = """pass the whole input as a JSON object: --edit '{"command": "ls"}'"""
    try:
        value = json.loads(edit)
    except ValueError as exc:
        raise ConfigError(f"not valid JSON ({exc})", key="--edit", fix=fix) from exc
    if not isinstance(value, dict):
        raise ConfigError(f"must be a JSON object, not {json_kind(value)}", key="--edit", fix=fix)
    return Approval.edit(value, approver="cli")


def json_kind(value: Any) -> str:
    """A JSON value's type in JSON's words."""
    names = {list: "an array", str: "a string", bool: "a boolean", dict: "an object"}
    return "null" if value is None else names.get(type(value), "a number")
