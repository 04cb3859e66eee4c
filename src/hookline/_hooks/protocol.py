"""The Claude Code hook output format, read into a ``Decision``.

One reader serves every hook that answers in the protocol's JSON: Claude Agent SDK callbacks,
command hooks (stdout) and HTTP hooks (response body). The rules follow Claude Code's protocol and
what the real CLI was observed to do: a ``hookSpecificOutput`` naming another event rejects the
whole answer; the legacy top-level ``decision`` ("approve" / "block") still works; unknown keys
are ignored; a key of the wrong type makes the answer invalid.

Before that, the answer's bytes become JSON text one way for every hook that sends bytes (a
command's stdout, an HTTP body): ``answer_text`` tells UTF-8, UTF-16 and UTF-32 apart as JSON's
own rules do and drops the byte-order mark and the blanks before the answer (Claude Code's
``trim`` drops a BOM as it drops a space), and ``loads`` reads it. An answer nested more than
``MAX_ANSWER_DEPTH`` levels cannot be read, like text that does not parse: a fixed limit, where
the parser's own depends on how much of the stack is in use when it runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import Any, Final, get_args

from hookline._decisions import UNCHANGED, Decision, Permission
from hookline._errors import InvalidHookOutput, WrongHookEvent
from hookline._events import EVENTS, ToolEvent

_PERMISSIONS: frozenset[str] = frozenset(get_args(Permission))
#: What ``{}`` says (nothing), as the full reading gives it: most SDK callbacks answer it.
_NOTHING = Decision(origin="json")
#: What comes before an answer and is not part of it: whitespace and byte-order marks.
_BLANKS = "".join(c for c in map(chr, range(0x3001)) if c.isspace()) + "\ufeff"


def answer_text(raw: bytes, *, errors: str = "replace") -> str:
    """An answer's bytes as text, in the encoding JSON's rules detect (UTF-8, -16 or -32), without
    the byte-order marks and whitespace before it. ``errors``: what becomes of bytes that are not
    in that encoding (``"replace"``: U+FFFD; ``"strict"``: a UnicodeDecodeError)."""
    return trimmed(raw.decode(json.detect_encoding(raw), errors))


def trimmed(text: str) -> str:
    """``text`` without the whitespace and byte-order marks it starts with."""
    return text.lstrip(_BLANKS)


def loads(text: str) -> Any:
    """``json.loads``; ValueError for anything it cannot read, an answer nested more than
    ``MAX_ANSWER_DEPTH`` levels included."""
    if _depth(text) > MAX_ANSWER_DEPTH:
        raise ValueError(f"nested more than {MAX_ANSWER_DEPTH} levels deep")
    try:
        return json.loads(text)
    except RecursionError:  # the limit is below the parser's: only on a stack nearly used up
        raise ValueError("nested too deep to parse") from None


#: Levels of nesting an answer may have (its object is level 1).
MAX_ANSWER_DEPTH: Final = 200
#: A string, or the rest of the text from an opening quote that never closes (one pass).
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+\\?(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_LEVEL: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def _depth(text: str) -> int:
    """How deeply JSON ``text`` nests, counted without recursion (strings left out); exact
    when it could pass ``MAX_ANSWER_DEPTH``, which takes that many brackets."""
    if text.count("[") + text.count("{") <= MAX_ANSWER_DEPTH:
        return 0
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_LEVEL.__getitem__, brackets)), default=0)


def decision_from_output(event_name: str, output: Any) -> Decision:
    """Read one hook answer in the protocol's JSON shape (already parsed) into a Decision."""
    if type(output) is not dict and not isinstance(output, Mapping):  # a dict, mostly: first
        raise InvalidHookOutput(f"expected a JSON object, got {type(output).__name__}")
    if not output:
        return _NOTHING
    out = {_sdk_key(k): v for k, v in output.items()}
    specific = _get(out, "hookSpecificOutput", dict) or {}
    named = specific.get("hookEventName", event_name) if specific else event_name
    if named != event_name:
        raise WrongHookEvent(
            f"Hook returned incorrect event name: expected '{event_name}' but got '{named}'"
        )
    permission, reason = _top_level_decision(out)
    updated_input: dict[str, Any] | None = None
    updated_output: Any = UNCHANGED
    interrupt = False  # a PermissionRequest deny with "interrupt": true also stops the run
    if event_name == "PermissionRequest":
        permission, reason, updated_input, interrupt = _permission_request(
            specific, permission, reason
        )
    if "permissionDecision" in specific and not _after_the_call(event_name):
        permission = _permission(specific["permissionDecision"])
        reason = _get(specific, "permissionDecisionReason", str) or reason
    if "updatedInput" in specific:
        updated_input = _get(specific, "updatedInput", dict)
    for key in ("updatedToolOutput", "updatedMCPToolOutput"):
        if key in specific:
            updated_output = specific[key]
    context = _get(specific, "additionalContext", str)
    message = _get(out, "systemMessage", str)
    return Decision(
        permission=permission,
        reason=reason,
        updated_input=updated_input,
        updated_output=updated_output,
        additional_context=(context,) if context else (),
        system_message=(message,) if message else (),
        continue_=not interrupt and _get(out, "continue", bool) is not False,
        stop_reason=_get(out, "stopReason", str),
        origin="json",
    )


def _after_the_call(event_name: str) -> bool:
    """Whether the event is about a call already settled (PostToolUse, PostToolUseFailure): its
    schema has no ``permissionDecision``, and Claude Code ignores one there (not even checked)."""
    cls = EVENTS.get(event_name)
    return cls is not None and issubclass(cls, ToolEvent) and cls.facts.refuses != "call"


def _sdk_key(key: str) -> str:
    """The Python SDK writes ``continue_`` and ``async_`` for the reserved words."""
    return key[:-1] if key in ("continue_", "async_") else key


def _top_level_decision(out: dict[str, Any]) -> tuple[Permission | None, str | None]:
    decision = _get(out, "decision", str)
    reason = _get(out, "reason", str)
    if decision is None:
        return None, None
    if decision == "block":
        return "deny", reason or "blocked by hook"
    if decision == "approve":
        return "allow", reason
    raise InvalidHookOutput(f'"decision" must be "block" or "approve", got {decision!r}')


def _permission_request(
    specific: dict[str, Any], permission: Permission | None, reason: str | None
) -> tuple[Permission | None, str | None, dict[str, Any] | None, bool]:
    verdict = _get(specific, "decision", dict)
    if verdict is None:
        return permission, reason, None, False
    behavior = verdict.get("behavior")
    if behavior == "allow":
        return "allow", reason, _get(verdict, "updatedInput", dict), False
    if behavior == "deny":
        message = _get(verdict, "message", str) or "denied by PermissionRequest hook"
        return "deny", message, None, _get(verdict, "interrupt", bool) is True
    raise InvalidHookOutput(f'decision.behavior must be "allow" or "deny", got {behavior!r}')


def _permission(value: Any) -> Permission:
    if value not in _PERMISSIONS:
        raise InvalidHookOutput(
            f"permissionDecision must be one of allow, deny, ask, defer; got {value!r}"
        )
    return value  # type: ignore[no-any-return]


def _get(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if value is None or isinstance(value, kind):
        return value
    raise InvalidHookOutput(f"{key!r} must be a {kind.__name__}, got {type(value).__name__}")
