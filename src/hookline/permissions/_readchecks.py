"""The read-only programs whose words need a check of their own, beyond a list of options.

``find`` (no action that runs, deletes or writes), ``jq`` (options with one or two values),
``printf -v`` and ``test -v`` (they set or evaluate a variable), ``date`` (an operand sets the
clock), ``command`` (only ``-v``/``-V``). Each check takes the words after the program and
answers None (read-only) or why not; ``hookline.permissions._readlist`` names them in its table.
"""

from __future__ import annotations

from typing import Final

from hookline._support.words import words

_FIND_VALUES = words(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size -mtime "
    "-mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -perm -user -group -uid -gid -links "
    "-inum -samefile -lname -ilname -fstype -used -context -maxdepth -mindepth -regextype "
    "-printf -files0-from"
)
_FIND_FLAGS = words(
    "-empty -executable -readable -writable -nouser -nogroup -true -false -depth -d -mount -xdev "
    "-follow -noleaf -ignore_readdir_race -noignore_readdir_race -warn -nowarn -daystart -print "
    "-print0 -ls -prune -quit -not -a -and -o -or ( ) ! , -H -L -P -help -version"
)
_FIND_HARMFUL: Final = {
    "-exec": "runs another command",
    "-execdir": "runs another command",
    "-ok": "runs another command",
    "-okdir": "runs another command",
    "-delete": "changes files",
    "-fprint": "writes a file",
    "-fprint0": "writes a file",
    "-fprintf": "writes a file",
    "-fls": "writes a file",
}


def find_check(words: list[str]) -> str | None:
    """Starting points, then only the tests, options and actions listed (no action that runs,
    deletes or writes: ``-exec``, ``-delete``, ``-fprint``, ...)."""
    skip = False
    expression = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in _FIND_HARMFUL:
            return f"`find {word}` {_FIND_HARMFUL[word]}"
        if word in _FIND_VALUES or _is_newer(word) or word == "-D":
            skip, expression = True, True
        elif word in _FIND_FLAGS or (word.startswith("-O") and word[2:].isdigit()):
            expression = True
        elif word.startswith("-") or (expression and word not in ("(", ")", "!", ",")):
            return f"`find {word}` is not an expression hookline lists as read-only"
    return None


def _is_newer(word: str) -> bool:
    return len(word) == 8 and word.startswith("-newer") and all(c in "amcBt" for c in word[6:])


def printf_check(words: list[str]) -> str | None:
    return "`printf -v` sets a variable" if words[:1] == ["-v"] else None


def test_check(words: list[str]) -> str | None:
    return "`test -v` evaluates a subscript as code" if "-v" in words else None


def date_check(operands: list[str]) -> str | None:
    wrong = next((w for w in operands if not w.startswith("+")), None)
    return f"`date {wrong}` sets the clock" if wrong else None


_JQ_LONGS = words(
    "--tab --seq --stream --ascii-output --unbuffered --raw-input --exit-status --null-input "
    "--compact-output --raw-output --args --join-output --sort-keys --color-output "
    "--monochrome-output --slurp --jsonargs --help"
)


def jq_check(words: list[str]) -> str | None:
    """jq's options, one or two values (``--arg NAME VALUE``); it writes nothing but stdout."""
    two = ("--arg", "--argjson", "--slurpfile", "--rawfile")
    one = ("--indent", "-f", "--from-file", "-L")
    flags = set("nrjacsSeCMRh")
    skip = 0
    for word in words:
        if skip:
            skip -= 1
        elif word in two:
            skip = 2
        elif word in one:
            skip = 1
        elif word == "--":
            return None
        elif word.startswith("-") and word != "-" and not _jq_option(word, _JQ_LONGS, flags):
            return f"`jq {word}` is not an option hookline lists as read-only"
    return None


def _jq_option(word: str, longs: frozenset[str], flags: set[str]) -> bool:
    return word in longs if word.startswith("--") else set(word[1:]) <= flags


def command_check(words: list[str]) -> str | None:
    return None if words[:1] in (["-v"], ["-V"]) else "`command` runs another command"
