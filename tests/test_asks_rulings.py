"""What a live ask's answer makes of the ruling a host reads (``hookline._serve.asks``), in
process: an approval keeps a hook's rewrite of the input, a deny carries the approver's
message, and a store that fails while the ask waits refuses the call, on record."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hookline._decisions import Decision
from hookline._hooks.wire import answer_for
from hookline._serve.asks import Asks, AskSettings, answered, edited_ruling
from hookline._serve.gate import Caller
from hookline._serve.judge import Ruling
from hookline.audit._writer import JSONL_NAME, AuditWriter
from hookline.storage import LiveAsk

REWRITTEN = {"command": "deploy prod --dry-run"}


def asked(decision: Decision | None = None) -> Ruling:
    said = decision or Decision("ask", "a hook asks", updated_input=REWRITTEN)
    return Ruling("PreToolUse", said, answer_for("PreToolUse", said), origin="hook",
                  session_id="s1", tool="Bash", tool_use_id="t1")  # fmt: skip


def test_an_approval_keeps_the_hooks_rewrite_and_names_who_approved() -> None:
    ruling = answered(asked(), {"permission": "allow", "by": "ann", "via": "link"})
    said = ruling.answer["hookSpecificOutput"]
    assert (said["permissionDecision"], said["permissionDecisionReason"]) == (
        "allow",
        "approved by ann (link)",
    )
    assert said["updatedInput"] == REWRITTEN and ruling.origin == "approver"


def test_a_deny_carries_the_message_and_an_expirys_ask_leaves_the_ruling_as_it_was() -> None:
    denied = answered(asked(), {"permission": "deny", "by": "ann", "message": "use staging"})
    said = denied.answer["hookSpecificOutput"]
    assert (said["permissionDecision"], said["permissionDecisionReason"]) == ("deny", "use staging")
    assert "updatedInput" not in said
    ruling = asked()
    assert answered(ruling, {"permission": "ask", "via": "expiry"}) is ruling


class Broken:
    """A store that cannot keep a live ask."""

    def put_ask(self, ask: LiveAsk) -> None:
        raise OSError("disk full")

    def get_ask(self, id: str) -> LiveAsk | None:
        raise AssertionError("never asked for")

    def waiting_asks(self, *, limit: int = 200) -> list[LiveAsk]:
        return []

    def answer_ask(self, id: str, answer: dict[str, Any], *, before: float | None = None) -> bool:
        raise AssertionError("never answered")


class Ruled:
    """Rules whose every ruling is ``ruling``."""

    def __init__(self, ruling: Ruling) -> None:
        self.ruling = ruling

    async def rule(self, payload: Any) -> Ruling:
        return self.ruling


def test_a_store_that_cannot_keep_the_ask_refuses_the_call_and_says_so(tmp_path: Path) -> None:
    audit = AuditWriter(None, jsonl_path=tmp_path / JSONL_NAME)
    asks = Asks(AskSettings("inbox", 5.0, "deny"), Broken(), audit)
    rules = asks.around(Ruled(asked()), Caller("127.0.0.1"), "claude-code")
    ruling = asyncio.run(rules.rule({"tool_input": {"command": "deploy prod"}}))
    said = ruling.answer["hookSpecificOutput"]
    assert said["permissionDecision"] == "deny"
    assert "the store failed while it waited: disk full" in said["permissionDecisionReason"]
    [row] = [json.loads(line) for line in (tmp_path / JSONL_NAME).read_text().splitlines()]
    assert (row["kind"], row["decision"], row["data"]["answer"]) == ("live_ask", "failed", "deny")


EDITED = {"command": "deploy staging"}
ANSWER = {"permission": "allow", "edited": EDITED, "by": "ann", "via": "inbox"}


def test_an_edit_judged_again_runs_as_edited_when_the_rules_only_ask() -> None:
    ruling = edited_ruling(asked(Decision("ask", "the deploy rule asks")), EDITED, ANSWER)
    said = ruling.answer["hookSpecificOutput"]
    assert (said["permissionDecision"], said["updatedInput"]) == ("allow", EDITED)
    assert said["permissionDecisionReason"] == "edited and approved by ann (inbox)"
    assert ruling.origin == "approver"


def test_an_edit_refused_deferred_or_rewritten_again_is_denied() -> None:
    refused = edited_ruling(asked(Decision("deny", "rm -rf is dangerous")), EDITED, ANSWER)
    deferred = edited_ruling(asked(Decision("defer", "a hook holds it")), EDITED, ANSWER)
    rewritten = asked(Decision("allow", updated_input={"command": "deploy prod"}))
    changed = edited_ruling(rewritten, EDITED, ANSWER)
    reasons = [r.answer["hookSpecificOutput"] for r in (refused, deferred, changed)]
    assert [s["permissionDecision"] for s in reasons] == ["deny", "deny", "deny"]
    assert "edited was refused: rm -rf is dangerous" in reasons[0]["permissionDecisionReason"]
    assert "edited was refused: a hook holds it" in reasons[1]["permissionDecisionReason"]
    assert "changed the input ann (inbox) edited" in reasons[2]["permissionDecisionReason"]
    assert all("updatedInput" not in s for s in reasons)
