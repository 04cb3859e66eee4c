"""Bash lines read as Bash reads them: every command that will run, and what cannot be known.

``analyze(line)`` parses the line with tree-sitter's Bash grammar and finds every command in it:
in lists, pipelines, subshells, groups, ``if``/``while``/``until``/``for``/``case``, function
bodies, and inside ``$(...)``, backticks and ``<(...)`` wherever they stand (arguments,
assignments, redirect targets, here-strings, here-document bodies). Each command's name is
normalised as Bash would run it (quotes and backslashes removed, braces expanded, ``/usr/bin/x``
and ``./x`` read as ``x``); wrappers (``env``, ``sudo``, ``timeout``, ``xargs``, ``find -exec``,
...) are unwrapped into the commands they run (``hookline.permissions.bash._programs``, and the
launchers of ``hookline.permissions.bash._launchers``: ``runuser``, ``uv run``, ..., and the
containers of ``hookline.permissions.bash._containers``: ``docker exec``, ``kubectl exec``),
and code strings (``bash -c``, ``eval``, a here-document fed to a shell,
``git ls-remote --upload-pack``, ``ssh HOST CMD``: ``hookline.permissions.bash._runners``) are
parsed in turn; inline code of another language (``python3 -c``) cannot be known.
``hookline.permissions.bash._git`` splits a git command as git does (global options, subcommand,
its words).

What cannot be known statically is said, not guessed: a variable or substitution as a command
name, ``eval`` of a non-literal, data piped into a shell or interpreter, an assignment to
``PATH`` or ``LD_PRELOAD``, a line that does not parse. ``Analysis.unknown`` lists why; the
permission layer treats such a line as matching every deny rule and no allow rule.

Nothing is run or expanded against the environment: ``$HOME`` is read as ``~``, other
variables as unknown words. Results are cached per line.

``Options`` and ``read_options(words, spec)`` read one command's options as the program would
(short clusters, values, long-name prefixes, ``--``), for a hook that judges a command itself.
"""

from __future__ import annotations

from functools import lru_cache

from hookline.permissions.bash._options import Options
from hookline.permissions.bash._options import read as read_options
from hookline.permissions.bash._parts import Analysis, Command, Context, Redirect
from hookline.permissions.bash._reader import Reader
from hookline.permissions.bash._words import Word

__all__ = ["Analysis", "Command", "Options", "Redirect", "Word", "analyze", "read_options"]


@lru_cache(maxsize=2048)
def analyze(line: str) -> Analysis:
    """Every command ``line`` will run; cached, as a policy asks about the same line often."""
    reader = Reader()
    try:
        reader.read_line(line, Context(top=True))
        if "\\\n" in line:  # a continuation inside a word (`tou\⏎ch`): read it joined too
            reader.cwd, reader.cd_pending = "", False
            reader.read_line(line.replace("\\\n", ""), Context(top=True))
    except RecursionError:
        reader.unknown.append("it nests too deep to read")
    unknown = tuple(dict.fromkeys(reader.unknown))
    recursive = tuple(sorted(reader.recursive))
    return Analysis(tuple(reader.commands), unknown, reader.substitutions, recursive)
