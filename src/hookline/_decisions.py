"""Decisions: what a hook answers, and the one pure function that merges several answers.

Merge precedence (``merge``), fixed and tested by one table:

* permission: deny > defer > ask > allow > no opinion. One deny is enough to block.
* reason: the reasons of every answer that carries the winning permission, in declared order.
* updated_input / updated_output: each rewrite is read as a patch against the value its hook saw
  (keys it changed, added or removed) and the patches apply in declared order (priority, then
  registration), so two hooks that rewrite different keys both take effect and a conflict goes,
  deterministically, to the later hook. An input rewrite is dropped when the winner is deny or
  defer; an output replacement is kept (a PostToolUse block is feedback beside an output that
  exists, and must not undo another hook's redaction).
* additional_context and system_message: every one is kept, in declared order.
* continue_=False wins over everything: the run stops after this event (the first stop_reason).
* origin: the origin of the answer that decides (the first winner, else the first stop, else the
  first answer); each context keeps its own (``context_origins``).

The vocabulary every layer answers in lives here too: ``Permission`` (and its parts ``Answer``
and ``Refusal``) says what was decided, ``Origin`` says where it was decided. Whoever makes an
answer sets its origin; nothing downstream works it out again from the wording of a reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, cast

#: What keeps a call from running now: refused (deny), or paused until a resume answers (defer).
Refusal = Literal["deny", "defer"]
#: What settles a call: what an ask waits for, and what a tool result reports.
Answer = Literal["allow", Refusal]
#: Everything a hook, a rule or a person may say about a call: one word for each, everywhere.
Permission = Literal[Answer, "ask"]

#: Where an answer came from. Set by whoever makes the answer, and never read back from a reason.
Origin = Literal[
    "hook",  # a Python hook returned a Decision
    "json",  # a hook answered in the protocol's JSON: an SDK callback, a command's stdout, HTTP
    "exit_code_2",  # a command hook exited with code 2
    "stdout",  # a command hook's plain stdout, already in the words the model reads
    "hook_failure",  # a hook that fails closed failed (timed out, crashed, answered nonsense)
    "rule",  # a permission rule of the settings (permissions.allow / ask / deny)
    "mode",  # the permission mode (plan, dontAsk, acceptEdits, bypassPermissions)
    "tier",  # the permission layer's own tiers: read-only, mutating, protected, private, ...
    "sandbox",  # the OS sandbox's auto-allow
    "approver",  # whoever answered an approval request: a terminal, an HTTP approver, a resume
    "unanswered",  # an approval request nobody answered: refused (or paused) saying why
]

#: The origins that are a hook's answer, however it gave it.
HOOK_ORIGINS: Final[frozenset[Origin]] = frozenset(
    {"hook", "json", "exit_code_2", "stdout", "hook_failure"}
)

#: Higher wins.
PRECEDENCE: Final[dict[Permission | None, int]] = {
    None: 0,
    "allow": 1,
    "ask": 2,
    "defer": 3,
    "deny": 4,
}


class _Unchanged:
    """Marks "no rewrite" where ``None`` is itself a possible new value (a tool's output)."""

    _instance: _Unchanged | None = None

    def __new__(cls) -> _Unchanged:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNCHANGED"

    def __bool__(self) -> bool:
        return False


UNCHANGED: Any = _Unchanged()


@dataclass(frozen=True, slots=True)
class Decision:
    """One hook's answer, or several merged. Build it with the named constructors."""

    permission: Permission | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_output: Any = UNCHANGED
    additional_context: tuple[str, ...] = ()
    system_message: tuple[str, ...] = ()
    continue_: bool = True
    stop_reason: str | None = None
    #: Where the answer came from. Not part of what it says: equal answers are equal wherever
    #: they came from.
    origin: Origin = field(default="hook", compare=False)
    #: Where each ``additional_context`` came from, in step with it (``context_origin``); a
    #: context past its end came from ``origin``.
    context_origins: tuple[Origin, ...] = field(default=(), compare=False, repr=False)

    # -- named constructors -------------------------------------------------------------------

    @classmethod
    def allow(
        cls, reason: str | None = None, *, updated_input: dict[str, Any] | None = None
    ) -> Decision:
        """Let the call go ahead (it still passes the permission layer's deny rules)."""
        if reason is None and updated_input is None and cls is Decision:
            return _ALLOW  # the commonest answer; a Decision never changes, so one serves all
        return cls("allow", reason, updated_input)

    @classmethod
    def deny(cls, reason: str) -> Decision:
        """Refuse. The reason reaches the model: say why, and what to do instead."""
        return cls("deny", reason)

    #: On Stop, UserPromptSubmit and PostToolUse the protocol says "block"; it is a deny.
    block = deny

    @classmethod
    def ask(
        cls, reason: str | None = None, *, updated_input: dict[str, Any] | None = None
    ) -> Decision:
        """Hand the call to a human (showing the rewritten input, if any)."""
        return cls("ask", reason, updated_input)

    @classmethod
    def defer(cls, reason: str | None = None) -> Decision:
        """End the run here; it can be resumed later with an answer for this call."""
        return cls("defer", reason)

    @classmethod
    def rewrite(cls, updated_input: dict[str, Any]) -> Decision:
        """Run the call with this input instead, without deciding for or against it."""
        return cls(updated_input=updated_input)

    @classmethod
    def replace_output(cls, output: Any) -> Decision:
        """Show the model this output instead of the tool's own (PostToolUse)."""
        return cls(updated_output=output)

    @classmethod
    def context(cls, *text: str) -> Decision:
        """Add text for the model next to the prompt or tool result."""
        return cls(additional_context=text)

    @classmethod
    def message(cls, *text: str) -> Decision:
        """Show text to the user (never to the model)."""
        return cls(system_message=text)

    @classmethod
    def stop(cls, reason: str | None = None) -> Decision:
        """Stop the run after this event (protocol ``continue: false``)."""
        return cls(continue_=False, stop_reason=reason)

    # -- reading ------------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """No opinion at all (what ``None`` from a hook means)."""
        return self is _EMPTY or (
            self.updated_input is None and self.updated_output is UNCHANGED and self._says_nothing
        )

    @property
    def _says_nothing(self) -> bool:
        """Nothing besides a rewrite: no permission, reason, context, message or stop."""
        return (
            self.permission is None
            and self.continue_
            and self.reason is None
            and not self.additional_context
            and not self.system_message
        )

    def without_rewrites(self) -> Decision:
        """What this answer says besides its rewrites (NO_DECISION if nothing)."""
        if self.updated_input is None and self.updated_output is UNCHANGED:
            return self
        return NO_DECISION if self._says_nothing else self.with_rewrites(None, UNCHANGED)

    def with_rewrites(self, updated_input: dict[str, Any] | None, updated_output: Any) -> Decision:
        """The same answer with these rewrites (None / UNCHANGED: none)."""
        return replace(self, updated_input=updated_input, updated_output=updated_output)

    def context_origin(self) -> tuple[Origin, ...]:
        """Where each ``additional_context`` came from, one for each, in order."""
        count = len(self.additional_context)
        return (self.context_origins + (self.origin,) * count)[:count]

    @property
    def label(self) -> str | None:
        """The most significant part of this answer, for logs: stop, a permission, rewrite, ..."""
        if not self.continue_:
            return "stop"
        if self.permission:
            return self.permission
        if self.updated_input is not None:
            return "rewrite"
        if self.updated_output is not UNCHANGED:
            return "replace_output"
        if self.additional_context:
            return "context"
        return None


_EMPTY = Decision()
NO_DECISION = _EMPTY
_ALLOW = Decision("allow")


def merge(
    decisions: Sequence[Decision],
    *,
    base_input: dict[str, Any] | None = None,
    base_output: Any = UNCHANGED,
) -> Decision:
    """Merge answers given in declared order into one, by the precedence in the module docstring."""
    answers = [d for d in decisions if not d.is_empty]
    if len(answers) < 2:
        if not answers:
            return NO_DECISION
        only = answers[0]
        if only.updated_input is None or only.permission not in ("deny", "defer"):
            return only
    elif _bare(answers[0]) and all(
        _bare(d) and d.permission == answers[0].permission for d in answers
    ):
        return answers[0]  # the same permission and nothing else, however often it was said
    permission = max((d.permission for d in answers), key=PRECEDENCE.__getitem__)
    keeps_input = permission not in ("deny", "defer")
    winners = [d for d in answers if d.permission == permission] if permission else []
    stoppers = [d for d in answers if not d.continue_]
    deciding = winners or stoppers or answers
    return Decision(
        permission=permission,
        reason=_join([d.reason for d in winners], "\n"),
        updated_input=_compose(base_input, [d.updated_input for d in answers], None)
        if keeps_input
        else None,
        updated_output=_compose(base_output, [d.updated_output for d in answers], UNCHANGED),
        additional_context=tuple(c for d in answers for c in d.additional_context),
        system_message=tuple(m for d in answers for m in d.system_message),
        continue_=not stoppers,
        stop_reason=next((d.stop_reason for d in stoppers if d.stop_reason), None),
        origin=deciding[0].origin,
        context_origins=tuple(o for d in answers for o in d.context_origin()),
    )


def _bare(answer: Decision) -> bool:
    """A permission and nothing else: no reason, rewrite, context, message or stop."""
    return (
        answer.reason is None
        and answer.updated_input is None
        and answer.updated_output is UNCHANGED
        and answer.continue_
        and not answer.additional_context
        and not answer.system_message
    )


def _join(parts: Sequence[str | None], sep: str) -> str | None:
    kept = [p for p in parts if p]
    return sep.join(dict.fromkeys(kept)) if kept else None


def _compose(base: Any, rewrites: Sequence[Any], absent: Any) -> Any:
    """Apply each rewrite as a patch against ``base``, in order. See the module docstring."""
    given = [r for r in rewrites if r is not absent]
    if not given:
        return absent
    if not isinstance(base, dict) or not all(isinstance(r, dict) for r in given):
        return given[-1]
    result = dict(base)
    for rewrite in cast(list[dict[str, Any]], given):
        for key, value in rewrite.items():
            if key not in base or base[key] != value:
                result[key] = value
        for key in base.keys() - rewrite.keys():
            result.pop(key, None)
    return result
