"""The builtins of the known subset: which Bash builtins the analyser accepts, and how.

``reason(name, args)`` says why a builtin call is outside the subset (None when inside).
Builtins that take a variable's name (``read``, ``printf -v``, ``mapfile``, ``getopts``,
``wait -p``, ``test -v``, ``declare`` and its kin, ``unset``) accept only a plain literal name
that does not change what later commands run: Bash evaluates a subscript in a name as code
(``printf -v 'a[$(touch f)]' x``). Builtins that run code (``eval``, ``trap``) have it read as
a code string by ``code``; the rest that run code or change what a name runs (``let``, ``hash
-p``, ``enable -f``, ``bind``, ``compgen``, ``complete``, ``fc``, ``set -x``) are outside.
Programs that are not builtins are judged elsewhere (``programs`` and the read-only tables).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

import hookline.permissions.bash._programs as programs
from hookline._support.words import words
from hookline.permissions.bash._subset import ARITHMETIC_VARIABLES
from hookline.permissions.bash._words import Word, node_text

if TYPE_CHECKING:
    from tree_sitter import Node

Check = Callable[[Sequence[Word]], str | None]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STDIN = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
#: ``set`` options that change nothing about what runs (not ``-x``, which expands PS4, nor
#: ``-k``, which turns every ``NAME=value`` argument into an assignment for the command).
_SET_FLAGS = frozenset("abefhmnpuvBCEHPT")
_SET_NAMES = words(
    "allexport braceexpand emacs errexit errtrace functrace hashall histexpand history ignoreeof "
    "interactive-comments monitor noclobber noexec noglob nolog notify nounset physical pipefail "
    "posix privileged verbose vi"
)
#: ``declare``-like flags that keep values plain (not ``-i``: integer, nor ``-n``: a name
#: reference, both of which evaluate what is later assigned).
DECLARE_FLAGS: Final = {
    "declare": frozenset("aAfFgplrtux"),
    "typeset": frozenset("aAfFgplrtux"),
    "local": frozenset("aAlrtux"),
    "export": frozenset("fnp"),
    "readonly": frozenset("aAfp"),
}


def name_reason(word: Word, builtin: str, *, sets: bool = True) -> str | None:
    """Why ``word``, given to ``builtin`` as a variable's name (that it ``sets``), is outside
    the subset."""
    value = word.value
    if value is None or not _IDENTIFIER.fullmatch(value):
        return f"`{builtin}` takes a variable name, and `{word.raw}` is not a plain one"
    if sets and value in ARITHMETIC_VARIABLES:
        return f"`{builtin}` sets {value}, which Bash evaluates as arithmetic"
    if sets and programs.changes_what_runs(value):
        return f"`{builtin}` sets {value}, which changes what the next commands run"
    return None


def flags_reason(name: str, flag: str, allowed: frozenset[str]) -> str | None:
    bad = [c for c in flag.lstrip("-+") if c not in allowed]
    return f"`{name} {flag}` is outside the known subset" if bad or flag in ("-", "+") else None


def declaration_reason(node: Node, source: bytes) -> str | None:
    """Why a ``declare``/``typeset``/``local``/``export``/``readonly`` or ``unset`` node is
    outside the subset: a flag that makes later values code, or a name that is not plain."""
    keyword = node_text(node.children[0], source) if node.children else ""
    allowed = DECLARE_FLAGS.get(keyword, frozenset("fvn"))
    for child in node.named_children:
        text = node_text(child, source)
        if child.type == "word" and text.startswith(("-", "+")):
            why = flags_reason(keyword, text, allowed)
        elif child.type in ("variable_name", "word"):
            why = name_reason(Word(text, raw=text), keyword) if child.type == "word" else None
        elif child.type == "variable_assignment":
            why = None  # its name and value are read as an assignment
        else:
            why = f"`{keyword}` takes a variable name, and `{text}` is not a plain one"
        if why:
            return why
    return None


def reason(name: str, args: Sequence[Word]) -> str | None:
    """Why the builtin ``name`` with ``args`` is outside the subset; None if it is inside or
    ``name`` is no builtin."""
    check = BUILTINS.get(name, _ACCEPTED)
    if check is None:
        return None
    if isinstance(check, str):
        return f"`{name}` {check}"
    return check(args)


def code(name: str, args: Sequence[Word]) -> tuple[str | None, str]:
    """The code ``eval`` or ``trap`` runs: (code, "") when it is literal, (None, why) when not,
    (None, "") when it runs none (``trap -p``, ``trap - INT``)."""
    words = list(args)
    if name == "trap":
        if words and words[0].value in ("-l", "-p", "-lp", "-pl"):
            return None, ""
        if words and words[0].value == "--":
            words.pop(0)
        if len(words) < 2 or words[0].value == "-":
            return None, ""  # reset or list: no code of its own
        words = words[:1]
    elif words and words[0].value == "--":
        words.pop(0)
    values = [w.value for w in words]
    if any(v is None for v in values):
        return None, f"`{name}` runs a string only run time knows"
    text = " ".join(v for v in values if v is not None)
    if name == "eval" and text.startswith("-"):
        return None, f"`eval {text.split()[0]}` is outside the known subset"
    return (text, "") if text.strip() else (None, "")


def _options(args: Sequence[Word], valued: str) -> tuple[list[tuple[str, Word | None]], list[Word]]:
    """Short options (each with its value when it takes one) and the operands after them."""
    found: list[tuple[str, Word | None]] = []
    words = list(args)
    while words and (words[0].value or "").startswith("-") and words[0].value != "-":
        flag = words.pop(0).value or ""
        if flag == "--":
            break
        for index, letter in enumerate(flag[1:], start=1):
            if letter in valued:
                rest = flag[index + 1 :]
                found.append(
                    (letter, Word(rest, raw=rest) if rest else (words.pop(0) if words else None))
                )
                break
            found.append((letter, None))
    return found, words


def _names(builtin: str, words: Sequence[Word | None]) -> str | None:
    for word in words:
        why = name_reason(word, builtin) if word is not None else f"`{builtin}` lacks a name"
        if why:
            return why
    return None


def _read(args: Sequence[Word]) -> str | None:
    options, names = _options(args, "adinNptu")
    return _names("read", [*(v for o, v in options if o == "a"), *names])


def _printf(args: Sequence[Word]) -> str | None:
    options, _ = _options(args, "v")
    return _names("printf -v", [v for o, v in options if o == "v"])


def _mapfile(args: Sequence[Word]) -> str | None:
    options, names = _options(args, "dnOsuCc")
    if any(o == "C" for o, _ in options):
        return "`mapfile -C` runs a callback as code"
    return _names("mapfile", names[:1])


def _getopts(args: Sequence[Word]) -> str | None:
    return _names("getopts", list(args[1:2]))


def _wait(args: Sequence[Word]) -> str | None:
    options, _ = _options(args, "p")
    return _names("wait -p", [v for o, v in options if o == "p"])


def _test(args: Sequence[Word]) -> str | None:
    values = [a.value for a in args]
    for index, value in enumerate(values):
        if value in ("-v", "-R") and index + 1 < len(args):
            why = name_reason(args[index + 1], f"test {value}", sets=False)
            if why:
                return why
    return None


def _set(args: Sequence[Word]) -> str | None:
    words = list(args)
    while words:
        flag = words.pop(0).value
        if flag is None:
            return "`set` has an option only known at run time"
        if flag in ("--", "-"):
            return None
        if not flag.startswith(("-", "+")):
            return None  # positional parameters from here on
        if "o" in flag:  # `-euo pipefail`: the option's name is the next word
            option = words.pop(0).value if words else ""
            if flag.startswith("-") and option and option not in _SET_NAMES:
                return f"`set -o {option}` is outside the known subset"
            flag = flag.replace("o", "")
        if flag.startswith("+") or flag == "-":
            continue  # turning an option off
        why = flags_reason("set", flag, _SET_FLAGS)
        if why:
            return why
    return None


def _source(args: Sequence[Word]) -> str | None:
    """``source FILE`` runs a file, judged as ``source``; a descriptor other than stdin (read
    as code by the reader) holds code from the line or a pipe, which is not known."""
    target = args[0].value if args else None
    if target and target.startswith(("/dev/", "/proc/")) and target not in _STDIN:
        return f"`source {target}` reads code from a descriptor, not known before it runs"
    return None


def _declaring(keyword: str) -> Check:
    """``declare`` and its kin reached as words (``builtin declare ...``), not as their node."""
    allowed = DECLARE_FLAGS.get(keyword, frozenset("fvn"))

    def check(args: Sequence[Word]) -> str | None:
        for word in args:
            value = word.value or ""
            if value.startswith(("-", "+")):
                why = flags_reason(keyword, value, allowed)
            else:
                name, equals, rest = value.partition("=")
                why = name_reason(
                    Word(name if word.value is not None else None, raw=word.raw), keyword
                )
                if not why and equals and name in ARITHMETIC_VARIABLES and not rest.isdigit():
                    why = f"`{name}=` is evaluated as arithmetic, which Bash evaluates as code"
            if why:
                return why
        return None

    return check


def _jobs(args: Sequence[Word]) -> str | None:
    options, _ = _options(args, "")
    return "`jobs -x` runs a command" if any(o == "x" for o, _ in options) else None


def _hash(args: Sequence[Word]) -> str | None:
    options, _ = _options(args, "pd")
    if any(o == "p" for o, _ in options):
        return "`hash -p` makes a name run another program"
    return None


def _listing_only(name: str, flags: str) -> Check:
    def check(args: Sequence[Word]) -> str | None:
        if all(
            a.value is not None and a.value.startswith("-") and not a.value.strip("-" + flags)
            for a in args
        ):
            return None
        return f"`{name}` with arguments is outside the known subset"

    return check


#: Builtins any call of which is inside the subset.
_ANY_CALL = words(
    ": true false echo pwd cd pushd popd dirs exit return break continue shift type command "
    "builtin exec times umask ulimit disown kill bg fg suspend logout help caller shopt unalias "
    "alias coproc eval trap"
)
#: Every Bash builtin: None when any call is inside the subset, a check for its arguments, or
#: the words that say why it is outside. Names not listed are programs, judged elsewhere.
BUILTINS: Final[dict[str, Check | str | None]] = {
    **dict.fromkeys(_ANY_CALL),
    "jobs": _jobs,
    "source": _source,
    ".": _source,
    **{name: _declaring(name) for name in (*DECLARE_FLAGS, "unset")},
    "read": _read,
    "printf": _printf,
    "mapfile": _mapfile,
    "readarray": _mapfile,
    "getopts": _getopts,
    "wait": _wait,
    "test": _test,
    "[": _test,
    "set": _set,
    "hash": _hash,
    "enable": _listing_only("enable", "aps"),
    "history": _listing_only("history", ""),
    "let": "evaluates its arguments as arithmetic, which Bash evaluates as code",
    "bind": "binds keys to code (`bind -x`), outside the known subset",
    "compgen": "expands its word list and runs functions, outside the known subset",
    "complete": "runs functions and commands it is given, outside the known subset",
    "compopt": "is outside the known subset",
    "fc": "runs commands from the history, outside the known subset",
}
_ACCEPTED: Check | str | None = None
