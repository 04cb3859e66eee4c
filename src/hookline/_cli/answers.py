"""The answers a person gives on the command line: ``sessions resume``'s flags, JSON typed in."""

from __future__ import annotations

import json
from typing import Any

from hookline._errors import ConfigError
from hookline._tools.approvals import Approval


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
