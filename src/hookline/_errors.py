"""hookline's exceptions, rooted in one base class (its docstring draws the tree).

Foreign exceptions (OSError, pydantic.ValidationError, json.JSONDecodeError, ...) are translated
into these at the edge that caught them, so callers only ever handle hookline's own tree. A few
private exceptions carry control flow inside one module and never leave it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookline._decisions import Decision


class HooklineError(Exception):
    """Base class of every exception hookline raises on purpose. The tree a caller handles::

    HooklineError
    ├── ConfigError          a user's input is wrong (file, key, flag): says where, and the fix
    ├── HookFailure          a hook raised, timed out or answered something invalid (the engine
    │   ├── HookTimeout      isolates these and records them; they never escape a dispatch)
    │   └── InvalidHookOutput
    │       └── WrongHookEvent   the answer's ``hookEventName`` names another event
    ├── ModelError           a model call failed (refused, unreachable, garbled, still failing
    │                        after retries); the loop ends the run with it as the stop reason
    ├── ToolError            a tool body could not do its work; becomes a failed tool result
    │   └── ToolInputError   the tool input does not fit the tool (bad path, missing field, ...)
    ├── RecordError          the run's record could not be written: the run stops, even from
    │   │                    inside a tool (a subagent)
    │   └── AuditError       ... the audit log's (``hookline.audit``)
    └── ClaudeSDKError       the Claude Agent SDK's errors, under its names
                             (``hookline.sdk._errors`` draws their tree)

    ``hookline`` exports every class drawn here and in ``hookline.sdk._errors`` (a test reads
    both drawings).
    """


class ConfigError(HooklineError):
    """A user's input is wrong. Names the file and key it concerns and how to fix it."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        key: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.key = key
        self.fix = fix
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ": ".join(str(part) for part in (self.file, self.key) if part)
        text = f"{where}: {self.message}" if where else self.message
        return f"{text} (fix: {self.fix})" if self.fix else text


class HookFailure(HooklineError):
    """A hook did not give a usable answer. ``kind`` names the failure for the audit;
    ``failed`` says it in words, after "The PreToolUse hook 'name'", in a fail-closed hook's
    refusal. A subclass that names a kind of its own words it too (a test checks).

    ``fallback`` is what the hook still answers when it fails open, where Claude Code reads
    something from a failed answer (invalid JSON on exit 0 is plain text); None: nothing.
    """

    kind = "exception"
    failed = "raised an exception"

    def __init__(self, message: str = "", *, fallback: Decision | None = None) -> None:
        super().__init__(message)
        self.fallback = fallback


class HookTimeout(HookFailure):
    """A hook did not answer within its timeout."""

    kind = "timeout"
    failed = "did not answer in time"


class InvalidHookOutput(HookFailure):
    """A hook answered with something that is not a decision."""

    kind = "invalid"
    failed = "gave an invalid answer"


class WrongHookEvent(InvalidHookOutput):
    """A hook answered for another event: its ``hookEventName`` is not the event's."""

    kind = "wrong_event"
    failed = "answered for another event"


class ModelError(HooklineError):
    """A model call failed for good: the provider refused it (400-404), kept failing after the
    retries (429, 5xx), could not be reached, or answered something unreadable. The message is
    one line naming the setting to fix; ``status`` is the HTTP status, when there was one."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RecordError(HooklineError):
    """The run's record could not be written: the run stops rather than go on unrecorded. No
    tool turns it into a failed result (a subagent's audit failure stops its parent's run)."""


class ToolError(HooklineError):
    """A tool could not do its work. The message is what the model reads."""


class ToolInputError(ToolError):
    """The input does not fit the tool: a missing field, a path outside the workspace, ..."""
