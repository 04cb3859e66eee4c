"""What each event does, in one row (``EventFacts``): read by every part of hookline that
treats events differently."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class EventFacts:
    """What an event does, in one row: every part of hookline that treats events differently
    (the registry, the engine, command hooks, settings, the lint, ``hookline hooks table``)
    reads it here, so a new event is one class. The defaults fit an event whose hooks run for
    their side effects."""

    #: Whether an in-process gate fails closed unless it says otherwise (as Agent SDK callbacks).
    fails_closed: bool = False
    #: What a deny, and a fail-closed hook's failure, refuses: the call, the prompt, the
    #: output (withheld after the tool ran), a compaction or a model switch. None: nothing to
    #: refuse, a failure decides nothing.
    refuses: Literal["call", "prompt", "output", "compaction", "switch"] | None = None
    #: What a gate may answer, as ``hookline hooks table`` lists it; none: side effects only.
    answers: tuple[str, ...] = ()
    #: What a command hook's plain stdout on exit 0 is: context for the model (worded as
    #: Claude Code words it, ``... hook success: <stdout>``), raw instructions (PreCompact's,
    #: for the summary), or None: ignored.
    plain_stdout: Literal["context", "instructions"] | None = None
    #: What a command hook's exit 2 does: blocks (a deny, or feedback after the tool ran),
    #: is ignored (only its JSON decides), or is a non-blocking error (stderr on record).
    exit_2: Literal["blocks", "ignored", "error"] = "error"
    #: Whether command hooks get ``CLAUDE_ENV_FILE`` to export variables for later Bash calls
    #: (in Claude Code also Setup, which hookline does not fire).
    env_file: bool = False
    #: Seconds a settings handler gets when it sets no ``timeout`` (None: the handler's default).
    timeout: float | None = None
    #: Seconds Claude Code gives this event's hooks at most; a longer timeout is a mistake.
    timeout_cap: float | None = None
    #: What a prompt (LLM-judge) hook's ``ok: false`` does here: the run keeps working with the
    #: reason, a deny that ends the turn, a deny, or nothing. None: no prompt hooks on it.
    judged: Literal["keep", "end", "deny", "none"] | None = None
    #: What ``hookline install claude-code`` does with it: ``default``, installed unless
    #: ``--events`` says otherwise (a gate, the prompt, after a tool, the end of a turn);
    #: ``optional``, Claude Code lets an HTTP hook answer it, so ``--events`` may name it; None,
    #: neither (Claude Code takes command hooks only here, or never fires it: hookline's own).
    served: Literal["default", "optional"] | None = None
