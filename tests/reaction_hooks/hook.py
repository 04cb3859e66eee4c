"""A Claude Code command hook for the reaction tests: ``hook.py MODE [LABEL]``.

It reads the payload from stdin, appends one line about itself to
``$CLAUDE_PROJECT_DIR/.hook-log.jsonl`` (``kind`` "start"; a sleeping mode adds "end" or, when
terminated, "signal": written after a short cleanup, so only if the hook is given time to exit;
a meeting mode adds "end" with ``met``), then answers as MODE says. It answers with the
constants below, so a test can spell out what the model must read.

Modes: record, exit1, exit2, exit2_json, deny, deny_json_exit1, allow, ask, legacy_block
(also: block), legacy_approve, rewrite, rewrite_nodecision, ctx, stdout, badjson,
wrong_event_name, sysmsg, continue_false, perm_allow, stopblock-once, exit2-once, sleepN,
meetN (a barrier: wait until N meetN hooks have started, so N of them can only all pass if they
run at the same time; one that waits alone gives up after ``MEET_WAIT`` seconds and exits 1).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

REASON = "HOOK-REASON: use the approved script instead"
STDERR = "HOOK-STDERR: this call is not allowed"
CONTEXT = "HOOK-CONTEXT: the build is green"
STDOUT = "HOOK-STDOUT: remember the style guide"
STOP_REASON = "HOOK-STOP-REASON: budget spent"
SYSTEM_MESSAGE = "HOOK-SYSTEM-MESSAGE: checked"
REWRITTEN = "echo REWRITTEN-BY-HOOK"
REWRITTEN_NO_DECISION = "echo REWRITTEN-NO-DECISION"
BAD_JSON = "{not valid json"
LOG_NAME = ".hook-log.jsonl"
#: Seconds a sleeping hook takes to clean up after SIGTERM.
CLEANUP = 0.2
#: How long a meeting hook waits for the others before it gives up (a safety bound, not a timing).
MEET_WAIT = 60.0


def pre_tool_use(**fields: object) -> dict[str, object]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


def rewritten(payload: dict[str, object], command: str) -> dict[str, object]:
    tool_input = dict(payload.get("tool_input") or {})
    tool_input["command"] = command
    return tool_input


def answer(mode: str, payload: dict[str, object]) -> tuple[object, str, int]:
    """(stdout: a JSON object, a text or None; stderr; exit code) for ``mode``."""
    event = payload.get("hook_event_name")
    again = bool(payload.get("stop_hook_active"))
    blocked = {"decision": "block", "reason": REASON}
    answers: dict[str, tuple[object, str, int]] = {
        "record": (None, "", 0),
        "exit1": (None, STDERR, 1),
        "exit2": (None, STDERR, 2),
        "exit2_json": (pre_tool_use(permissionDecision="allow"), STDERR, 2),
        "deny": (pre_tool_use(permissionDecision="deny", permissionDecisionReason=REASON), "", 0),
        "deny_json_exit1": (
            pre_tool_use(permissionDecision="deny", permissionDecisionReason=REASON),
            "",
            1,
        ),
        "allow": (pre_tool_use(permissionDecision="allow"), "", 0),
        "ask": (pre_tool_use(permissionDecision="ask", permissionDecisionReason=REASON), "", 0),
        "legacy_block": (blocked, "", 0),
        "block": (blocked, "", 0),
        "legacy_approve": ({"decision": "approve"}, "", 0),
        "rewrite": (
            pre_tool_use(
                permissionDecision="allow",
                permissionDecisionReason="rewritten",
                updatedInput=rewritten(payload, REWRITTEN),
            ),
            "",
            0,
        ),
        "rewrite_nodecision": (
            pre_tool_use(updatedInput=rewritten(payload, REWRITTEN_NO_DECISION)),
            "",
            0,
        ),
        "ctx": (
            {"hookSpecificOutput": {"hookEventName": event, "additionalContext": CONTEXT}},
            "",
            0,
        ),
        "stdout": (STDOUT + "\n", "", 0),
        "badjson": (BAD_JSON, "", 0),
        "wrong_event_name": (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PostToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": REASON,
                }
            },
            "",
            0,
        ),
        "sysmsg": ({"systemMessage": SYSTEM_MESSAGE}, "", 0),
        "continue_false": ({"continue": False, "stopReason": STOP_REASON}, "", 0),
        "continue_false_exit2": ({"continue": False, "stopReason": STOP_REASON}, "", 2),
        "block_continue_false": (
            {**blocked, "continue": False, "stopReason": STOP_REASON},
            "",
            0,
        ),
        "perm_allow": (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "allow"},
                }
            },
            "",
            0,
        ),
        "stopblock-once": (None, "", 0) if again else (blocked, "", 0),
        "exit2-once": (None, "", 0) if again else (None, STDERR, 2),
    }
    if mode not in answers:
        return None, f"hook.py: unknown mode {mode!r}", 1
    return answers[mode]


def log(entry: dict[str, object]) -> None:
    """Append one line in a single write, so hooks running side by side never interleave."""
    path = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], LOG_NAME)
    line = (json.dumps(entry) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def met(mode: str, count: int) -> bool:
    """Whether ``count`` hooks of ``mode`` have started, waiting up to ``MEET_WAIT`` seconds."""
    path = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], LOG_NAME)
    deadline = time.monotonic() + MEET_WAIT
    while time.monotonic() < deadline:
        with open(path, encoding="utf-8") as log_file:
            whole = log_file.read().split("\n")[:-1]  # a line still being written is left out
        entries = [json.loads(line) for line in whole]
        if sum(e["kind"] == "start" and e["mode"] == mode for e in entries) >= count:
            return True
        time.sleep(0.02)
    return False


def main() -> int:
    t0 = time.time()
    mode = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else None
    payload = json.loads(sys.stdin.read())
    me = {"mode": mode, "label": label, "event": payload.get("hook_event_name"), "pid": os.getpid()}
    log({**me, "kind": "start", "t": t0, "payload": payload})
    if mode.startswith("meet"):
        together = met(mode, int(mode.removeprefix("meet")))
        log({**me, "kind": "end", "met": together})
        return 0 if together else 1
    if mode.startswith("sleep"):

        def terminated(signum: int, frame: object) -> None:
            received = time.time()
            time.sleep(CLEANUP)  # a hook cleaning up after SIGTERM, before it exits
            log({**me, "kind": "signal", "t": received, "signal": signum})
            os._exit(128 + signum)

        signal.signal(signal.SIGTERM, terminated)
        time.sleep(float(mode.removeprefix("sleep")))
        log({**me, "kind": "end", "t": time.time()})
        return 0
    out, err, code = answer(mode, payload)
    if out is not None:
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    sys.stderr.write(err)
    return code


if __name__ == "__main__":
    sys.exit(main())
