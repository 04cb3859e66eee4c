"""The approver protocol's JSON schemas and its code say the same thing.

The schemas ship in the package (``hookline/schemas/approval-*.v1.json``); hookline reads an
answer with hand-written checks (``hookline._tools.approval_wire``), so no schema library is
needed at run time. Here the ``jsonschema`` library holds the two to each other: every answer
in a table, and thousands generated, is accepted by the schema exactly when the code accepts
it; every request hookline sends, read off the wire by a real server, is one the request
schema accepts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookline._tools.approval_wire import INVISIBLE, AnswerRefused, read_answer, schema
from hookline._tools.approvals import ApprovalRequest
from hookline.permissions._rules import PermissionRule
from hookline.permissions._session import SessionGrant
from local_http import RecordingServer, as_path_headers_body, ask_approver, serve

ANSWER = jsonschema.Draft202012Validator(schema("approval-answer"))
REQUEST = jsonschema.Draft202012Validator(schema("approval-request"))


def code_accepts(answer: Any) -> bool:
    try:
        read_answer(answer)
    except AnswerRefused:
        return False
    return True


def wrapped(decision: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


# fmt: off
#: (answer, accepted)
TABLE = [
    ({"behavior": "allow"}, True),
    ({"behavior": "deny", "message": "not on Fridays"}, True),
    ({"behavior": "deny", "message": None}, True),
    ({"behavior": "pending"}, True),
    ({"behavior": "allow", "updatedInput": {"command": "ls"}}, True),
    ({"behavior": "allow", "approver": "ann@example.com", "version": 1}, True),
    ({"behavior": "allow", "version": 1.0}, True),
    ({"behavior": "allow", "scope": "session"}, True),
    ({"behavior": "allow", "scope": "once", "updatedInput": {}}, True),
    ({"behavior": "allow", "scope": None}, True),
    ({"behavior": "allow", "updatedPermissions": [], "interrupt": True}, True),  # ignored
    (wrapped({"behavior": "deny", "message": "no"}), True),
    ({"hookSpecificOutput": {}, "behavior": "allow"}, True),  # no decision inside: the object
    ({"hookSpecificOutput": "x", "behavior": "allow"}, True),
    ({"behavior": "allow", "approver": "Zoë 張"}, True),
    ({"behavior": "allow", "approver": "a" * 200}, True),
    ({}, False),
    ([], False),
    ("allow", False),
    (None, False),
    ({"behavior": "maybe"}, False),
    ({"behavior": "ALLOW"}, False),
    ({"behavior": "allow", "message": 3}, False),
    ({"behavior": "allow", "updatedInput": "ls"}, False),
    ({"behavior": "allow", "updatedInput": ["ls"]}, False),
    ({"behavior": "allow", "version": 2}, False),
    ({"behavior": "allow", "version": "1"}, False),
    ({"behavior": "allow", "version": True}, False),
    ({"behavior": "allow", "scope": "forever"}, False),
    ({"behavior": "deny", "scope": "session"}, False),
    ({"behavior": "pending", "scope": "session"}, False),
    ({"behavior": "allow", "scope": "session", "updatedInput": {"command": "ls"}}, False),
    ({"behavior": "allow", "approver": ""}, False),
    ({"behavior": "allow", "approver": "a" * 201}, False),
    ({"behavior": "allow", "approver": ["ann"]}, False),
    ({"behavior": "allow", "approver": "ann\x1b[2J"}, False),
    ({"behavior": "allow", "approver": "ann\n"}, False),
    ({"behavior": "allow", "approver": "ann\u200b"}, False),  # zero-width space
    ({"behavior": "allow", "approver": "ann\u202eelgoog"}, False),  # right-to-left override
    ({"behavior": "allow", "approver": "ann\u00a0bob"}, False),  # no-break space
    ({"behavior": "allow", "approver": "\ud800"}, False),  # a lone surrogate
    (wrapped("allow"), False),
    (wrapped({"behavior": "maybe"}), False),
    ({**wrapped({"behavior": "deny"}), "behavior": "allow"}, True),  # the decision is the answer
]
# fmt: on


@pytest.mark.parametrize(("answer", "accepted"), TABLE, ids=[str(i) for i in range(len(TABLE))])
def test_schema_and_code_accept_the_same_answers(answer: Any, accepted: bool) -> None:
    assert code_accepts(answer) is accepted
    assert ANSWER.is_valid(answer) is accepted


def test_a_wrapped_decision_is_the_answer() -> None:
    assert read_answer({**wrapped({"behavior": "deny"}), "behavior": "allow"}).behavior == "deny"


def test_the_code_refuses_invisible_names_with_the_schemas_own_pattern() -> None:
    approver = schema("approval-answer")["$defs"]["decision"]["properties"]["approver"]
    assert approver["anyOf"][1]["not"]["pattern"] == INVISIBLE


def values(*fixed: Any) -> st.SearchStrategy[Any]:
    """A field's value: one of ``fixed``, or something of another JSON type."""
    other = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6),
                      st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3),
                      st.integers(), max_size=2))  # fmt: skip
    return st.one_of(st.sampled_from(fixed), other)


names = st.one_of(st.text(max_size=8), st.text(min_size=195, max_size=205))
decision = st.fixed_dictionaries(
    {},
    optional={
        "behavior": values("allow", "deny", "pending"),
        "message": values("no", None),
        "updatedInput": values({"command": "ls"}, None),
        "approver": st.one_of(values("ann", None), names),
        "scope": values("once", "session", None),
        "version": values(1, 1.0, 2, True),
        "updatedPermissions": values([]),
    },
)
answers = st.one_of(
    decision,
    decision.map(wrapped),
    st.tuples(decision, values({}, "x", {"decision": 1})).map(
        lambda pair: {**pair[0], "hookSpecificOutput": pair[1]}
    ),
)


@settings(max_examples=3000, deadline=None)
@given(answers)
def test_schema_and_code_agree_on_generated_answers(answer: Any) -> None:
    assert ANSWER.is_valid(answer) is code_accepts(answer), answer


# -- requests -----------------------------------------------------------------------------------

PLAIN = ApprovalRequest(
    session_id="s-1",
    tool_use_id="toolu_1",
    tool_name="Bash",
    tool_input={"command": "npm test"},
    reason="Bash command `npm test` needs approval",
    source="tier:mutating",
)
GRANTED = replace(PLAIN, session_grant=SessionGrant((PermissionRule.parse("Bash(npm test *)"),)))
EDITS = replace(PLAIN, tool_name="Write", tool_input={"file_path": "/w/a", "content": "x"},
                original_input={"file_path": "a", "content": "x"}, user="ann", tenant="acme",
                session_grant=SessionGrant(mode="acceptEdits"))  # fmt: skip


@pytest.fixture
def server() -> Iterator[RecordingServer[Any]]:
    answer = (200, b'{"behavior": "allow"}')
    with serve(RecordingServer({"/approve": answer}, record=as_path_headers_body)) as httpd:
        yield httpd


@pytest.mark.parametrize("request_", [PLAIN, GRANTED, EDITS], ids=["plain", "rules", "edits"])
def test_what_hookline_sends_is_a_request_the_schema_accepts(
    server: RecordingServer[Any], request_: ApprovalRequest
) -> None:
    ask_approver(server.url("/approve"), request_)
    [(_, _, body)] = server.seen
    REQUEST.validate(body)
    assert body["version"] == 1
    grant = request_.session_grant
    assert body["session_scope"] == (None if grant is None else grant.to_dict())


def test_the_request_schema_requires_every_field_hookline_sends() -> None:
    assert set(REQUEST.schema["required"]) == set(GRANTED.to_dict())
    assert not REQUEST.is_valid({**GRANTED.to_dict(), "version": 2})
