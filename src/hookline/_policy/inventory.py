"""What hooks are registered, and where from: one row per hook, as people read it.

``rows`` describes each registered hook: its event and matcher, what runs, what it checks, the
decisions it can return, and what its failure means: the rows of ``hookline hooks table``.
Nothing is printed here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final

from hookline._claude.command import CommandHook
from hookline._claude.handlers import Unloadable
from hookline._claude.http import HttpHook
from hookline._events import event_class
from hookline._hooks.registry import HookRegistry
from hookline._hooks.runners import PythonHook, SdkCallbackHook
from hookline._matchers import AllOf
from hookline.permissions._rules import RuleCondition

if TYPE_CHECKING:
    from hookline._hooks.spec import HookSpec
    from hookline._matchers import Matcher

#: What a gate answers where its event takes no decision (``facts.answers`` is empty), and what
#: an observer answers anywhere.
SIDE_EFFECTS_ONLY: Final = ("none (side effects only)",)
RECORDS_ONLY: Final = ("none (records only)",)


@dataclass(frozen=True, slots=True)
class HookRow:
    """One registered hook, described for people (``hookline hooks list`` and ``table``)."""

    event: str
    matcher: str
    handler: str  # python, sdk, command, http, ...
    runs: str  # the function, the command line, the URL
    name: str
    kind: str
    failure: str  # closed / open
    timeout: float
    source: str
    checks: str
    decisions: tuple[str, ...]
    when_it_fails: str

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["decisions"] = list(self.decisions)
        return data


def rows(registry: HookRegistry) -> list[HookRow]:
    """A row per registered hook, in the registry's order (event, then declared order)."""
    return [row(spec) for spec in registry]


def row(spec: HookSpec) -> HookRow:
    """``spec`` described for people."""
    return HookRow(
        event=spec.event,
        matcher=matcher_text(spec.matcher),
        handler=spec.runner.handler,
        runs=spec.runner.describe(),
        name=spec.name,
        kind=spec.kind,
        failure=spec.failure,
        timeout=spec.timeout,
        source=spec.source,
        checks=checks(spec),
        decisions=decisions(spec.event, spec.kind),
        when_it_fails=when_it_fails(spec),
    )


def checks(spec: HookSpec) -> str:
    """What the hook checks: a Python hook's docstring (first line); else its ``if`` condition
    and what runs."""
    runner = spec.runner
    if isinstance(runner, Unloadable):
        return f"nothing: it could not be loaded ({runner.problem.message})"
    if isinstance(runner, PythonHook | SdkCallbackHook):
        doc = (getattr(runner.fn, "__doc__", None) or "").strip()
        if doc:
            return doc.splitlines()[0]
    what = {CommandHook: "runs", HttpHook: "POST"}.get(type(runner), "calls")
    conditions = [
        f"if {part.rule}" for part in _parts(spec.matcher) if isinstance(part, RuleCondition)
    ]
    return ": ".join((*conditions, f"{what} {runner.describe()}"))


def decisions(event: str, kind: str) -> tuple[str, ...]:
    """The decisions a hook of ``kind`` can return at ``event`` (the event's ``facts.answers``)."""
    if kind == "observer":
        return RECORDS_ONLY
    found = event_class(event).facts.answers or SIDE_EFFECTS_ONLY
    rewrites = [d for d in found if d in ("rewrite", "replace output")]
    if kind == "transformer" and rewrites:  # a transformer is there to rewrite
        return (*rewrites, *(d for d in found if d not in rewrites))
    return found


def when_it_fails(spec: HookSpec) -> str:
    """What a failure (a crash, a timeout, a service that is down) of this hook decides."""
    if spec.kind == "observer":
        return "nothing (observers never block)"
    if spec.failure == "closed":
        refuses = event_class(spec.event).facts.refuses
        if refuses is None:
            return "no decision (nothing to refuse here)"
        return "output withheld (fail closed)" if refuses == "output" else "deny (fail closed)"
    return "no decision (fail open)"


def matcher_text(matcher: Matcher) -> str:
    """``matcher.label()`` without its ``if`` condition, which the CHECKS column shows."""
    parts = [p.label() for p in _parts(matcher) if not isinstance(p, RuleCondition)]
    return " & ".join(parts) or "*"


def _parts(matcher: Matcher) -> Iterator[Matcher]:
    yield from matcher.parts if isinstance(matcher, AllOf) else (matcher,)
