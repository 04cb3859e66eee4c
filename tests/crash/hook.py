"""The campaign's command hook: ``hook.py EVENT``, set for five events (standard library only,
and not even ``json``: it runs some twenty times a story, so its start is kept short).

Notes each run in ``hooks.log`` (event and tool_use_id), passes the point ``hook:<event>``
(where a kill may be aimed, ``crash.gate``), and on PreToolUse defers a call whose input names
an entry starting with ``ask-``: a person approves it on resume.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gate import passed  # beside this file, in the story's folder

DEFER = (
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer", '
    '"permissionDecisionReason": "a person approves this entry"}}'
)


def tool_use_id(text: str) -> str:
    """The event's tool_use_id (the string after its key), or ``-``."""
    at = text.find('"tool_use_id"')
    if at < 0:
        return "-"
    start = text.find('"', text.find(":", at) + 1)
    return text[start + 1 : text.find('"', start + 1)]


event, said = sys.argv[1], sys.stdin.read()
with open("hooks.log", "a") as log:
    log.write(f"{event} {tool_use_id(said)}\n")
passed(f"hook:{event}", escapee=True)
if event == "PreToolUse" and "ask-" in said:
    print(DEFER)
