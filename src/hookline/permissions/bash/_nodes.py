"""Facts read off a parsed Bash line's nodes and commands: assigned names, function names,
here-document text, where a parse error is, where a ``cd`` goes, and what a redirect feeds."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING

from hookline.permissions.bash._parts import Command, Redirect
from hookline.permissions.bash._words import Word, node_text

if TYPE_CHECKING:
    from tree_sitter import Node


def assigned_names(node: Node, source: bytes) -> list[str]:
    if node.type == "variable_assignment":
        names = node.children_by_field_name("name")
        return [node_text(names[0], source)] if names else []
    if node.type == "unset_command":
        return []
    found: list[str] = []
    for child in node.named_children:
        if child.type == "variable_assignment":
            found.extend(assigned_names(child, source))
    return found


def function_names(root: Node, source: bytes) -> set[str]:
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            for name in node.children_by_field_name("name"):
                names.add(node_text(name, source))
        stack.extend(node.named_children)
    return names


def heredoc_text(node: Node, source: bytes) -> str | None:
    """A here-document's body when it is literal text; None when it has expansions."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    quoted = start is not None and node_text(start, source)[:1] in ("'", '"', "\\")
    expands = any(c.type not in ("heredoc_content",) for c in body.named_children)
    if expands and not quoted:
        return None
    return node_text(body, source)


def error_near(root: Node, source: bytes) -> str:
    """Where the first parse error is, in a few characters of the line."""
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if node.type == "ERROR" or node.is_missing:
            snippet = source[node.start_byte : node.start_byte + 30].decode(errors="replace")
            return f"near `{snippet.strip() or 'the end of the line'}`"
        queue.extend(node.children)
    return "unbalanced quotes or brackets"


def cd_target(command: Command) -> str | None:
    """Where a `cd` goes when its one target is literal (``~`` without one); None otherwise
    (``-``, ``~-`` and ``~+`` name folders only run time knows)."""
    words = list(command.args)
    while words and _option(words[0].value):
        if words.pop(0).value == "--":
            break
    target = words[0] if words else Word("~", raw="~", tilde=True)
    value = target.value
    if command.name != "cd" or len(words) > 1 or value is None or value == "-" or target.glob:
        return None
    if target.tilde and value.startswith(("~+", "~-")):
        return None
    return value if target.tilde or not value.startswith("~") else "./" + value


def _option(value: str | None) -> bool:
    return value is not None and value.startswith("-") and value != "-"


def stdin(redirect: Redirect, text: str | None, before: str | None) -> str | None:
    """What a command reads on stdin after ``redirect``."""
    if redirect.op in ("<<", "<<-", "<<<"):
        return text
    if redirect.op in ("<", "<>") and redirect.fd in ("", "0"):
        return "file"
    return before


def with_more_args(command: Command) -> Command:
    return command if command.wrapper else replace(command, more_args=True)


def descriptor_number(node: Node, source: bytes) -> bool:
    """A number right before a redirect (``0<f``), which Bash reads as the redirect's fd."""
    return node.type == "number" and source[node.end_byte : node.end_byte + 1] in (b"<", b">")


def reads_stdin(command: Command) -> bool:
    """Whether one of ``command``'s redirects gives it a stdin of its own."""
    return any(
        r.fd == "0" or (r.fd == "" and r.op in ("<", "<<", "<<-", "<<<", "<>", "<&"))
        for r in command.redirects
    )
