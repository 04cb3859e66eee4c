"""What the analysis of a Bash line finds: commands, their redirects, and what cannot be known."""

from __future__ import annotations

from dataclasses import dataclass

from hookline.permissions.bash._words import Word

_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&", "&>|"})


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection: its operator, its target (None for a here-document) and its fd."""

    op: str
    target: Word | None = None
    fd: str = ""

    @property
    def writes(self) -> bool:
        """Whether it writes a file (``2>&1`` and ``>&-`` only duplicate or close fds)."""
        if self.op not in _WRITES or self.target is None:
            return False
        value = self.target.value
        return not (
            self.op in (">&", "<&") and value is not None and (value.isdigit() or value == "-")
        )


@dataclass(frozen=True, slots=True)
class Command:
    """One command that will run, as Bash runs it."""

    #: The program or builtin, normalised (``"rm"`` for ``/bin/rm``); None when unknowable.
    name: str | None
    args: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    #: The wrappers, shells and functions it runs under, outermost first (``("sudo",
    #: "bash -c")``). A call of a function the line defines is listed too, as a command.
    via: tuple[str, ...] = ()
    #: A wrapper: what it runs is the next command in ``Analysis.commands``.
    wrapper: bool = False
    #: A wrapper that only changes how the next command runs (``timeout``, ``nice``): allow
    #: rules and the read-only tier look through it.
    transparent: bool = False
    #: The folder it runs in, relative to the session's: ``""`` for the session's own, a path
    #: after a literal ``cd``, None when a ``cd`` went somewhere unknowable.
    cwd: str | None = ""
    #: The name as written when it named a file (``/usr/bin/rm``, ``./run.sh``).
    path: str = ""
    #: More arguments arrive at run time (``xargs``, ``find -exec ... {} +``).
    more_args: bool = False
    #: Variables assigned for it alone (``NODE_ENV=test npm test``).
    env: tuple[str, ...] = ()

    @property
    def words(self) -> tuple[str | None, ...]:
        return (self.name, *(arg.value for arg in self.args))

    @property
    def text(self) -> str:
        """Name and arguments on one line; a word unknown until run time shows as ``\\0``."""
        return " ".join("\0" if w is None else w for w in self.words)

    @property
    def written(self) -> str:
        """``text`` with the program as written: ``./echo hi`` is not the builtin ``echo``."""
        return self.path + self.text[len(self.name or "") :] if self.path else self.text

    @property
    def writes(self) -> tuple[Redirect, ...]:
        return tuple(r for r in self.redirects if r.writes)


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every command a line will run, and why what runs cannot be known (empty if it can)."""

    commands: tuple[Command, ...]
    unknown: tuple[str, ...] = ()
    #: How many ``$(...)``, backticks, ``<(...)`` and ``>(...)`` the line holds.
    substitutions: int = 0
    #: Functions of the line that call themselves (``:(){ :|:& };:``, a fork bomb).
    recursive: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return not self.unknown


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
    #: It runs unconditionally in the line's own shell (not in a subshell, function, loop,
    #: branch, background job or the right side of `&&`/`||`): a `cd` there moves the folder.
    top: bool = False
