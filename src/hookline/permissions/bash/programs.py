"""What hookline knows of programs that run other programs: wrappers, shells, interpreters.

``unwrap(name, args)`` says what a command runs besides itself: the command under a wrapper
(``env``, ``sudo``, ``timeout``, ``xargs``, ...), the commands of ``find -exec``, or a code
string (``bash -c``, ``eval``, ``su -c``, ``watch``). A wrapper option it does not know makes
the rest unknowable: the option might take the next word as its value. ``code_source`` says
where a shell or interpreter takes its code from when no code string is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from hookline.permissions.bash.words import MAX_EXPANSIONS, Word, literal

__all__ = ["MAX_EXPANSIONS", "Found", "changes_what_runs", "code_source", "is_shell", "unwrap"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "fish"})
_INTERPRETER = re.compile(
    r"(python|pypy|perl|ruby|node|nodejs|php|lua|luajit|tclsh|wish|Rscript|osascript|deno|bun"
    r"|jshell|irb|awk|gawk|mawk|nawk)[\d.]*"
)
#: Options that give an interpreter its code inline (or name a module), so stdin is data.
_INLINE_CODE = frozenset({"-c", "-e", "-m", "-E", "--eval", "-r", "-p", "--print", "-x"})
_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_RUNS_CODE = re.compile(
    r"PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|BASH_FUNC_.*|NODE_OPTIONS"
    r"|PERL5OPT|RUBYOPT|GIT_SSH_COMMAND|GIT_EXEC_PATH|GIT_CONFIG\w*|GIT_EXTERNAL_DIFF|GIT_PAGER"
    r"|PAGER|GIT_EDITOR|EDITOR|VISUAL|GIT_ASKPASS|SSH_ASKPASS|GIT_PROXY_COMMAND|PROMPT_COMMAND"
)
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*\+?=")


@dataclass(frozen=True, slots=True)
class Found:
    """What a command runs besides itself."""

    #: The command a wrapper runs (its words), or the commands of ``find -exec`` (several).
    inner: tuple[tuple[Word, ...], ...] = ()
    #: A code string it runs (``bash -c``, ``eval``), to be parsed in turn.
    code: str | None = None
    #: How it shows in ``Command.via`` (``"bash -c"``, ``"find -exec"``); the name if empty.
    label: str = ""
    #: It runs nothing of its own: only the commands it wraps.
    wrapper: bool = False
    transparent: bool = False
    more_args: bool = False
    #: The folder the inner command runs in (``env -C DIR``), when it says.
    cwd: str | None = None
    #: Why what it runs cannot be known ("" when it can).
    unknown: str = ""


@dataclass(frozen=True, slots=True)
class _Options:
    """A wrapper's command-line options: which take a value, and how many words come first."""

    flags: str = ""
    values: str = ""
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    positionals: int = 0
    transparent: bool = True
    #: Flags after which nothing is run (``command -v``, ``taskset -p``).
    no_command: str = ""
    #: Short options whose value is only ever attached (``xargs -i{}``).
    attached: str = ""


def _long(*names: str) -> frozenset[str]:
    return frozenset(names)


_WRAPPERS = {
    "env": _Options("i0v", "uCS", _long("--ignore-environment", "--null", "--debug"),
                    _long("--unset", "--chdir", "--split-string")),
    "exec": _Options("cl", "a"),
    "command": _Options("p", no_command="vV"),
    "builtin": _Options(),
    "nohup": _Options(),
    "coproc": _Options(),
    "busybox": _Options(),
    "nice": _Options("", "n", long_values=_long("--adjustment")),
    "ionice": _Options("t", "cnP", long_values=_long("--class", "--classdata"), no_command="p"),
    "timeout": _Options("v", "sk", _long("--preserve-status", "--foreground", "--verbose"),
                        _long("--signal", "--kill-after"), positionals=1),
    "stdbuf": _Options("", "ioe", long_values=_long("--input", "--output", "--error")),
    "setsid": _Options("cfw", "", _long("--ctty", "--fork", "--wait")),
    "time": _Options("pqva", "fo", _long("--portability", "--verbose", "--append", "--quiet"),
                     _long("--format", "--output")),
    "chrt": _Options("abdfiorRv", "TPD", positionals=1, no_command="pm"),
    "taskset": _Options("ac", "", _long("--all-tasks", "--cpu-list"), positionals=1,
                        no_command="p"),
    "sudo": _Options("AbEHiKklnPSsV", "CDgpRrTtUuh", transparent=False),
    "doas": _Options("Lns", "uC", transparent=False),
    "pkexec": _Options("", "", long_flags=_long("--keep-cwd", "--disable-internal-agent"),
                       long_values=_long("--user"), transparent=False),
    "xargs": _Options("0ortxp", "aEdILnPs", long_flags=_long("--null", "--no-run-if-empty",
                      "--verbose", "--exit", "--interactive", "--open-tty"),
                      long_values=_long("--arg-file", "--delimiter", "--max-args", "--max-procs",
                                        "--max-lines", "--replace", "--eof", "--max-chars",
                                        "--process-slot-var"),
                      attached="iel"),
}  # fmt: skip
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def is_shell(name: str) -> bool:
    return name in SHELLS


def changes_what_runs(variable: str) -> bool:
    """Whether assigning ``variable`` changes which code later commands run (PATH, LD_PRELOAD)."""
    return _RUNS_CODE.fullmatch(variable) is not None


def unwrap(name: str, args: tuple[Word, ...]) -> Found:
    """What ``name args`` runs besides itself."""
    if name in _WRAPPERS:
        return _wrapper(name, _WRAPPERS[name], list(args))
    if name in SHELLS:
        return _shell(name, args)
    if name == "eval":
        return _code(name, args, label="eval")
    if name == "trap" and args and (args[0].value or "-").lstrip("-"):
        return _code(name, args[:1], label="trap")
    if name == "alias":
        return _aliases(args)
    if name == "su":
        return _su(args)
    if name == "watch":
        return _watch(args)
    if name == "find":
        return _find(args)
    return Found()


def code_source(name: str, args: tuple[Word, ...]) -> Literal["stdin", "unknown"] | None:
    """Where a shell, ``source`` or an interpreter reads its code when no string gives it:
    "stdin", "unknown" (a file only run time knows), or None (not such a program, or the code
    is in its arguments)."""
    if name in ("source", "."):
        target = args[0].value if args else None
        return "stdin" if target in _STDIN_FILES else ("unknown" if target is None else None)
    if name not in SHELLS and not _INTERPRETER.fullmatch(name):
        return None
    values = [a.value for a in args]
    if any(v in _INLINE_CODE for v in values) or (name in SHELLS and _has_flag(values, "c")):
        return None
    positional = next((v for v in values if v is None or not v.startswith("-") or v == "-"), "")
    if positional is None:
        return "unknown"
    if name in SHELLS and _has_flag(values, "s"):
        return "stdin"
    return "stdin" if positional in ("", *_STDIN_FILES) else None


def _has_flag(values: list[str | None], letter: str) -> bool:
    return any(
        v is not None and re.fullmatch(rf"-[a-zA-Z]*{letter}[a-zA-Z]*", v) is not None
        for v in values
    )


def _wrapper(name: str, spec: _Options, words: list[Word]) -> Found:
    """The command under a wrapper, after its options, assignments and positionals."""
    cwd, code = None, None
    while words:
        value = words[0].value
        if value is None:
            if name == "env":
                return Found(unknown="an `env` argument is not known before it runs")
            break
        if value == "--":
            words.pop(0)
            break
        if name == "env" and value == "-":
            words.pop(0)
            continue
        if name == "env" and _ASSIGNMENT.match(value):
            variable = value.split("=", 1)[0].rstrip("+")
            if changes_what_runs(variable):
                return Found(unknown=f"`env` sets {variable}, which changes what runs")
            words.pop(0)
            continue
        if not value.startswith("-") or value == "-" or (name == "nice" and _is_number(value)):
            if name == "nice" and value.startswith("-"):
                words.pop(0)
                continue
            break
        parsed = _option(spec, words)
        if parsed is None:
            return Found(unknown=f"`{name}` has an option hookline does not know: {value}")
        option, argument = parsed
        if option and option in spec.no_command:
            return Found()
        if option in ("C", "--chdir", "D") and name in ("env", "sudo"):
            cwd = argument
        if option in ("S", "--split-string") and name == "env":
            code = argument
    return _after_options(name, spec, words, cwd, code)


def _after_options(
    name: str, spec: _Options, words: list[Word], cwd: str | None, code: str | None
) -> Found:
    skipped, words = words[: spec.positionals], words[spec.positionals :]
    if len(skipped) < spec.positionals:
        return Found()
    if code is not None:
        found = _code("env -S", [literal(code), *words], label="env -S")
        return replace(found, transparent=True)
    if name == "xargs":
        inner = tuple(words) or (literal("echo"),)
        return Found((inner,), label=name, wrapper=True, transparent=True, more_args=True)
    if not words:
        return Found()
    return Found((tuple(words),), wrapper=True, transparent=spec.transparent, cwd=cwd)


def _option(spec: _Options, words: list[Word]) -> tuple[str, str | None] | None:
    """Consume one option word (and its value); the option's letter or long name."""
    word = words.pop(0).value or ""
    if word.startswith("--"):
        option, eq, attached = word.partition("=")
        if option in spec.long_flags and not eq:
            return option, None
        if option in spec.long_values:
            return option, attached if eq else _take(words)
        return None
    last = ""
    for index, letter in enumerate(word[1:], start=1):
        last = letter
        if letter in spec.no_command:
            return letter, None
        if letter in spec.attached:
            return letter, word[index + 1 :]
        if letter in spec.values:
            rest = word[index + 1 :]
            return letter, rest if rest else _take(words)
        if letter not in spec.flags:
            return None
    return last, None


def _take(words: list[Word]) -> str | None:
    return words.pop(0).value if words else None


def _is_number(value: str) -> bool:
    return value[1:].isdigit()


def _values(words: list[Word] | tuple[Word, ...]) -> list[str] | None:
    values = [w.value for w in words]
    return None if None in values else [v for v in values if v is not None]


def _code(name: str, words: tuple[Word, ...] | list[Word], *, label: str) -> Found:
    values = _values(words)
    if values is None:
        return Found(unknown=f"`{label}` runs a string only run time knows")
    return Found(code=" ".join(values), label=label, wrapper=True)


def _shell(name: str, args: tuple[Word, ...]) -> Found:
    """``bash -c CODE``: the code string; other forms run a file or stdin (see code_source)."""
    words = list(args)
    while words and (words[0].value or "").startswith(("-", "+")) and words[0].value != "-":
        flag = words.pop(0).value or ""
        if flag in ("-o", "+o", "--rcfile", "--init-file", "-O", "+O"):
            _take(words)
        elif re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", flag):
            if not words:
                return Found()
            return _code(name, words[:1], label=f"{name} -c")
    if words and words[0].value is None:
        return Found(unknown=f"`{name}` runs a script only run time knows (`{words[0].raw}`)")
    return Found()


def _aliases(args: tuple[Word, ...]) -> Found:
    """``alias ls='rm -rf x'``: the code an alias would run, read as if it ran."""
    values = [(w.value or "").partition("=") for w in args if w.value is None or "=" in w.value]
    if any(w.value is None for w in args):
        return Found(unknown="`alias` defines a command only run time knows")
    code = "\n".join(value for _, _, value in values)
    return Found(code=code, label="alias") if code.strip() else Found()


def _su(args: tuple[Word, ...]) -> Found:
    words = list(args)
    while words:
        value = words.pop(0).value
        if value in ("-c", "--command", "--session-command"):
            return _code("su", words[:1], label="su -c")
        if value is not None and value.startswith("--command="):
            return Found(code=value.partition("=")[2], label="su -c", wrapper=True)
    return Found()


def _watch(args: tuple[Word, ...]) -> Found:
    words, direct = list(args), False
    while words and (words[0].value or "").startswith("-"):
        flag = words.pop(0).value or ""
        if flag in ("-n", "--interval", "-q", "--equexit"):
            _take(words)
        direct |= flag in ("-x", "--exec")
    if not words:
        return Found()
    if direct:
        return Found((tuple(words),), label="watch -x", wrapper=True)
    return _code("watch", words, label="watch")


def _find(args: tuple[Word, ...]) -> Found:
    """The commands ``find -exec ... ;`` runs; ``{}`` is a path only run time knows."""
    inner: list[tuple[Word, ...]] = []
    more = False
    index = 0
    while index < len(args):
        if args[index].value not in _FIND_EXEC:
            index += 1
            continue
        end = index + 1
        while end < len(args) and args[end].value not in (";", "+"):
            end += 1
        if end == len(args):
            return Found(unknown="`find -exec` is not closed with `;` or `+`")
        more |= args[end].value == "+"
        words = tuple(Word(None, raw="{}") if w.value == "{}" else w for w in args[index + 1 : end])
        if words:
            inner.append(words)
        index = end + 1
    return Found(tuple(inner), label="find -exec", more_args=more)
