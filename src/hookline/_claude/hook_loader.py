"""Walking one settings layer's ``hooks`` object into a registry (``Settings.register``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar

from hookline._claude.handlers import unloadable
from hookline._errors import ConfigError
from hookline._events import NOT_YET_SUPPORTED, event_class, foreign_event
from hookline._matchers import EVERYTHING, Matcher, tool_name
from hookline._settings_layers import SettingsWarning, Severity

if TYPE_CHECKING:
    from hookline._claude.handlers import Options
    from hookline._hooks.registry import HookRegistry
    from hookline._hooks.runners import HookRunner

T = TypeVar("T")
_SHAPE: Final = 'write "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": ...}]}]}'


@dataclass(frozen=True, slots=True)
class HookLoader:
    """Walks one layer's ``hooks`` object: registers what loads, warns about the rest (every
    entry that cannot load is an error, but those of events hookline does not run yet)."""

    file: str
    registry: HookRegistry
    build: Callable[..., tuple[HookRunner, Options]]
    warn: Callable[[SettingsWarning], None]

    def walk(self, hooks: object) -> None:
        with self._warned():
            events = self._expect(hooks, dict, "hooks", "must be an object of events")
            for event, groups in events.items():
                # Claude Code's events hookline does not run yet, and names of some other
                # program's events ("FutureEvent"), are warnings, so a file shared with a newer
                # Claude Code loads; a name near a known one is an error, as it may be a
                # misspelt guard ("PretoolUse", "pretooluse")
                foreign = event in NOT_YET_SUPPORTED or foreign_event(event)
                with self._warned("warning" if foreign else "error"):
                    self._event(event, groups, f"hooks.{event}")

    def _event(self, event: str, groups: object, key: str) -> None:
        event_class(event, file=self.file, key=key)
        groups = self._expect(groups, list, key, "must be a list of groups")
        for index, group in enumerate(groups):
            with self._warned():
                self._group(event, group, f"{key}[{index}]")

    def _group(self, event: str, group: object, key: str) -> None:
        group = self._expect(group, dict, key, "a matcher group must be an object")
        matcher = self._matcher(group.get("matcher"), f"{key}.matcher")
        handlers = self._expect(group.get("hooks"), list, f"{key}.hooks", "must be a list")
        for index, handler in enumerate(handlers):
            with self._warned():
                self._handler(event, handler, matcher, f"{key}.hooks[{index}]")

    def _matcher(self, pattern: object, key: str) -> Matcher | ConfigError:
        """The group's matcher, or (warned about once) why it cannot be read."""
        fix, given = 'write "matcher": "Bash|Edit"', "" if pattern is None else pattern
        try:
            text = self._expect(given, str, key, "must be a string", fix)
            return tool_name(text, file=self.file, key=key)
        except ConfigError as exc:
            self.warn(SettingsWarning.of(exc, severity="error"))
            return exc

    def _handler(
        self, event: str, handler: object, matcher: Matcher | ConfigError, key: str
    ) -> None:
        """Register the handler; if it cannot load (or its group's matcher cannot be read) and
        it declares onFailure block, a stand-in that denies (every call, without a matcher)."""
        try:
            if isinstance(matcher, ConfigError):
                raise matcher  # no matcher, no handler; unless it declares block (below)
            runner, options = self.build(handler, event=event, key=key)
        except ConfigError as problem:
            stand_in = unloadable(handler, problem, key=key)
            if stand_in is None:
                if problem is not matcher:  # a bad matcher is reported once, for its group
                    self.warn(SettingsWarning.of(problem, severity="error"))
                return
            self.warn(SettingsWarning.of(problem, denying=key, severity="error"))
            runner, options = stand_in
            matcher = matcher if isinstance(matcher, Matcher) else EVERYTHING
        for note in options.notes:
            self.warn(SettingsWarning.of(note))
        self.registry.add(
            event,
            runner,
            matcher=matcher if options.condition is None else matcher & options.condition,
            kind=options.kind,
            timeout=options.timeout,
            failure=options.failure,
            name=options.name,
        )

    def _expect(self, value: object, kind: type[T], key: str, message: str, fix: str = _SHAPE) -> T:
        if not isinstance(value, kind):
            what = f"{message}, not {type(value).__name__}"
            raise ConfigError(what, file=self.file, key=key, fix=fix)
        return value

    @contextmanager
    def _warned(self, severity: Severity = "error") -> Iterator[None]:
        """Report a ConfigError raised inside as a warning, and go on with the next entry."""
        try:
            yield
        except ConfigError as exc:
            self.warn(SettingsWarning.of(exc, severity=severity))
