"""The walk over a parsed Bash line that finds every command it will run.

``Reader.read_line`` parses a line and walks its tree: a ``command`` node becomes a ``Command``
(words read by ``words``, wrappers and code strings by ``programs``), pipelines and redirects
set what each command reads on stdin, substitutions are walked wherever they stand, and code
strings are read again, one level deeper. What cannot be known is added to ``unknown``.
"""

from __future__ import annotations

import posixpath
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from hookline.permissions.bash import programs
from hookline.permissions.bash.grammar import PARSE_BUDGET, parse
from hookline.permissions.bash.parts import Command, Redirect
from hookline.permissions.bash.words import MAX_EXPANSIONS, Word, brace_expand, node_text, word_of

if TYPE_CHECKING:
    from tree_sitter import Node

#: Lines longer than this are not parsed: they cannot be known.
MAX_LENGTH = 100_000
#: Code strings inside code strings (``bash -c "sh -c '...'"``) are read this deep.
MAX_DEPTH = 6
#: Wrappers around one command (``sudo env nice ...``) read before the line counts as unknown.
MAX_WRAPPERS = 32

_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_REDIRECTS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
#: Nodes that hold no command: the walk does not go into them.
_SKIP = frozenset({"comment", "heredoc_start", "heredoc_end", "word", "number", "raw_string",
                   "ansi_c_string", "string_content", "heredoc_content", "variable_name",
                   "special_variable_name", "file_descriptor", "test_operator"})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Context:
    """What surrounds a command: redirects around it, its stdin, and what it runs under."""

    redirects: tuple[Redirect, ...] = ()
    #: "" (the session's: empty), "pipe" (another command's output), "file" (``< file``), or
    #: the literal text of a here-document or here-string; None for one with expansions.
    stdin: str | None = ""
    #: The wrappers, shells and functions it runs under.
    via: tuple[str, ...] = ()
    depth: int = 0


@dataclass
class Reader:
    commands: list[Command] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    substitutions: int = 0
    functions: set[str] = field(default_factory=set)
    recursive: set[str] = field(default_factory=set)
    #: The text of each line being read (code strings nest), for cutting words out of it.
    sources: list[bytes] = field(default_factory=list)
    cwd: str | None = ""

    def read_line(self, line: str, ctx: Context) -> None:
        if ctx.depth > MAX_DEPTH:
            self.unknown.append(f"code strings are nested more than {MAX_DEPTH} deep")
        elif len(line) > MAX_LENGTH:
            self.unknown.append(f"the line is longer than {MAX_LENGTH} characters")
        elif "\0" in line:
            self.unknown.append("the line holds a NUL character")
        else:
            # A final new line changes nothing Bash does, and spares tree-sitter's grammar a
            # slow path at the end of input (a three-part pipeline took 100x longer without it).
            source = line.encode(errors="surrogatepass") + b"\n"
            try:
                root = parse(source)
            except ImportError as exc:
                self.unknown.append(str(exc))
                return
            if root is None:
                self.unknown.append(f"it is too complex to read within {PARSE_BUDGET:g} s")
                return
            if root.has_error:
                self.unknown.append(f"it does not parse as Bash: {_error_near(root, source)}")
            if "(" in line or "function" in line:  # else no function can be defined
                self.functions |= _function_names(root, source)
            self.sources.append(source)
            try:
                self.walk(root, ctx)
            finally:
                self.sources.pop()

    def walk(self, node: Node, ctx: Context) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, ctx)
        elif kind == "pipeline":
            self.pipeline(node, ctx)
        elif kind == "redirected_statement":
            self.redirected(node, ctx)
        elif kind in _SUBSTITUTIONS:
            self.substitutions += 1
            self.children(node, Context(via=ctx.via, depth=ctx.depth))
        elif kind == "function_definition":
            names = node.children_by_field_name("name")
            label = node_text(names[0], self.sources[-1]) if names else ""
            self.children(node, Context(ctx.redirects, ctx.stdin, (*ctx.via, label), ctx.depth))
        elif kind in ("variable_assignment", "declaration_command", "unset_command"):
            self.assignment(node, ctx)
        else:
            self.children(node, ctx)

    def children(self, node: Node, ctx: Context) -> None:
        for child in node.named_children:
            if child.type not in _SKIP:
                self.walk(child, ctx)

    def pipeline(self, node: Node, ctx: Context) -> None:
        for index, part in enumerate(node.named_children):
            stdin = ctx.stdin if index == 0 else "pipe"
            self.walk(part, Context(ctx.redirects, stdin, ctx.via, ctx.depth))

    def redirected(self, node: Node, ctx: Context) -> None:
        redirects, stdin = list(ctx.redirects), ctx.stdin
        for child in node.children_by_field_name("redirect"):
            redirect, text = self.redirect(child, ctx)
            redirects.append(redirect)
            stdin = _stdin(redirect, text, stdin)
        inner = Context(tuple(redirects), stdin, ctx.via, ctx.depth)
        bodies = node.children_by_field_name("body")
        for body in bodies:
            self.walk(body, inner)
        if not bodies:  # `> file` alone: it truncates the file, as `: > file` does
            self.commands.append(Command(":", (), inner.redirects, ctx.via, cwd=self.cwd))

    def redirect(self, node: Node, ctx: Context) -> tuple[Redirect, str | None]:
        """The redirect, and the text it feeds as stdin (None if not literal)."""
        fd = next(
            (node_text(c, self.sources[-1]) for c in node.children if c.type == "file_descriptor"),
            "",
        )
        op = next(c.type for c in node.children if not c.is_named)
        for child in node.named_children:  # substitutions in targets; `| sh` after a heredoc
            if child.type in ("pipeline", "command", "list", "redirected_statement"):
                self.walk(child, Context(via=ctx.via, depth=ctx.depth, stdin="pipe"))
            elif child.type not in ("file_descriptor", "heredoc_start", "heredoc_end"):
                self.walk(child, Context(via=ctx.via, depth=ctx.depth))
        if node.type == "heredoc_redirect":
            return Redirect(op, None, fd), _heredoc_text(node, self.sources[-1])
        targets = node.children_by_field_name("destination") or [
            c for c in node.named_children if c.type not in ("file_descriptor",)
        ]
        target = word_of(targets[-1], self.sources[-1]) if targets else None
        text = target.value if node.type == "herestring_redirect" and target else None
        return Redirect(op, target, fd), (None if text is None else text + "\n")

    def assignment(self, node: Node, ctx: Context) -> None:
        for name in _assigned_names(node, self.sources[-1]):
            if programs.changes_what_runs(name):
                self.unknown.append(f"it sets {name}, which changes what the next commands run")
        self.children(node, ctx)

    def command(self, node: Node, ctx: Context) -> None:
        """A simple command: its words, redirects and assignments, and what its words hold."""
        words: list[Word] = []
        env: list[str] = []
        redirects, stdin = list(ctx.redirects), ctx.stdin
        inside = Context(via=ctx.via, depth=ctx.depth)  # substitutions start afresh
        for index, child in enumerate(node.children):
            kind, field_name = child.type, node.field_name_for_child(index)
            if field_name in ("name", "argument"):
                word = child.named_children[0] if kind == "command_name" else child
                words.extend(self.words(word))
                if word.type not in _SKIP:
                    self.walk(word, inside)
            elif kind in _REDIRECTS:
                redirect, text = self.redirect(child, ctx)
                redirects.append(redirect)
                stdin = _stdin(redirect, text, stdin)
            elif kind == "variable_assignment":
                env.extend(_assigned_names(child, self.sources[-1]))
                self.assignment(child, ctx)
            elif child.is_named and kind not in _SKIP:
                self.walk(child, inside)
        if words:
            start = len(self.commands)
            self.run(words, Context(tuple(redirects), stdin, ctx.via, ctx.depth))
            if env and start < len(self.commands):
                self.commands[start] = replace(self.commands[start], env=tuple(env))

    def words(self, node: Node) -> list[Word]:
        """The words one argument makes: itself, or more after brace expansion."""
        expanded = brace_expand(word_of(node, self.sources[-1]))
        if expanded is None:
            self.unknown.append(f"a brace expansion makes more than {MAX_EXPANSIONS} words")
            return [Word(None, raw=node_text(node, self.sources[-1]))]
        return expanded

    def run(self, words: list[Word], ctx: Context, cwd: str | None = None) -> None:
        """Record the command ``words`` run, unwrapping wrappers and reading code strings."""
        head, args = words[0], tuple(words[1:])
        where = self.cwd if cwd is None else cwd
        if len(ctx.via) > MAX_WRAPPERS:
            self.unknown.append(f"commands are wrapped more than {MAX_WRAPPERS} deep")
            return
        if head.value is None or head.glob:
            why = "a variable or substitution" if head.value is None else "a glob"
            self.unknown.append(f"the command name is {why} (`{head.raw}`): what runs is unknown")
            self.commands.append(Command(None, args, ctx.redirects, ctx.via, cwd=where))
            return
        name = posixpath.basename(head.value) if "/" in head.value else head.value
        path = head.value if "/" in head.value else ""
        if name in self.functions and not path and name in ctx.via:
            self.recursive.add(name)  # a function of this line that calls itself
        found = programs.unwrap(name, args)
        if found.unknown:
            self.unknown.append(found.unknown)
        command = Command(name, args, ctx.redirects, ctx.via, found.wrapper, found.transparent,
                          where, path)  # fmt: skip
        self.commands.append(command)
        if not found.wrapper:
            self.stdin_code(command, ctx)
            self.change_directory(command)
        via = (*ctx.via, found.label or name)
        if found.code is not None:
            self.read_line(found.code, Context(via=via, depth=ctx.depth + 1))
        inner_ctx = Context(ctx.redirects, ctx.stdin, via, ctx.depth)
        for inner in found.inner:
            start = len(self.commands)
            self.run(list(inner), inner_ctx, found.cwd if found.cwd is not None else where)
            if found.more_args:
                self.commands[start:] = [_with_more_args(c) for c in self.commands[start:]]

    def stdin_code(self, command: Command, ctx: Context) -> None:
        """A shell or interpreter reading its code from stdin, a file or a string."""
        name = command.name or ""
        reads = programs.code_source(name, command.args)
        if reads is None:
            return
        if reads == "stdin":
            if ctx.stdin == "pipe":
                self.unknown.append(f"data is piped into `{name}`, which runs it as code")
            elif ctx.stdin == "file":
                self.unknown.append(f"a file is fed to `{name}` on stdin, which runs it as code")
            elif ctx.stdin is None:
                self.unknown.append(f"`{name}` runs a here-document with expansions in it")
            elif ctx.stdin and programs.is_shell(name):
                via = (*ctx.via, f"{name} <<")
                self.read_line(ctx.stdin, Context(via=via, depth=ctx.depth + 1))
        elif reads == "unknown":
            self.unknown.append(f"`{name}` runs code that is not known before it runs")

    def change_directory(self, command: Command) -> None:
        if command.name not in ("cd", "pushd") or command.wrapper:
            return
        targets = [a for a in command.args if a.value is None or not a.value.startswith("-")]
        if not targets:
            self.cwd = "~"
            return
        target = targets[0]
        if target.value is None or target.value == "-" or target.glob:
            self.cwd = None
        elif target.value.startswith(("/", "~")):
            self.cwd = target.value
        elif self.cwd is not None:
            self.cwd = posixpath.join(self.cwd, target.value) if self.cwd else target.value


def _stdin(redirect: Redirect, text: str | None, before: str | None) -> str | None:
    """What a command reads on stdin after ``redirect``."""
    if redirect.op in ("<<", "<<-", "<<<"):
        return text
    if redirect.op in ("<", "<>") and redirect.fd in ("", "0"):
        return "file"
    return before


def _with_more_args(command: Command) -> Command:
    return command if command.wrapper else replace(command, more_args=True)


def _assigned_names(node: Node, source: bytes) -> list[str]:
    if node.type == "variable_assignment":
        names = node.children_by_field_name("name")
        return [node_text(names[0], source)] if names else []
    if node.type == "unset_command":
        return []
    found: list[str] = []
    for child in node.named_children:
        if child.type == "variable_assignment":
            found.extend(_assigned_names(child, source))
    return found


def _function_names(root: Node, source: bytes) -> set[str]:
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            for name in node.children_by_field_name("name"):
                names.add(node_text(name, source))
        stack.extend(node.named_children)
    return names


def _heredoc_text(node: Node, source: bytes) -> str | None:
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


def _error_near(root: Node, source: bytes) -> str:
    """Where the first parse error is, in a few characters of the line."""
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if node.type == "ERROR" or node.is_missing:
            snippet = source[node.start_byte : node.start_byte + 30].decode(errors="replace")
            return f"near `{snippet.strip() or 'the end of the line'}`"
        queue.extend(node.children)
    return "unbalanced quotes or brackets"
