"""Permission rules in Claude Code's syntax: ``Tool`` or ``Tool(specifier)``.

A bare tool name covers every call of that tool; a specifier narrows the rule to some calls:

- ``Bash(git push *)``: the command, ``*`` standing for any text. A trailing `` *`` (or the older
  ``:*``) also covers the bare command, so ``Bash(ls *)`` matches ``ls`` but not ``lsof``. Each
  command the line runs counts on its own, as Bash reads it (``hookline.permissions.bash``):
  under wrappers, inside ``bash -c`` and substitutions; see ``command_rules``.
- ``Read(...)``, ``Edit(...)``: a gitignore-style path. ``//`` starts at the filesystem root, ``~/``
  at home, ``/``, ``./`` or any inner ``/`` at the working directory; a bare name such as ``.env``
  or ``*.ts`` matches at any depth below it. ``Read`` covers Read, Glob and Grep; ``Edit`` covers
  Edit, Write and NotebookEdit.
- ``WebFetch(domain:example.com)``: the URL's host; ``*.example.com`` for its subdomains.
- ``mcp__server``: every tool of that server; ``mcp__server__*`` a name wildcard.
- ``Agent(Explore)``: a subagent. Any other ``Tool(specifier)`` matches nothing.

"Any" mode (deny rules, hook ``if`` conditions) matches when some part of a call does, and a
command it cannot read counts as a match; "every" mode (allow rules) needs all of it to match and
never matches what it cannot read. ``if_("Bash(git push *)")`` makes a hook matcher of a rule.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final
from urllib.parse import urlsplit

from hookline._errors import ConfigError
from hookline._events import ToolEvent
from hookline._file_tools import RULE_FIELDS
from hookline._matchers import Matcher
from hookline._settings_layers import suggestion
from hookline._support.words import words
from hookline.permissions._command_rules import command_matches
from hookline.permissions._paths import forms, real

if TYPE_CHECKING:
    from hookline._events import HookEvent

#: Path rules Claude Code accepts but never consults, and the rule to write instead.
_UNCONSULTED: Final = {"Write": "Edit", "MultiEdit": "Edit", "NotebookEdit": "Edit", "Glob": "Read"}
_NAME = re.compile(r"[A-Za-z0-9_.*-]+")
_GLOB = re.compile(r"\*\*/|/\*\*$|\*\*|\*|\?|\[(!?)([^\]/]+)\]|\\.|.", re.DOTALL)
_GLOB_CHARS: Final = frozenset("*?[\\")
_GLOB_PARTS: Final = {"**/": "(?:.*/)?", "/**": "/.*", "**": ".*", "*": "[^/]*", "?": "[^/]"}


@final
@dataclass(frozen=True, slots=True)
class PermissionRule:
    """One rule: a tool name and, optionally, the specifier that narrows it to some calls."""

    tool: str
    specifier: str | None = None

    @classmethod
    def parse(cls, text: str, *, file: str | None = None, key: str | None = None) -> PermissionRule:
        """Read ``Tool`` or ``Tool(specifier)``; a malformed rule is a ConfigError with a fix."""
        name, paren, rest = text.strip().partition("(") if isinstance(text, str) else ("", "", "")
        problem = _problem(name, rest if paren else None)
        if problem:
            message, fix = problem
            raise ConfigError(f"permission rule {text!r} {message}", file=file, key=key, fix=fix)
        return cls(name, rest[:-1].strip() if paren else None)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def names_whole(self, tool_name: str) -> bool:
        """Whether this rule covers every call of ``tool_name``: its name (an MCP server's, a
        ``mcp__server__*`` wildcard) with no specifier. A deny rule of this kind takes the
        tool out of what the model is offered, as Claude Code does."""
        if self.specifier is not None and not (self.tool == "Bash" and self.specifier == "*"):
            return False
        if self.tool in RULE_FIELDS:  # Read covers Grep and Glob calls, but names only Read
            return tool_name == self.tool
        return _name_matches(self.tool, tool_name, every=False)

    def matches(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str,
        home: str | None = None,
        every: bool = False,
        anchor: str | None = None,
    ) -> bool:
        """Whether some part of the call matches the rule, or with ``every=True`` all of it.
        A relative path is read from ``cwd``; ``./`` rules start at ``anchor`` (the project
        folder, which a ``cd`` does not move), ``cwd`` when not given."""
        spec = self.specifier
        if not _name_matches(self.tool, tool_name, every=every):
            return False
        if spec is None or (self.tool == "Bash" and spec == "*"):
            return True
        if self.tool == "Bash":
            command = tool_input.get("command")
            return isinstance(command, str) and command_matches(spec, command, every=every)
        if self.tool in RULE_FIELDS:
            path = tool_input.get(RULE_FIELDS[self.tool][tool_name])
            if not isinstance(path, str):
                return False
            home = home or str(Path.home())
            return _path_matches(spec, path, cwd=cwd, home=home, every=every, anchor=anchor)
        return _other_matches(self.tool, spec, tool_input)

    def covers_real(self, path: str, *, anchors: tuple[tuple[str, str], ...]) -> bool:
        """Whether this path rule covers ``path``, absolute and with no link on it, read from
        each ``(folder, home)`` of ``anchors`` (``./`` rules start at the folder): what
        ``matches`` does without resolving anything, for a walk of many paths."""
        if self.tool not in RULE_FIELDS:
            return False
        spec = self.specifier
        return spec is None or any(_form_matches(spec, path, cwd=c, home=h) for c, h in anchors)

    def scope(self, folder: str, home: str) -> str:
        """Where this path rule reaches, read from ``folder`` (``./`` rules start there): the
        path all it covers lies at or below (``/ws/.env`` for ``Read(./.env)``, ``/ws/secrets``
        for ``Read(./secrets/**/*.key)``, ``/ws`` for ``Read(*.pem)``, at any depth)."""
        spec = self.specifier
        if spec is None:
            return "/"
        prefix = next((p for p in ("//", "~/", "/", "./") if spec.startswith(p)), "")
        anchor, body = {"//": "/", "~/": home}.get(prefix, folder), spec[len(prefix) :].rstrip("/")
        if not prefix and "/" not in body:  # a bare name: at any depth
            return anchor
        parts = body.split("/")
        fixed = next((i for i, part in enumerate(parts) if _GLOB_CHARS & set(part)), len(parts))
        return posixpath.normpath(posixpath.join(anchor, *parts[:fixed]))


@final
class RuleCondition(Matcher):
    """A hook matcher: the event is about a tool call the rule matches (any part of it)."""

    __slots__ = ("rule",)

    def __init__(self, rule: PermissionRule) -> None:
        self.rule = rule

    def __call__(self, event: HookEvent) -> bool:
        if not isinstance(event, ToolEvent):
            return False  # Claude Code never runs a handler with an `if` on other events
        given = event.tool_input
        return self.rule.matches(event.tool_name, given, cwd=event.cwd, anchor=event.project_dir)

    def __repr__(self) -> str:
        return f"if_({str(self.rule)!r})"

    def label(self) -> str:
        return f"if {self.rule}"


def if_(text: str, *, file: str | None = None, key: str = "if") -> Matcher:
    """A hook handler's ``if`` condition: one permission rule, as in ``if_("Bash(git *)")``.
    From a settings file (``file`` given), a rule that names no tool is a ConfigError too: the
    hook would never run."""
    rule = PermissionRule.parse(text, file=file, key=key)
    problem = unknown_tool(rule) if file is not None else None
    if problem is not None:
        raise ConfigError(
            f"permission rule {text!r} {problem[0]}", file=file, key=key, fix=problem[1]
        )
    return RuleCondition(rule)


def _problem(name: str, rest: str | None) -> tuple[str, str] | None:
    """What is wrong with a rule Claude Code would refuse or ignore, and the fix."""
    spec = (rest or "")[:-1].strip()
    if not _NAME.fullmatch(name):
        return "does not start with a tool name", "write Tool or Tool(specifier)"
    if rest is None:
        return None
    if not (rest.endswith(")") and _balanced(rest[:-1])):
        return "has unbalanced parentheses", "write one rule, as in Bash(git push *)"
    if not spec:
        return "has empty parentheses", f"write {name} alone to match every call"
    if "*" in name or name.startswith("mcp__"):
        return "gives a specifier to a tool-name pattern", f"write {name} alone"
    if name in _UNCONSULTED:
        return "is a path rule Claude Code never consults", f"write {_UNCONSULTED[name]}({spec})"
    return None


#: The tool names a settings rule may name: Claude Code's tools (hookline runs some of them;
#: a rule for another still reads, for settings shared with Claude Code), besides ``mcp__``
#: names and name patterns with ``*``.
TOOL_NAMES: Final = words(
    "Agent AskUserQuestion Bash BashOutput Edit EnterPlanMode ExitPlanMode Glob Grep KillBash "
    "KillShell LS ListMcpResourcesTool LSP Monitor MultiEdit NotebookEdit NotebookRead "
    "PowerShell Read ReadMcpResourceTool Skill SlashCommand Task TaskOutput TaskStop TodoRead "
    "TodoWrite WebFetch WebSearch Write"
)


def unknown_tool(rule: PermissionRule) -> tuple[str, str] | None:
    """Why a settings rule names no tool, and the fix (the tool it most likely misspells);
    None when it names one. A rule for no tool matches nothing: as a deny rule, it fails open."""
    name = rule.tool
    if name in TOOL_NAMES or "*" in name or name.startswith("mcp__"):
        return None
    near = suggestion(name, TOOL_NAMES)
    spec = "" if rule.specifier is None else f"({rule.specifier})"
    fix = (
        f"did you mean {near}{spec}? Tool names are case-sensitive"
        if near
        else ("name a tool (Bash, Read, Edit, WebFetch, ...) or mcp__<server>__<tool>")
    )
    return f"names no tool: {name!r}", fix


def _balanced(text: str) -> bool:
    text = re.sub(r"\\.", "", text)
    while (shorter := re.sub(r"\([^()]*\)", "", text)) != text:
        text = shorter
    return "(" not in text and ")" not in text


def _name_matches(rule_tool: str, tool_name: str, *, every: bool) -> bool:
    if rule_tool in RULE_FIELDS:
        return tool_name in RULE_FIELDS[rule_tool]
    if "*" in rule_tool:  # allow rules take a name wildcard only after mcp__<server>__
        allowed = not every or re.match(r"mcp__[^*]+?__", rule_tool) is not None
        return allowed and _wildcard(rule_tool, ".*").fullmatch(tool_name) is not None
    server = rule_tool.startswith("mcp__") and rule_tool.count("__") == 1
    return tool_name == rule_tool or (server and tool_name.startswith(f"{rule_tool}__"))


def _other_matches(tool: str, spec: str, tool_input: Mapping[str, Any]) -> bool:
    if tool == "WebFetch" and spec.startswith("domain:"):
        return _domain_matches(spec.removeprefix("domain:").strip(), tool_input.get("url"))
    return tool == "Agent" and tool_input.get("subagent_type") == spec  # Agent(Explore)


@lru_cache(maxsize=512)
def _wildcard(pattern: str, star: str) -> re.Pattern[str]:
    return re.compile(star.join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def _domain_matches(pattern: str, url: object) -> bool:
    try:
        host = urlsplit(url).hostname if isinstance(url, str) else None
    except ValueError:
        return False
    pattern = pattern.lower().rstrip(".")
    if not host or pattern == "*":
        return bool(host)
    labels = ""
    if pattern.startswith("*."):  # any subdomain, at any depth, but not the domain itself
        labels, pattern = r"(?:[^.]+\.)+", pattern[2:]
    return re.fullmatch(labels + _wildcard(pattern, "[^.]*").pattern, host.rstrip(".")) is not None


def _path_matches(
    spec: str, path: str, *, cwd: str, home: str, every: bool = False, anchor: str | None = None
) -> bool:
    """Whether the path as given or its real path (symlinks resolved) matches; ``every``: both."""
    base = cwd if anchor is None else anchor
    try:
        given = forms(path, cwd, home)
        anchors = dict.fromkeys(((base, home), (real(base), real(home))))
    except ValueError:  # a NUL byte: no file system path, so only the text can match
        given, anchors = (posixpath.join(cwd, path),), {(base, home): None}
    test = all if every else any
    return test(any(_form_matches(spec, form, cwd=c, home=h) for c, h in anchors) for form in given)


def _form_matches(spec: str, path: str, *, cwd: str, home: str) -> bool:
    prefix = next((p for p in ("//", "~/", "/", "./") if spec.startswith(p)), "")
    anchor, body = {"//": "/", "~/": home}.get(prefix, cwd), spec[len(prefix) :].rstrip("/")
    path = home + path[1:] if path == "~" or path.startswith("~/") else path
    relative = posixpath.relpath(posixpath.join(cwd, path), anchor)
    if relative in (".", "..") or relative.startswith("../"):
        return False  # a rule only reaches below its anchor
    parts = relative.split("/")
    if prefix or "/" in body:  # anchored: test each folder on the way down, then the file
        parts = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    return any(_glob(body).fullmatch(part) for part in parts)  # a bare name: any depth


@lru_cache(maxsize=512)
def _glob(body: str) -> re.Pattern[str]:
    """gitignore wildcards as a regex: ``*`` and ``?`` stay inside a segment, ``**`` spans them."""
    parts: list[str] = []
    for token in _GLOB.finditer(body):
        if token[2]:  # [abc], [a-z], [!abc]
            chars = "".join(c if c == "-" else re.escape(c) for c in token[2])
            parts.append(f"[{'^' if token[1] else ''}{chars}]")
        else:
            parts.append(_GLOB_PARTS.get(token.group()) or re.escape(token.group()[-1]))
    return re.compile("".join(parts), re.DOTALL)
