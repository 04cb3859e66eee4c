"""The walk over a parsed Bash line that finds every command it will run.

``Reader.read_line`` parses a line and walks its tree: a ``command`` node becomes a ``Command``
(words read by ``words``, wrappers and code strings by ``programs``), pipelines and redirects set
what each command reads on stdin, substitutions are walked wherever they stand, and code strings
are read again, one level deeper. What cannot be known is added to ``unknown``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from hookline._support.words import words
from hookline.permissions.bash import _builtins, _heredocs, _nodes, _programs, _subset
from hookline.permissions.bash._code_source import code_source
from hookline.permissions.bash._grammar import PARSE_BUDGET, parse
from hookline.permissions.bash._parts import Command, Context, Redirect
from hookline.permissions.bash._words import MAX_EXPANSIONS, Word, brace_expand, node_text, word_of

if TYPE_CHECKING:
    from tree_sitter import Node

#: Lines longer than this are not parsed: they cannot be known.
MAX_LENGTH = 100_000
#: Code strings inside code strings (``bash -c "sh -c '...'"``) are read this deep.
MAX_DEPTH = 6
#: Wrappers around one command (``sudo env nice ...``) read before the line counts as unknown.
MAX_WRAPPERS = 32

_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
#: Nodes whose commands run in a subshell of their own: a `cd` in them ends with them.
_SCOPES = frozenset({*_SUBSTITUTIONS, "subshell"})
_REDIRECTS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
#: Nodes that hold no command: the walk does not go into them.
_SKIP = words(
    "comment heredoc_start heredoc_end word number raw_string ansi_c_string string_content "
    "heredoc_content variable_name special_variable_name file_descriptor test_operator"
)


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
    #: A top-level `cd` moved ``cwd``, and nothing yet proves it succeeded past this statement.
    cd_pending: bool = False
    #: An `exec` without a command gave the shell a stdin of the line's own.
    stdin_moved: bool = False
    #: An `alias` defined something: a later `cd` may be one.
    aliases: bool = False

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
                self.unknown.append(f"it does not parse as Bash: {_nodes.error_near(root, source)}")
            elif b"<<" in source and (why := _heredocs.reason(root, source)):
                self.unknown.append(why)
            if "(" in line or "function" in line:  # else no function can be defined
                self.functions |= _nodes.function_names(root, source)
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
        elif kind == "list":
            self.chain(node, ctx)
        elif kind == "program":
            self.program(node, ctx)
        elif kind in _SCOPES:
            self.scope(node, ctx)
        elif kind == "function_definition":
            names = node.children_by_field_name("name")
            label = node_text(names[0], self.sources[-1]) if names else ""
            body = Context(ctx.redirects, ctx.stdin, (*ctx.via, label), ctx.depth)
            self.later(lambda: self.children(node, body))
        elif kind in ("variable_assignment", "declaration_command", "unset_command"):
            self.assignment(node, ctx)
        elif kind == "test_command":
            self.test(node, ctx)
        elif kind == "ERROR":  # already said: it does not parse; its commands still count
            self.children(node, ctx)
        elif why := _subset.node_reason(node, self.sources[-1]):
            self.unknown.append(why)
            self.substitutions_in(node, ctx)
        elif kind in _subset.EXPANSIONS:
            return  # a plain one: nothing inside it runs
        else:
            self.children(node, Context(ctx.redirects, ctx.stdin, ctx.via, ctx.depth))

    def program(self, node: Node, ctx: Context) -> None:
        """Statements one after another: a `cd` of one is not proved for the next (it may
        have failed, and Bash goes on in the folder it was in)."""
        children = node.children
        for index, child in enumerate(children):
            if not child.is_named or child.type in _SKIP:
                continue
            following = children[index + 1].type if index + 1 < len(children) else ""
            self.walk(child, _at(ctx, top=ctx.top and following != "&"))
            if self.cd_pending:
                self.cwd, self.cd_pending = None, False

    def chain(self, node: Node, ctx: Context) -> None:
        """``a && b`` runs b only when a succeeded (a `cd` in a holds for b); ``a || b`` runs b
        only when a failed (a `cd` in a is not proved for b)."""
        parts = node.named_children
        op = next((c.type for c in node.children if not c.is_named), "")
        if not parts:
            return
        self.walk(parts[0], ctx)
        if op == "||" and self.cd_pending:
            self.cwd, self.cd_pending = None, False
        for part in parts[1:]:
            self.walk(part, _at(ctx, top=False))

    def scope(self, node: Node, ctx: Context) -> None:
        """A subshell or substitution: its `cd` ends with it."""
        substitution = node.type in _SUBSTITUTIONS
        self.substitutions += substitution
        # tree-sitter reads `$((x))` in a here-document, and `time ((x))`, as commands
        if node_text(node, self.sources[-1]).startswith("$((" if substitution else "(("):
            self.unknown.append("`((...))` is arithmetic, which Bash evaluates as code")
        inner = Context(via=ctx.via, depth=ctx.depth) if substitution else _at(ctx, top=False)
        cwd, pending = self.cwd, self.cd_pending
        self.children(node, inner)
        self.cwd, self.cd_pending = cwd, pending

    def later(self, read: Callable[[], None]) -> None:
        """Read code that runs later, in whatever folder the shell is in then (a function's
        body, a trap's code): its folder is unknown, and a `cd` in it leaves the rest unknown."""
        start, cwd = len(self.commands), self.cwd
        self.cwd = None
        read()
        moved = any(c.name in ("cd", "pushd", "popd") for c in self.commands[start:])
        self.cwd = None if moved else cwd

    def substitutions_in(self, node: Node, ctx: Context) -> None:
        """The substitutions inside a construct outside the subset: what they run still counts."""
        for child in node.named_children:
            if child.type in _SCOPES:
                self.walk(child, ctx)
            elif child.named_child_count:
                self.substitutions_in(child, ctx)

    def test(self, node: Node, ctx: Context) -> None:
        """``[[ ... ]]`` or ``[ ... ]``: each condition checked, its words read."""
        double = bool(node.children) and node.children[0].type == "[["
        inner = _at(ctx, top=False)
        stack = list(reversed(node.named_children))
        while stack:
            part = stack.pop()
            if part.type not in _subset.EXPRESSIONS:
                if part.type not in _SKIP:
                    self.walk(part, inner)
                continue
            if why := _subset.test_reason(part, self.sources[-1], double=double):
                self.unknown.append(why)
                self.substitutions_in(part, inner)
                continue
            stack.extend(reversed(part.named_children))

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
            stdin = _nodes.stdin(redirect, text, stdin)
            for nested in _after_heredoc(child):  # `cat <<EOF > file`: the write is nested
                redirects.append(self.redirect(nested, ctx)[0])
        inner = Context(tuple(redirects), stdin, ctx.via, ctx.depth, ctx.top)
        bodies = node.children_by_field_name("body")
        before = len(self.commands)
        for body in bodies:
            self.walk(body, inner)
        own = redirects[len(ctx.redirects) :]
        added = self.commands[before:]
        if not any(all(r in c.redirects for r in own) for c in added):
            # `> file` alone, or on what makes no command (`[ ]`, `declare`, `unset`): Bash
            # still opens the file, as `: > file` does
            self.commands.append(Command(":", (), inner.redirects, ctx.via, cwd=self.cwd))

    def redirect(self, node: Node, ctx: Context) -> tuple[Redirect, str | None]:
        """The redirect, and the text it feeds as stdin (None if not literal)."""
        fd = next(
            (node_text(c, self.sources[-1]) for c in node.children if c.type == "file_descriptor"),
            "",
        )
        op = next(c.type for c in node.children if not c.is_named)
        for child in node.named_children:  # substitutions in targets; `| sh` after a heredoc
            if child in _after_heredoc(node):
                continue  # read as a redirect of its own (``redirected``)
            if child.type in ("pipeline", "command", "list", "redirected_statement"):
                self.walk(child, Context(via=ctx.via, depth=ctx.depth, stdin="pipe"))
            elif child.type not in ("file_descriptor", "heredoc_start", "heredoc_end"):
                self.walk(child, Context(via=ctx.via, depth=ctx.depth))
        if node.type == "heredoc_redirect":
            return Redirect(op, None, fd), _nodes.heredoc_text(node, self.sources[-1])
        targets = node.children_by_field_name("destination") or [
            c for c in node.named_children if c.type not in ("file_descriptor",)
        ]
        target = word_of(targets[-1], self.sources[-1]) if targets else None
        if why := _subset.duplication_reason(op, target):
            self.unknown.append(why)
        text = target.value if node.type == "herestring_redirect" and target else None
        return Redirect(op, target, fd), (None if text is None else text + "\n")

    def assignment(self, node: Node, ctx: Context) -> None:
        plain = node.type == "variable_assignment"
        reason = _subset.assignment_reason if plain else _builtins.declaration_reason
        if why := reason(node, self.sources[-1]):
            self.unknown.append(why)
        for name in _nodes.assigned_names(node, self.sources[-1]):
            if _programs.changes_what_runs(name):
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
            if field_name == "argument" and _nodes.descriptor_number(child, self.sources[-1]):
                continue  # `0<f`: tree-sitter reads the 0 as a word
            if field_name in ("name", "argument"):
                word = child.named_children[0] if kind == "command_name" else child
                if why := _subset.descriptor_reason(word, self.sources[-1]):
                    self.unknown.append(why)
                words.extend(self.words(word))
                if word.type not in _SKIP:
                    self.walk(word, inside)
            elif kind in _REDIRECTS:
                redirect, text = self.redirect(child, ctx)
                redirects.append(redirect)
                stdin = _nodes.stdin(redirect, text, stdin)
            elif kind == "variable_assignment":
                env.extend(_nodes.assigned_names(child, self.sources[-1]))
                self.assignment(child, ctx)
            elif child.is_named and kind not in _SKIP:
                self.walk(child, inside)
        if words:
            start = len(self.commands)
            self.run(words, Context(tuple(redirects), stdin, ctx.via, ctx.depth, ctx.top))
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
        found = self.builtin(name, args) if not path else _programs.unwrap(name, args)
        if found.unknown:
            self.unknown.append(found.unknown)
        command = Command(
            name, args, ctx.redirects, ctx.via, found.wrapper, found.transparent, where, path
        )
        self.commands.append(command)
        self.stdin_moved |= name == "exec" and not found.inner and _nodes.reads_stdin(command)
        self.aliases |= name == "alias" and bool(args)
        if not found.wrapper:
            self.stdin_code(command, ctx)
            self.change_directory(command, top=ctx.top)
        via = (*ctx.via, found.label or name)
        if found.code is not None:
            code = Context(via=via, depth=ctx.depth + 1)
            if name == "trap":
                self.later(lambda: self.read_line(found.code or "", code))
            else:
                self.read_line(found.code, code)
        inner_ctx = Context(ctx.redirects, ctx.stdin, via, ctx.depth)
        for inner in found.inner:
            start = len(self.commands)
            self.run(list(inner), inner_ctx, found.cwd if found.cwd is not None else where)
            if found.more_args:
                self.commands[start:] = [_nodes.with_more_args(c) for c in self.commands[start:]]

    def stdin_code(self, command: Command, ctx: Context) -> None:
        """A shell or interpreter reading its code from stdin, a file or a string."""
        name = command.name or ""
        reads = code_source(name, command.args)
        if reads is None:
            return
        if reads == "stdin":
            if ctx.stdin == "" and self.stdin_moved:
                self.unknown.append(f"`exec` gave the shell a stdin that `{name}` runs as code")
            elif ctx.stdin == "pipe":
                self.unknown.append(f"data is piped into `{name}`, which runs it as code")
            elif ctx.stdin == "file":
                self.unknown.append(f"a file is fed to `{name}` on stdin, which runs it as code")
            elif ctx.stdin is None:
                self.unknown.append(f"`{name}` runs a here-document with expansions in it")
            elif ctx.stdin and (_programs.is_shell(name) or name in ("source", ".")):
                via = (*ctx.via, f"{name} <<")
                self.read_line(ctx.stdin, Context(via=via, depth=ctx.depth + 1))
            elif ctx.stdin:
                self.unknown.append(f"`{name}` runs code from stdin that hookline cannot read")
        elif reads == "unknown":
            self.unknown.append(f"`{name}` runs code that is not known before it runs")

    def builtin(self, name: str, args: tuple[Word, ...]) -> _programs.Found:
        """What a command runs besides itself, and whether a builtin is in the known _subset."""
        if why := _builtins.reason(name, args):
            self.unknown.append(why)
        if name not in ("eval", "trap"):
            return _programs.unwrap(name, args)
        code, why = _builtins.code(name, args)
        return _programs.Found(code=code, label=name, wrapper=code is not None, unknown=why)

    def change_directory(self, command: Command, *, top: bool) -> None:
        """A `cd` at the top level with a literal target moves the folder; any other `cd`,
        `pushd` or `popd` leaves it unknown for the rest of the line (or of its subshell)."""
        if command.name in ("cd", "pushd", "popd") and not command.wrapper:
            own = top and "cd" not in self.functions and not self.aliases  # the builtin's
            target = _nodes.cd_target(command) if own else None
            if target is None or target.startswith(("/", "~")) or self.cwd is None:
                self.cwd = target
            else:
                self.cwd = posixpath.join(self.cwd, target) if self.cwd else target
            self.cd_pending = self.cd_pending or top


def _at(ctx: Context, *, top: bool) -> Context:
    """``ctx``, run at the top level or not."""
    return ctx if ctx.top == top else Context(ctx.redirects, ctx.stdin, ctx.via, ctx.depth, top)


def _after_heredoc(node: Node) -> list[Node]:
    """The redirects tree-sitter nests in a here-document's (``<<EOF > file``)."""
    if node.type != "heredoc_redirect":
        return []
    return [c for c in node.named_children if c.type in ("file_redirect", "herestring_redirect")]
