"""Programs that run code given on the line besides their own: git's code options, interpreters
with inline code, awk programs and sed scripts.

``runs(name, args)`` answers for one command: the shell code it runs (to be read like the line),
the command it runs (``git bisect run make``), or why what it runs cannot be read. A program that
runs a *file* (``python3 tool.py``, ``make test``) is not a runner here: it is judged as itself.

- **git**: global options as git reads them (``hookline.permissions.bash._git``); ``-c`` and
  ``clone -c`` settings other than a short harmless list, ``--config-env`` and
  ``--exec-path=DIR`` change what git runs and cannot be read. Options whose value is shell code
  (``ls-remote --upload-pack``, ``push --receive-pack``/``--exec``, ``rebase -x``, ``difftool
  --extcmd``, ``grep -O``, ``filter-branch --*-filter``, ``submodule foreach``) are read as
  code, long names in any unique abbreviation (git's option parser takes them).
- **Interpreters** with inline code (``python3 -c``, ``node -e``, ``perl -e``/``-M``, ``ruby -e``,
  ``php -r``, ...): code hookline cannot read.
- **awk**: a program that uses no ``system``, ``getline``, pipe, ``>`` or ``@`` directive
  (outside string literals), with only ``-F``/``-v``/``-f`` options, reads its input and writes
  stdout; anything else cannot be read.
- **sed**: a script parsed command by command; an ``e`` command or flag, or a ``w``/``W``
  command or flag (outside ``--sandbox``), runs or writes what hookline does not follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import hookline.permissions.bash._git as gitwords
from hookline.permissions.bash._sedscript import why_sed_unreadable
from hookline.permissions.bash._words import Word

__all__ = ["Runs", "runs"]


SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "fish"})


@dataclass(frozen=True, slots=True)
class Runs:
    """What a command runs from its own words: shell code, a command, or why it cannot be read."""

    code: str | None = None
    label: str = ""
    command: tuple[Word, ...] = ()
    unknown: str = ""
    #: It runs nothing of its own but ``command`` (``runuser -u bob -- rm x``).
    wrapper: bool = False


#: ``-c NAME=VALUE`` settings that never name a program (matched case-blind on NAME).
SAFE_GIT_CONFIG = re.compile(
    r"(color|advice|column|i18n)\.[\w.-]+|user\.(name|email)|core\.quotepath"
    r"|init\.defaultbranch|log\.(date|decorate|abbrevcommit)",
    re.IGNORECASE,
)
_FILTERS = tuple(
    f"--{k}-filter" for k in ("env", "tree", "index", "parent", "msg", "commit", "tag-name")
)
#: Per subcommand: its options whose value is shell code (long names, short letters).
_GIT_CODE: Final[dict[str, tuple[tuple[str, ...], str]]] = {
    "ls-remote": (("--upload-pack",), "u"),
    "clone": (("--upload-pack",), "u"),
    "fetch": (("--upload-pack",), ""),
    "pull": (("--upload-pack",), ""),
    "fetch-pack": (("--upload-pack", "--exec"), ""),
    "push": (("--receive-pack", "--exec"), ""),
    "send-pack": (("--receive-pack", "--exec"), ""),
    "archive": (("--exec",), ""),
    "rebase": (("--exec",), "x"),
    "difftool": (("--extcmd",), "x"),
    "grep": (("--open-files-in-pager",), "O"),
    "filter-branch": (_FILTERS, ""),
}
#: Short options whose value is only ever attached (``grep -Oless``; ``-O`` alone: the pager
#: git's settings name).
_ATTACHED_ONLY = frozenset({"O"})
#: Per interpreter: letters and long names that give inline code, and letters that take the
#: next word as a value (so it is not the script). After a long option it does not list, every
#: later word is searched too: it may have taken the next word.
_INLINE: Final = {
    "python": ("c", (), "WX"),
    "pypy": ("c", (), "WX"),
    "perl": ("eEM", (), "Ix"),
    "ruby": ("e", (), "IrCEFK"),
    "node": ("ep", ("--eval", "--print"), "rC"),
    "nodejs": ("ep", ("--eval", "--print"), "rC"),
    "bun": ("e", ("--eval", "--print"), "r"),
    "php": ("rRBE", ("--run", "--process-code"), "cdz"),
    "lua": ("e", (), "l"),
    "luajit": ("e", (), "lj"),
    "Rscript": ("e", (), ""),
    "osascript": ("e", (), "l"),
}
_INTERPRETER = re.compile(r"([A-Za-z]+?)[\d.]*")
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_AWK_UNSAFE = re.compile(r"system|getline|[|>@]")
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def runs(name: str, args: tuple[Word, ...]) -> Runs | None:
    """What ``name args`` runs from its own words; None when it is no such runner."""
    if name == "git":
        return _git(args)
    if name in _AWK:
        return _awk(name, args)
    if name == "sed":
        why = why_sed_unreadable(args)
        return Runs(unknown=why) if why else None
    if name == "deno" and args and args[0].value == "eval":
        return Runs(unknown="`deno eval` runs code hookline cannot read")
    match = _INTERPRETER.fullmatch(name)
    if match and match.group(1) in _INLINE:
        return _interpreter(name, *_INLINE[match.group(1)], args)
    return None


def _git(args: tuple[Word, ...]) -> Runs | None:
    git = gitwords.split(args)
    if git.unknown:
        return Runs(unknown=git.unknown)
    if why := _git_settings(git):
        return Runs(unknown=why)
    if git.subcommand == "clone" and (why := _clone_config(git.args)):
        return Runs(unknown=why)
    if git.subcommand == "submodule":
        return _after_verb(git.args, "foreach", "git submodule foreach")
    if git.subcommand == "bisect" and len(git.args) > 1 and git.args[0].value == "run":
        return Runs(command=git.args[1:], label="git bisect run")
    table = _GIT_CODE.get(git.subcommand or "")
    if table is None:
        return None
    codes = list(_option_values(git.args, *table))
    if None in codes:
        return Runs(unknown=f"`git {git.subcommand}` runs a command only run time knows")
    code = "\n".join(c for c in codes if c is not None)
    return Runs(code=code, label=f"git {git.subcommand}") if codes else None


def _git_settings(git: gitwords.Git) -> str:
    for setting in git.config:
        key = setting.partition("=")[0]
        if "\0" in setting or not SAFE_GIT_CONFIG.fullmatch(key):
            return f"`git -c {key or setting}` may make git run a program hookline cannot read"
    if git.option("--config-env"):
        return "`git --config-env` takes a setting from the environment, which may run a program"
    if (found := git.option("--exec-path")) and found.value is not None:
        return "`git --exec-path=` runs git's commands from another folder"
    return ""


def _clone_config(args: tuple[Word, ...]) -> str:
    words = [a.value for a in args]
    for index, value in enumerate(words):
        setting = None
        if value in ("-c", "--config") or (
            value and value.startswith("--conf") and "=" not in value
        ):
            setting = words[index + 1] if index + 1 < len(words) else ""
        elif value and value.startswith("--conf") and "=" in value:
            setting = value.partition("=")[2]
        elif value and value.startswith("-c") and len(value) > 2:
            setting = value[2:]
        if setting is not None or (value is None and index):
            key = (setting or "").partition("=")[0]
            if not SAFE_GIT_CONFIG.fullmatch(key):
                return f"`git clone -c {key}` may make git run a program hookline cannot read"
    return ""


def _after_verb(args: tuple[Word, ...], verb: str, label: str) -> Runs | None:
    values = [a.value for a in args]
    if verb not in values:
        return None
    rest = [v for v in values[values.index(verb) + 1 :]]
    while rest and rest[0] in ("--recursive", "-q", "--quiet"):
        rest.pop(0)
    if None in rest:
        return Runs(unknown=f"`{label}` runs a command only run time knows")
    return Runs(code=" ".join(v for v in rest if v is not None), label=label)


def _option_values(args: tuple[Word, ...], longs: tuple[str, ...], shorts: str) -> list[str | None]:
    """The values of the options ``longs`` (any unique abbreviation; read as one whenever the
    word could be) and ``shorts`` (in a cluster too), up to ``--``."""
    found: list[str | None] = []
    for index, word in enumerate(args):
        value = word.value
        after = args[index + 1].value if index + 1 < len(args) else ""
        if value is None or value == "--":
            if value == "--":
                break
            continue
        if value.startswith("--"):
            given, eq, attached = value.partition("=")
            if len(given) > 2 and any(name.startswith(given) for name in longs):
                found.append(attached if eq else after)
        elif value.startswith("-"):
            for position, letter in enumerate(value[1:], start=2):
                if letter in shorts:
                    rest = value[position:]
                    if rest or letter not in _ATTACHED_ONLY:
                        found.append(rest or after)
                    break
    return found


def _interpreter(
    name: str, letters: str, longs: tuple[str, ...], valued: str, args: tuple[Word, ...]
) -> Runs | None:
    skip, searching = False, False
    for word in args:
        value = word.value
        if skip:
            skip = False
            continue
        if value is None:
            return Runs(unknown=f"`{name}` has an option only run time knows (`{word.raw}`)")
        if not value.startswith("-") or value in ("-", "--"):
            if searching:
                continue
            return None  # a script file (or stdin): the interpreter runs a file
        given = value.partition("=")[0]
        if any(long.startswith(given) for long in longs if len(given) > 2) or (
            not value.startswith("--") and set(value[1:]) & set(letters)
        ):
            return Runs(unknown=f"`{name} {value[:2]}` runs inline code hookline cannot read")
        if value.startswith("--"):
            searching |= "=" not in value
        else:
            first = next((i for i, c in enumerate(value[1:], 1) if c in valued), None)
            skip = first == len(value) - 1
    return None


def _awk(name: str, args: tuple[Word, ...]) -> Runs | None:
    words = list(args)
    while words:
        value = words.pop(0).value
        if value is None:
            return Runs(unknown=f"`{name}` has an argument only run time knows")
        if value in ("-F", "-v"):
            words = words[1:]
        elif value == "-f":
            return None  # it runs a program file
        elif value.startswith(("-F", "-v")) and len(value) > 2:
            continue
        elif value == "--":
            break
        elif value.startswith("-"):
            return Runs(unknown=f"`{name} {value}` is an awk option hookline does not read")
        else:
            words.insert(0, Word(value))
            break
    if not words or words[0].value is None:
        return Runs(unknown=f"`{name}` runs a program only run time knows")
    program = _AWK_STRING.sub('""', words[0].value)
    if found := _AWK_UNSAFE.search(program):
        return Runs(unknown=f"the `{name}` program uses `{found.group()}`, which may run or write")
    return None
