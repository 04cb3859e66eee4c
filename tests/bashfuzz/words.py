"""Bash words for the fuzzer: every quoting and expansion form, over the workspace's names.

A word is a path of the jail's workspace (``build_template``'s files, links and folders,
and some that do not exist) or a plain value, spelled with one of Bash's quotings (``'...'``,
``"..."``, ``$'...'``, ``$"..."``, backslashes) or replaced by an expansion: ``$NAME``,
``${NAME}``, ``${NAME:-x}``, ``${#x}``, ``${x@P}``, ``${!x}``, ``${x:$y}``, subscripts,
``$((...))``, ``$(...)``, backticks, ``<(...)``, globs, braces and tildes. ``PAYLOADS`` are
values that are code when Bash evaluates them as arithmetic, a subscript or a prompt: each runs
``touch pwned`` (a program no read-only line lists, writing a file no read-only line may).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

PATHS = ("a.txt", "b.md", "sub", "sub/c.txt", "sub/deep", "sub/deep/d.txt", "nums.txt",
         "data.json", ".hidden", "lnk", "dirlink", "dirlink/c.txt", "gitlink", "gitlink/config",
         "link_out", "link_out/o.txt", "homelink/h.txt", ".git", ".git/config", ".git/HEAD",
         ".git/hooks/pre-commit", ".claude/settings.json", ".hookline/x", "nope", "nope/x",
         "../outside/o.txt", "..", ".", "/etc/hostname", "/dev/null", "sp ace.txt",
         "new.txt", "sub/new", "-")  # fmt: skip
VALUES = ("x", "hello", "1", "0", "-1", "alpha", "%s", "%s\\n", "a b", "HEAD", "main", "v1",
          "*", "=", ":", "-n", "--", "")  # fmt: skip
NAMES = ("x", "y", "i", "a", "f", "HOME", "PWD", "OLDPWD", "IFS", "PATH", "PS4", "BASH_ENV",
         "CDPATH", "LC_ALL", "TZ", "GIT_DIR", "GIT_PAGER", "PAGER")  # fmt: skip
PAYLOADS = ("a[$(touch pwned)]", "$(touch pwned)", "`touch pwned`", "c[`touch pwned`]",
            "1+a[$(touch pwned)]", "b[$(touch pwned)]+1", "a[$(touch pwned)]=1",
            "\\$(touch pwned)")  # fmt: skip
GLOBS = ("*", "*.txt", "s?b", "[ab].txt", "sub/*", ".*", "*/", "**", "?", "*.md", "sub/*/*",
         "g*", ".g*", ".c*/*", "[!a]*")  # fmt: skip
TILDES = ("~", "~/h.txt", "~+", "~+/a.txt", "~-", "~-/x", "~+/../outside", "~root", "~/",
          "~nobody/x", "~/../outside/o.txt")  # fmt: skip
BRACES = ("{a,b}.txt", "{1..3}", "sub/{c,x}.txt", "{a..c}", "x{,y}", "{.git,sub}/config",
          "{a.txt,nope}", "{1..2..1}")  # fmt: skip
SUBSTITUTIONS = ("$(echo a.txt)", "`echo a.txt`", "$(<a.txt)", "$(touch pwned)",
                 "<(cat a.txt)", ">(cat)", "$(ls)", '"$(pwd)"')  # fmt: skip
SPECIAL = ("$1", "$@", "$*", "$#", "$?", "$$", "$!", "$_", "$-", "$0", '"$@"')


@cache
def _index(size: int) -> st.SearchStrategy[int]:
    return st.integers(0, size - 1)


def pick(draw: st.DrawFn, choices: Sequence[T]) -> T:
    """One of ``choices`` (repeat an entry to weight it): one draw, no strategy built."""
    return choices[draw(_index(len(choices)))]


def quote(draw: st.DrawFn, text: str) -> str:
    """``text`` as Bash would read it back, in one of its quotings."""
    plain = bool(text) and text.replace("/", "").replace(".", "").replace("_", "").replace(
        "-", "").isalnum()  # fmt: skip
    form = pick(draw, ("plain", "plain", "plain", "single", "double", "ansi", "escaped",
                       "locale") if plain else ("single", "double", "ansi", "escaped"))  # fmt: skip
    if form == "plain":
        return text
    if form == "single":
        return single(text)
    if form == "double":
        return '"' + "".join("\\" + c if c in '"\\$`' else c for c in text) + '"'
    if form == "ansi":
        return "$'" + "".join(f"\\x{ord(c):02x}" if c in "'\\" or not c.isprintable() else c
                              for c in text) + "'"  # fmt: skip
    if form == "locale":
        return '$"' + text + '"'
    return "".join("\\" + c if not c.isalnum() and c not in "./_-" else c for c in text) or "''"


def single(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_EXPANSIONS = ("$N", "${N}", '"$N"', "${N:-a.txt}", "${#N}", "${N@P}", "${!N}", "${N:1}",
               "${N:$M}", "${N:$((M))}", "${N[0]}", "${a[N]}", "${a[$N]}", "${N[@]}", "$((N))",
               "$((N+1))", "$((a[N]))", "${N@Q}", "${N/a/b}", "${N:=M}", "${#N[@]}", "${N^^}",
               "${!N@}", '"${N@P}"', "$((1+2))", "$[1+1]", "${N:-$M}", '"${N}"')  # fmt: skip
_EXPANSIONS = tuple(f.replace("N", "\x01").replace("M", "\x02") for f in _EXPANSIONS)


def expansion(draw: st.DrawFn) -> str:
    """A parameter or arithmetic expansion, as it may stand in a word."""
    form = pick(draw, _EXPANSIONS)
    return form.replace("\x01", pick(draw, NAMES)).replace("\x02", pick(draw, NAMES))


_WORD_KINDS = ("path",) * 12 + ("value",) * 4 + ("expansion", "glob", "tilde", "brace",
               "special", "joined", "substitution")  # fmt: skip
_TABLE = {"glob": GLOBS, "tilde": TILDES, "brace": BRACES, "substitution": SUBSTITUTIONS,
          "special": SPECIAL}  # fmt: skip


def word(draw: st.DrawFn, *, paths: bool = True) -> str:
    """One argument word: mostly a quoted path or value, sometimes an expansion."""
    kind = pick(draw, _WORD_KINDS)
    if kind == "path" and paths:
        return quote(draw, pick(draw, PATHS))
    if kind in ("path", "value"):
        return quote(draw, pick(draw, VALUES))
    if kind == "expansion":
        return expansion(draw)
    if kind == "joined":  # a concatenation of two parts
        return word(draw, paths=paths) + pick(draw, ("", "/x", "'b'", "$x", "*"))
    return pick(draw, _TABLE[kind])


def value(draw: st.DrawFn) -> str:
    """The right side of an assignment: a word, a payload (quoted so it stays text), an array."""
    kind = pick(draw, ("word", "word", "payload", "payload", "array", "empty"))
    if kind == "payload":
        return quote(draw, pick(draw, PAYLOADS))
    if kind == "array":
        count = pick(draw, (0, 1, 2, 3))
        items = [word(draw) if pick(draw, (0, 1)) else single(pick(draw, PAYLOADS))
                 for _ in range(count)]  # fmt: skip
        return "(" + " ".join(items) + ")"
    return "" if kind == "empty" else word(draw)


def assignment(draw: st.DrawFn) -> str:
    """``NAME=VALUE``, ``NAME+=VALUE``, ``a[SUB]=VALUE``."""
    name = pick(draw, NAMES)
    subscript = pick(draw, ("0", "i", "$i", "x", single("$(touch pwned)")))
    target = pick(draw, (name, name, name, f"a[{subscript}]"))
    rhs = value(draw)
    if rhs.startswith("(") and target.startswith("a["):
        rhs = "v"
    return f"{target}{pick(draw, ('=', '=', '+='))}{rhs}"
