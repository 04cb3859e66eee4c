"""A lint for the hooks a run would have: ``lint(registry, settings, known_tools=...)``.

Each check is a small function ``(Subject) -> Iterable[Finding]`` listed in ``CHECKS``; a new
check is one function and one line there. Errors are hooks that cannot work as written (a
settings problem, a command that cannot start); warnings are hooks that work, but probably not
as meant (a matcher no tool can meet, a timeout in milliseconds, a gate that fails open, a
duplicate). Nothing is run and nothing is printed.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from hookline._claude.command import CommandHook
from hookline._claude.lint_commands import program_problem, project_dir_problem
from hookline._events import ToolEvent, event_class
from hookline._hooks.runners import PythonHook, SdkCallbackHook, takes
from hookline._matchers import AllOf, AnyOf, Matcher, NameIn, NameRegex
from hookline._settings_layers import PRECEDENCE, SettingsWarning, suggestion

if TYPE_CHECKING:
    from hookline._claude.settings import Settings
    from hookline._hooks.registry import HookRegistry
    from hookline._hooks.spec import HookSpec

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: how bad, where (file or layer, event, hook), what, and the fix."""

    severity: Severity
    source: str
    event: str | None
    hook: str | None
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        event = self.event if self.event and self.event not in (self.hook or "") else None
        what = " ".join(part for part in (event, self.hook) if part)
        where = ": ".join(part for part in (self.source, what) if part)
        # Where first, as a compiler says it: a finding's place stands where ``hookline: error:``
        # puts the program's name, so the two kinds of line read apart.
        text = f"{where}: {self.severity}: {self.message}"
        return f"{text} (fix: {self.fix})" if self.fix else text


@dataclass(frozen=True, slots=True)
class Subject:
    """What the checks look at."""

    registry: HookRegistry
    settings: Settings | None
    known_tools: frozenset[str]


Check = Callable[[Subject], Iterable[Finding]]


def lint(
    registry: HookRegistry, settings: Settings | None, *, known_tools: Iterable[str]
) -> list[Finding]:
    """Every finding of every check, check by check, each in the registry's order."""
    subject = Subject(registry, settings, frozenset(known_tools))
    return [finding for check in CHECKS for finding in check(subject)]


def run_stoppers(registry: HookRegistry) -> list[SettingsWarning]:
    """The findings of the hook checks that are errors (a command that cannot start, a Python
    hook that cannot take its arguments), as settings errors that stop a strict run: a gate
    that can never answer must not fail open. (Settings problems are already the load's.)"""
    subject = Subject(registry, None, frozenset())
    found = (f for check in STOPPERS for f in check(subject) if f.severity == "error")
    return [_as_warning(finding) for finding in found]


def _as_warning(finding: Finding) -> SettingsWarning:
    layer, _, path = finding.source.partition(":")
    file = path if layer in PRECEDENCE and path else finding.source
    key = f"hooks.{finding.event} {finding.hook}" if finding.event else finding.hook
    return SettingsWarning(file, finding.message, key, finding.fix, "error")


def _finding(spec: HookSpec, severity: Severity, message: str, fix: str | None) -> Finding:
    return Finding(severity, spec.source, spec.event, spec.name, message, fix)


# -- settings -----------------------------------------------------------------------------------

_EVENT_IN_KEY: Final = re.compile(r"hooks\.([A-Za-z]+)")


def settings_problems(subject: Subject) -> Iterator[Finding]:
    """Every settings problem, as severe as a run finds it: an error when it drops a guard (bad
    JSON, a bad regex, a handler that cannot load), else a warning (an event not run yet)."""
    for warning in subject.settings.warnings if subject.settings else ():
        event = _EVENT_IN_KEY.match(warning.key or "")
        yield Finding(
            warning.severity,
            warning.file,
            event[1] if event else None,
            warning.key,
            warning.message,
            warning.fix,
        )


# -- matchers -----------------------------------------------------------------------------------


def unreachable_matchers(subject: Subject) -> Iterator[Finding]:
    """A tool event's matcher that no known tool and no ``mcp__`` tool can meet."""
    known = subject.known_tools
    for spec in subject.registry:
        if not issubclass(event_class(spec.event), ToolEvent):
            continue
        pattern = _unreachable(spec.matcher, known)
        if pattern is not None:
            tools = ", ".join(sorted(known))
            message = f"matcher {pattern!r} can never match a known tool ({tools}) or an MCP tool"
            yield _finding(spec, "warning", message, _name_fix(pattern, known))


def _unreachable(matcher: Matcher, known: frozenset[str]) -> str | None:
    """The pattern (of ``matcher`` or a part every match needs) that nothing can meet, or None."""
    if isinstance(matcher, AllOf):
        return next(filter(None, (_unreachable(part, known) for part in matcher.parts)), None)
    if isinstance(matcher, AnyOf):
        found = [_unreachable(part, known) for part in matcher.parts]
        return repr(matcher) if all(p is not None for p in found) else None
    if isinstance(matcher, NameIn):  # each name listed must be a tool: "Bash|Wrte" warns of Wrte
        unknown = [n for n in matcher.names if n not in known and not n.startswith("mcp__")]
        return "|".join(sorted(unknown)) or None
    if isinstance(matcher, NameRegex):
        regex = matcher.regex
        reachable = any(regex.search(name) for name in known) or _may_match_mcp(regex.pattern)
        return None if reachable else regex.pattern
    return None  # arg(...), ~..., if_(...): not judged


def _may_match_mcp(pattern: str) -> bool:
    """Whether a regex might match some ``mcp__<server>__<tool>`` name. Only a pattern whose
    every ``|`` branch starts with ``^`` and a plain character other than ``m`` surely cannot."""
    return any(not re.match(r"\^[A-Za-ln-z0-9_]", branch) for branch in pattern.split("|"))


def _name_fix(pattern: str, known: frozenset[str]) -> str:
    words = re.findall(r"[A-Za-z_][\w-]*", pattern)
    close = [hit for word in words if (hit := _close(word, known))]
    if close:
        return f"did you mean {'|'.join(dict.fromkeys(close))}? Tool names are case-sensitive"
    return "name a known tool, or mcp__<server>__<tool>"


def _close(word: str, known: frozenset[str]) -> str | None:
    """The known name ``word`` most likely misspells (as settings keys and rules suggest)."""
    hit = suggestion(word, known)
    return hit or next(iter(difflib.get_close_matches(word, sorted(known), 1)), None)


# -- commands -----------------------------------------------------------------------------------


def missing_commands(subject: Subject) -> Iterator[Finding]:
    """A command hook whose program is missing or not executable.

    Exec form (``args``): the command, after ``${CLAUDE_PROJECT_DIR}``, is a path or a name on
    PATH. Shell form: the first word, after ``$CLAUDE_PROJECT_DIR`` / ``${CLAUDE_PROJECT_DIR}``
    and ``~``, when it is a plain word or a path (a shell keyword or builtin is fine); when it is
    an interpreter (``sh``, ``python3``, ``node``, ...) the script it is given must exist too.
    Anything else (other variables, ``$(...)``, globs, an assignment or redirection first, an
    open quote) is shell syntax this check cannot judge without running it, and is skipped.
    Relative paths are read from the project folder, where hooks run unless the session ``cd``s.
    """
    for spec in subject.registry:
        if isinstance(spec.runner, CommandHook):
            problem = program_problem(spec.runner)
            if problem:
                yield _finding(spec, "error", *problem)


def unquoted_project_dir(subject: Subject) -> Iterator[Finding]:
    """The project folder where a shell may read it as code or split it: ``${CLAUDE_PROJECT_DIR}``
    in the shell code of an exec-form hook (``sh -c CODE``), which Claude Code replaces with the
    path before the shell reads it; ``$CLAUDE_PROJECT_DIR`` outside double quotes."""
    for spec in subject.registry:
        if isinstance(spec.runner, CommandHook):
            problem = project_dir_problem(spec.runner)
            if problem:
                yield _finding(spec, "warning", *problem)


# -- Python signatures --------------------------------------------------------------------------

#: How many positional arguments each runner calls its function with, as said, and the fix.
_CALLED_AS: Final[dict[type, tuple[int, str, str]]] = {
    PythonHook: (1, "f(event)", "def check(event): ... (one positional argument)"),
    SdkCallbackHook: (
        3,
        "an Agent SDK callback, f(input_data, tool_use_id, context)",
        "async def check(input_data, tool_use_id, context): ...",
    ),
}


def python_signatures(subject: Subject) -> Iterator[Finding]:
    """A Python hook (``--hooks`` file, ``register``, ``HOOKS``) whose function cannot take what
    it is called with: every call would fail. (A settings ``python`` handler with such a
    function does not load: a settings problem.)"""
    for spec in subject.registry:
        called = _CALLED_AS.get(type(spec.runner))
        fn = getattr(spec.runner, "fn", None)
        if called is None or fn is None or takes(fn, called[0]):
            continue
        message = f"is called as {called[1]}, which its signature {_signature(fn)} cannot take"
        yield _finding(spec, "error", message, called[2])


def _signature(fn: Callable[..., Any]) -> str:
    try:
        return str(inspect.signature(fn))
    except (TypeError, ValueError):
        return "(?)"


# -- timeouts -----------------------------------------------------------------------------------

#: Seconds from which a timeout was most likely meant in milliseconds; more than an event's cap
#: (``facts.timeout_cap``: SessionEnd hooks share a budget of at most 60 s) is a mistake too.
MILLISECONDS_FROM: Final = 1000.0


def millisecond_timeouts(subject: Subject) -> Iterator[Finding]:
    """A timeout of 1000 s or more (more than 60 s on SessionEnd): meant as milliseconds?"""
    for spec in subject.registry:
        seconds, cap = spec.timeout, event_class(spec.event).facts.timeout_cap
        over_cap = cap is not None and seconds > cap
        if seconds >= MILLISECONDS_FROM or over_cap:
            limit = f" ({spec.event} hooks get at most {cap:g} s)" if over_cap else ""
            message = f"timeout {seconds:g} looks like milliseconds: timeouts are seconds{limit}"
            meant = seconds / 1000 if seconds >= MILLISECONDS_FROM else cap
            yield _finding(spec, "warning", message, f"give seconds, e.g. {meant:g}")


# -- failure policy -----------------------------------------------------------------------------

#: What a gate guards before it happens (``facts.refuses``): a failure that is not a refusal
#: lets it through. (An output already made, withheld on PostToolUse, is not warned about.)
_GUARDS: Final = ("call", "prompt")
_CLOSE_IT: Final = {"sdk": 'HookMatcher(..., on_failure="block")', "python": 'failure="closed"'}


def fail_open_gates(subject: Subject) -> Iterator[Finding]:
    """A gate or transformer guarding a call or a prompt that lets it through when it fails."""
    for spec in subject.registry:
        guarded = event_class(spec.event).facts.refuses
        if guarded in _GUARDS and spec.kind != "observer" and spec.failure == "open":
            message = (
                f"this {spec.kind} fails open: if it crashes, times out or its service is down, "
                f"the {guarded} goes ahead unchecked"
            )
            yield _finding(spec, "warning", message, _closing_fix(spec))


def async_gates(subject: Subject) -> Iterator[Finding]:
    """An ``async`` command hook where a gate would guard a call or a prompt: whatever it
    answers, the call or prompt has already gone ahead."""
    for spec in subject.registry:
        guarded = event_class(spec.event).facts.refuses
        if spec.runner.background and guarded in _GUARDS:
            message = (
                f"async hooks cannot block: it runs in the background, the {guarded} goes ahead "
                "and its deny is ignored"
            )
            yield _finding(spec, "warning", message, 'remove "async" to make it a gate')


def _closing_fix(spec: HookSpec) -> str:
    layer, _, _ = spec.source.partition(":")
    if layer not in PRECEDENCE:  # not a settings layer
        return _CLOSE_IT.get(spec.runner.handler, 'failure="closed"')
    return '"onFailure": "block"'  # Claude Code reads it too, on command and HTTP hooks


# -- duplicates ---------------------------------------------------------------------------------


def duplicates(subject: Subject) -> Iterator[Finding]:
    """The same handler (command, URL, Python function) registered again for one event."""
    first: dict[tuple[str, object], HookSpec] = {}
    for spec in subject.registry:
        if spec.runner.key is None:
            continue
        seen = first.setdefault((spec.event, spec.runner.key), spec)
        if seen is not spec:
            message = (
                f"also registered from {seen.source} (matcher {seen.matcher.label()}): where both "
                "match it runs once per event, with the first registration's options"
            )
            yield _finding(spec, "warning", message, "keep one copy")


#: The checks ``lint`` runs, in order. Add a line for a new one.
CHECKS: Final[list[Check]] = [
    settings_problems,
    unreachable_matchers,
    missing_commands,
    unquoted_project_dir,
    python_signatures,
    millisecond_timeouts,
    fail_open_gates,
    async_gates,
    duplicates,
]

#: The checks whose errors stop ``hookline run`` (``run_stoppers``).
STOPPERS: Final[list[Check]] = [missing_commands, python_signatures]
