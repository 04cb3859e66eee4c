"""``CLAUDE_ENV_FILE``: files where SessionStart hooks (those of each event whose
``EventFacts.env_file`` says so) export variables for the session's later Bash commands, as in
Claude Code.

The files live beside the session's transcript, so the layout follows from any event alone:
``<state>/session-env/<session_id>/<event>-hook-<n>.sh`` for a transcript at
``<state>/transcripts/<session_id>.jsonl``. The Bash tool sources every file of the folder,
in order, before each command; the layout is the tools' (``hookline._tools.shell``).
"""

from __future__ import annotations

import itertools

from hookline._events import HookEvent
from hookline._support.private import touch_private
from hookline._tools.shell import session_env_dir

_numbers = itertools.count()


def env_file_for(event: HookEvent) -> str | None:
    """A fresh env file for one hook run of ``event``, or None where Claude Code sets none."""
    if not event.facts.env_file:
        return None
    folder = session_env_dir(event.session_id, event.transcript_path)
    path = folder / f"{event.name.lower()}-hook-{next(_numbers)}.sh"
    touch_private(path)  # 0600 before the hook appends to it
    return str(path)
