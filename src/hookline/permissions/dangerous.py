"""The dangerous tier: calls refused whatever the mode, the rules or the hooks say.

``DANGEROUS`` holds the built-in entries, regexes searched in Bash commands; settings add their
own (see ``hookline.permissions``), each a regex or a permission rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hookline.permissions.rules import PermissionRule

#: Where a command starts, and what may stand before its name (sudo -u root, env X=1, timeout
#: 30). Possessive (``*+``), so a long run of such words costs linear time, never exponential.
_START = r"(?:^|[;&|({`'\"\n]|\$\()\s*(?:(?:sudo|doas|env|nohup|nice|time|exec|command|xargs)\s+"
_START += r"|timeout\s+\S+\s+|\w+=\S*\s+|\d+\s+|-[ug]\s*[^-\s]\S*\s+|-\S+\s+)*+"
_REST, _END = r"[^;&|\n'\"`(){}]*", r"(?=$|[\s;&|)'\"`])"
_HOME_OR_ROOT = rf"\s[\"']?(?:/\*?|~/?\*?|\$\{{?HOME\}}?/?\*?)[\"']?{_END}"


@dataclass(frozen=True, slots=True)
class Danger:
    """One entry of the dangerous tier: a regex searched in Bash commands, or a rule."""

    name: str
    about: str
    pattern: re.Pattern[str] | None = None
    rule: PermissionRule | None = None

    def matches(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str, home: str | None = None
    ) -> bool:
        """Whether the call is this danger (a rule matches any part of it, as a deny rule)."""
        if self.rule is not None:
            return self.rule.matches(tool_name, tool_input, cwd=cwd, home=home)
        command = tool_input.get("command")
        found = self.pattern and isinstance(command, str) and self.pattern.search(command)
        return tool_name == "Bash" and bool(found)


#: The built-in dangerous tier: commands that wreck a machine or shared history for good. A
#: command counts after sudo, env, timeout, ``;``, ``|``, ``$(`` or a quote, so the check errs
#: towards refusing (``echo "rm -rf /"`` is refused too).
DANGEROUS = tuple(
    Danger(name, about, re.compile(pattern if name == "fork-bomb" else _START + pattern))
    for name, about, pattern in (
        ("rm-root", "a recursive delete of / or ~",
         rf"rm\b(?={_REST}\s(?:-\w*[rR]\w*|--recursive)\b){_REST}{_HOME_OR_ROOT}"),
        ("chmod-root", "a recursive chmod or chown of / or ~",
         rf"ch(?:mod|own|grp)\b(?={_REST}\s(?:-\w*R\w*|--recursive)\b){_REST}{_HOME_OR_ROOT}"),
        ("mkfs", "making a filesystem", rf"mkfs(?:\.\w+)?{_END}"),
        ("dd-device", "dd writing onto a device",
         rf"dd\b{_REST}\sof=/dev/(?!null{_END}|zero{_END}|std(?:out|err){_END})"),
        ("shutdown", "shutting down or rebooting the machine",
         rf"(?:shutdown|reboot|poweroff|halt|systemctl\s+(?:poweroff|reboot|halt)){_END}"),
        ("fork-bomb", "a fork bomb", r"(\w+|:)\(\)\s*\{[^}]{0,80}\1\s*\|\s*\1\s*&"),
        ("force-push-main", "a force push to main or master",
         rf"git\b(?={_REST}\spush\b)(?={_REST}\s(?:-f|--force(?:-with-lease)?)(?:[\s=]|$))"
         rf"(?={_REST}[\s:+](?:refs/heads/)?(?:main|master){_END})"),
    )
)  # fmt: skip
