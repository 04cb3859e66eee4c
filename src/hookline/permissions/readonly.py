"""The read-only tier for Bash: a line runs without asking when every command of it only reads.

``why_not_read_only(analysis)`` is None for such a line, else one short reason for the model.
It is a list, not a guess: a program counts only when it is listed here, with the options and
subcommands that make it write or run other code. Write redirects (except to ``/dev/null``),
substitutions, anything unknowable, and wrappers that run code as another user or from a
string (``sudo``, ``bash -c``, ``eval``, ``watch``) are never read-only; wrappers that only
change how a command runs (``timeout``, ``nice``, ``env X=1``, ``xargs``) are looked through,
though under ``xargs`` a command gets arguments only run time knows, which a program with
writing options (``sort -o``) does not pass with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hookline.permissions.bash.options import Option, Options, read
from hookline.permissions.bash.words import literal

if TYPE_CHECKING:
    from hookline.permissions.bash import Analysis, Command
    from hookline.permissions.bash.words import Word

Check = Callable[[list[str]], "str | None"]
#: Write redirect targets that change no file.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


@dataclass(frozen=True, slots=True)
class Spec:
    """A read-only program: the options that make it write or run code, and those that take
    a value (so their value is not read as more options)."""

    bad_short: str = ""
    bad_long: tuple[str, ...] = ()
    values: str = ""
    long_values: tuple[str, ...] = ()
    #: More operands than this, and it writes (``uniq in out``); None: no limit.
    max_operands: int | None = None
    #: What the program does with a bad option, for the reason.
    does: str = "writes a file"
    check: Check | None = field(default=None, compare=False)

    @property
    def options(self) -> Options:
        """How its options read: which take a value, and the long names that abbreviate."""
        longs = frozenset(self.bad_long)
        return Options("", self.values, longs, frozenset(self.long_values) - longs)

    @property
    def strict(self) -> bool:
        """Whether some argument could make it write, so unknowable arguments matter."""
        return bool(self.bad_short or self.bad_long or self.check or self.max_operands is not None)


def why_not_read_only(analysis: Analysis) -> str | None:
    """None when every command of the line only reads; else why not, in one short phrase."""
    if analysis.unknown:
        return f"what runs cannot be known: {analysis.unknown[0]}"
    if analysis.recursive:
        return f"the function `{analysis.recursive[0]}` calls itself"
    for command in analysis.commands:
        if why := why_command_not_read_only(command):
            return why
    if analysis.substitutions:
        return "`$(...)` runs another command"
    return None


#: Where a program named by its path is still the program of that name.
SYSTEM_BIN = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")


def why_command_not_read_only(command: Command) -> str | None:
    """None when this one command (with its redirects) only reads; else why not."""
    if command.name is None:
        return "what runs cannot be known: the command name is only known at run time"
    for redirect in command.writes:
        target = redirect.target.value if redirect.target else None
        if target not in HARMLESS_TARGETS:
            return f"its output is redirected to `{target or redirect.target}`"
    if command.wrapper:
        return _wrapper(command)
    if command.path and not command.path.startswith(SYSTEM_BIN):
        return f"`{command.path}` is a file of its own, not the `{command.name}` program"
    spec = PROGRAMS.get(command.name)
    if spec is None:
        return f"`{command.name}` is not a read-only program"
    if command.more_args and spec.strict:
        return f"`{command.name}` gets more arguments at run time (`xargs`, `find -exec +`)"
    return _arguments(command.name, spec, command.args)


def _wrapper(command: Command) -> str | None:
    name = command.name or ""
    if not command.transparent:
        return f"`{name}` runs another command"
    if name == "nohup":
        return "`nohup` may write `nohup.out`"
    values = [a.value for a in command.args]
    if name == "time" and any(
        v in ("-o", "--output") or (v or "").startswith("--o") for v in values
    ):
        return "`time -o` writes a file"
    return None


def _arguments(name: str, spec: Spec, args: Sequence[Word]) -> str | None:
    words: list[str] = []
    for arg in args:
        if arg.value is None and spec.strict:
            return f"`{name}` has an argument only known at run time (`{arg.raw}`)"
        if arg.glob and spec.strict and arg.value and arg.value[0] in "*?[":
            return f"`{arg.raw}` could expand to an option of `{name}`"
        if arg.value is not None:
            words.append(arg.value)
    if spec.check is not None:
        return spec.check(words)
    return _options(name, spec, words)


def _options(name: str, spec: Spec, words: list[str]) -> str | None:
    given = read([literal(word) for word in words], spec.options)
    for option in given.options:
        if _bad(option, spec):
            return f"`{name} {option.shown}` {spec.does}"
    operands = given.operands
    if spec.max_operands is not None and len(operands) > spec.max_operands:
        return f"`{name} {operands[spec.max_operands].value}` {spec.does}"
    return None


def _bad(option: Option, spec: Spec) -> bool:
    """An option that makes the program write or run code (an abbreviation of one too)."""
    if len(option.name) == 1:
        return option.name in spec.bad_short
    prefix = not option.known and len(option.name) > 2
    return option.name in spec.bad_long or (prefix and any(
        bad.startswith(option.name) for bad in spec.bad_long))  # fmt: skip


def _find(words: list[str]) -> str | None:
    for word in words:
        if word in _FIND_WRITES:
            does = "changes files" if word == "-delete" else "runs another command"
            does = "writes a file" if word.startswith("-f") else does
            return f"`find {word}` {does}"
    return None


_FIND_WRITES = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
                          "-fprintf", "-fls"})  # fmt: skip
_GIT_GLOBAL_VALUES = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
_GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "-P", "--no-optional-locks", "--bare",
                               "--literal-pathspecs", "--no-replace-objects", "--version",
                               "--help"})  # fmt: skip
_GIT_DIFF_BAD = ("--output", "--ext-diff")
_GIT_READS: dict[str, Spec] = {
    name: Spec(bad_long=_GIT_DIFF_BAD, does="writes a file or runs a program")
    for name in ("log", "show", "diff", "whatchanged", "shortlog", "range-diff", "format-patch")
}
_GIT_READS["format-patch"] = Spec(check=lambda _: "`git format-patch` writes files")
_GIT_READS |= {
    name: Spec()
    for name in ("status", "blame", "rev-parse", "ls-files", "ls-tree", "ls-remote", "cat-file",
                 "describe", "show-ref", "for-each-ref", "rev-list", "name-rev", "merge-base",
                 "count-objects", "annotate", "cherry", "check-ignore", "check-attr", "version",
                 "help", "show-branch", "diff-tree", "diff-files", "diff-index", "var")
}  # fmt: skip
_GIT_READS["grep"] = Spec("O", ("--open-files-in-pager",), does="runs a pager program")


def _listing(
    command: str, flags: frozenset[str], values: frozenset[str], *, lists: str = "--list"
) -> Check:
    """A git command that only lists with these options; a bare operand creates something."""

    def check(words: list[str]) -> str | None:
        listing = any(w in (lists, "-l") for w in words)
        skip = False
        for word in words:
            option = word.partition("=")[0]
            if skip:
                skip = False
            elif option in values:
                skip = "=" not in word
            elif word.startswith("-") and word not in flags:
                return f"`git {command} {option}` changes {command}es"
            elif not word.startswith("-") and not listing:
                return f"`git {command} {word}` creates a {command}"
        return None

    return check


_BRANCH_FLAGS = frozenset({"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list",
                           "-l", "--show-current", "--color", "--no-color", "--column",
                           "--no-column", "-i", "--ignore-case", "--omit-empty"})  # fmt: skip
_LIST_VALUES = frozenset({"--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
                          "--sort", "--format"})  # fmt: skip
_GIT_READS["branch"] = Spec(check=_listing("branch", _BRANCH_FLAGS, _LIST_VALUES))
_TAG_FLAGS = frozenset(
    {
        "-l",
        "--list",
        "-i",
        "--ignore-case",
        "--color",
        "--no-color",
        "--column",
        "--no-column",
        "--omit-empty",
    }
    | {f"-n{d}" for d in "123456789"}
    | {"-n"}
)
_GIT_READS["tag"] = Spec(check=_listing("tag", _TAG_FLAGS, _LIST_VALUES))


def _subcommands(command: str, reading: frozenset[str], *, bare: bool = True) -> Check:
    """A git command whose first operand is a verb; ``bare``: with none, it only lists."""

    def check(words: list[str]) -> str | None:
        verbs = [w for w in words if not w.startswith("-")]
        if not verbs and not bare:
            return f"`git {command}` without `list` is not a read-only git command"
        if verbs and verbs[0] not in reading:
            return f"`git {command} {verbs[0]}` is not a read-only git command"
        return None

    return check


_GIT_READS["remote"] = Spec(check=_subcommands("remote", frozenset({"show", "get-url"})))
_GIT_READS["reflog"] = Spec(check=_subcommands("reflog", frozenset({"show"})))
_GIT_READS["stash"] = Spec(check=_subcommands("stash", frozenset({"list", "show"}), bare=False))
_GIT_READS["worktree"] = Spec(check=_subcommands("worktree", frozenset({"list"}), bare=False))
_CONFIG_READS = frozenset({"-l", "--list", "--get", "--get-all", "--get-regexp"})


def _git_config(words: list[str]) -> str | None:
    return None if _CONFIG_READS & set(words) else "`git config` may change settings"


def _command_v(words: list[str]) -> str | None:
    return None if words[:1] in (["-v"], ["-V"]) else "`command` runs another command"


_GIT_READS["config"] = Spec(check=_git_config)


def _git(words: list[str]) -> str | None:
    index = 0
    while index < len(words) and words[index].startswith("-"):
        option = words[index].partition("=")[0]
        if option in _GIT_GLOBAL_VALUES:
            index += 1 if "=" in words[index] else 2
        elif option in _GIT_GLOBAL_FLAGS:
            index += 1
        else:
            return f"`git {option}` may change what git runs"
    if index >= len(words):
        return None
    verb, rest = words[index], words[index + 1 :]
    spec = _GIT_READS.get(verb)
    if spec is None:
        return f"`{verb}` is not a read-only git command"
    return spec.check(rest) if spec.check else _options(f"git {verb}", spec, rest)


_SIMPLE = ("ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "true", "false", ":", "grep",
           "egrep", "fgrep", "stat", "which", "type", "whereis", "cut", "tr", "diff", "cmp", "du",
           "df", "basename", "dirname", "realpath", "readlink", "env", "printenv", "id", "whoami",
           "uname", "nproc", "free", "uptime", "ps", "jq", "md5sum", "sha1sum", "sha224sum",
           "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "column", "nl", "rev",
           "seq", "test", "[", "[[", "sleep", "tac", "comm", "paste", "fold", "od", "hexdump",
           "strings", "groups", "locale", "cd", "pushd", "popd", "dirs", "wait",
           "lsblk")  # fmt: skip
PROGRAMS: dict[str, Spec] = {name: Spec() for name in _SIMPLE}
PROGRAMS |= {
    "rg": Spec(bad_long=("--pre",), values="egtTfjmABC", does="runs another program"),
    "ag": Spec(bad_long=("--pager",), does="runs another program"),
    "file": Spec("C", ("--compile",), values="mfeFP", does="writes a magic file"),
    "find": Spec(check=_find),
    "sort": Spec(
        "o",
        ("--output", "--compress-program"),
        values="kStT",
        long_values=("--key", "--field-separator", "--buffer-size", "--temporary-directory"),
    ),
    "uniq": Spec(
        values="fsw",
        long_values=("--skip-fields", "--skip-chars", "--check-chars"),
        max_operands=1,
        does="writes its output there",
    ),
    "tree": Spec("o", values="LPIHT", does="writes a file"),
    "date": Spec(
        "s",
        ("--set",),
        values="dfr",
        long_values=("--date", "--file", "--reference"),
        does="sets the clock",
    ),
    "hostname": Spec("Fb", ("--file", "--boot"), max_operands=0, does="sets the host name"),
    "command": Spec(check=_command_v),
    "git": Spec(check=_git),
}
