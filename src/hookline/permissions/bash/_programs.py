"""What hookline knows of programs that run other programs: wrappers, shells, interpreters.

``unwrap(name, args)`` says what a command runs besides itself: the command under a wrapper
(``env``, ``sudo``, ``timeout``, ``xargs``, ...), the commands of ``find -exec``, or a code
string (``bash -c``, ``eval``, ``su -c``, ``watch``). A wrapper option it does not know makes
the rest unknowable: the option might take the next word as its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Final

from hookline.permissions.bash import _containers, _delegates, _launchers, _runners
from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._runners import SHELLS
from hookline.permissions.bash._words import MAX_EXPANSIONS, Word, literal

__all__ = ["MAX_EXPANSIONS", "Found", "changes_what_runs", "is_shell", "unwrap"]

_RUNS_CODE = re.compile(
    r"PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|BASH_FUNC_.*|NODE_OPTIONS"
    r"|PERL5OPT|RUBYOPT|GIT_SSH_COMMAND|GIT_EXEC_PATH|GIT_CONFIG\w*|GIT_EXTERNAL_DIFF|GIT_PAGER"
    r"|PAGER|GIT_EDITOR|EDITOR|VISUAL|GIT_ASKPASS|SSH_ASKPASS|GIT_PROXY_COMMAND|PROMPT_COMMAND"
    r"|GIT_SSH\w*|GIT_DIR|GIT_COMMON_DIR|GIT_INDEX_FILE|GIT_OBJECT_DIRECTORY|GIT_TEMPLATE_DIR"
    r"|GIT_SEQUENCE_EDITOR|GIT_ALLOW_PROTOCOL|GIT_TRACE\w*|LESSOPEN|LESSCLOSE|MANPAGER|BROWSER"
    r"|XDG_CONFIG_HOME|RIPGREP_CONFIG_PATH|GCONV_PATH|LOCPATH|NLSPATH"  # config, modules
    r"|HOME|CDPATH"  # where `~` and `cd` lead
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
class _Wrapper:
    """A wrapper: its options, how many words come before the command, and what it does."""

    options: Options = field(default_factory=Options)
    positionals: int = 0
    transparent: bool = True
    #: Options after which nothing is run (``command -v``, ``taskset -p``), space-separated.
    no_command: str = ""


_WRAPPERS: Final = {
    "env": _Wrapper(
        Options.of(
            "i0v", "uCS", "--ignore-environment --null --debug", "--unset --chdir --split-string"
        )
    ),
    "exec": _Wrapper(Options.of("cl", "a")),
    "command": _Wrapper(Options.of("pvV"), no_command="v V"),
    "builtin": _Wrapper(),
    "nohup": _Wrapper(),
    "coproc": _Wrapper(),
    "nice": _Wrapper(Options.of("", "n", long_values="--adjustment", numbers=True)),
    "ionice": _Wrapper(
        Options.of("t", "cnpPu", "--ignore", "--class --classdata --pid --pgid --uid"),
        no_command="p P u --pid --pgid --uid",
    ),
    "timeout": _Wrapper(
        Options.of("v", "sk", "--preserve-status --foreground --verbose", "--signal --kill-after"),
        positionals=1,
    ),
    "stdbuf": _Wrapper(Options.of("", "ioe", long_values="--input --output --error")),
    "setsid": _Wrapper(Options.of("cfw", "", "--ctty --fork --wait")),
    "time": _Wrapper(
        Options.of("pqva", "fo", "--portability --verbose --append --quiet", "--format --output")
    ),
    "chrt": _Wrapper(
        Options.of(
            "abdfiorRvpm",
            "TPD",
            "--all-tasks --batch --deadline --fifo --idle --other --rr --reset-on-fork --verbose "
            "--pid --max",
            "--sched-runtime --sched-period --sched-deadline",
        ),
        positionals=1,
        no_command="p m --pid --max",
    ),
    "taskset": _Wrapper(
        Options.of("acp", "", "--all-tasks --cpu-list --pid"), positionals=1, no_command="p --pid"
    ),
    "sudo": _Wrapper(Options.of("AbEHiKklnPSsV", "CDgpRrTtUuh"), transparent=False),
    "doas": _Wrapper(Options.of("Lns", "uC"), transparent=False),
    "pkexec": _Wrapper(
        Options.of(long_flags="--keep-cwd --disable-internal-agent", long_values="--user"),
        transparent=False,
    ),
    "xargs": _Wrapper(
        Options.of(
            "0ortxp",
            "aEdILnPs",
            "--null --no-run-if-empty --verbose --exit --interactive --open-tty",
            "--arg-file --delimiter --max-args --max-procs --max-lines --replace --eof "
            "--max-chars --process-slot-var",
            attached="iel",
        )
    ),
    # wrappers that change more than how a command runs: allow rules must name them too
    "busybox": _Wrapper(transparent=False),  # its applets' options are not GNU's
    "flock": _Wrapper(
        Options.of(
            "sxeunoFvhV",
            "wE",
            "--shared --exclusive --unlock --nonblock --nb --close --no-fork --verbose",
            "--timeout --wait --conflict-exit-code",
        ),
        transparent=False,
    ),
    "chroot": _Wrapper(
        Options.of(long_flags="--skip-chdir", long_values="--userspec --groups"),
        positionals=1,
        transparent=False,
    ),
    "unshare": _Wrapper(
        Options.of(
            "fcr",
            "RwSG",
            "--fork --map-root-user --map-current-user --map-auto --keep-caps",
            "--map-user --map-group --map-users --map-groups --propagation --setgroups --root "
            "--wd --setuid --setgid --monotonic --boottime",
            attached="muinpUCT",
            long_attached="--mount --uts --ipc --net --pid --user --cgroup --time --kill-child "
            "--mount-proc",
        ),
        transparent=False,
    ),
    "strace": _Wrapper(
        Options.of(
            "fFqcCwrtTvVxyDkhZzinAY",
            "eoOpPsSuEIaXbU",
            "--follow-forks --output-separately --successful-only --failed-only "
            "--instruction-pointer --stack-traces --syscall-number --output-append-mode "
            "--no-abbrev --summary-only --summary --summary-wall-clock --debug --seccomp-bpf",
            "--env --attach --user --detach-on --interruptible --trace --signal --status "
            "--trace-path --columns --abbrev --raw --read --write --kvm --output --string-limit "
            "--const-print-style --summary-syscall-overhead --summary-sort-by --summary-columns "
            "--inject --fault --decode-pids",
            long_attached="--daemonize --relative-timestamps --absolute-timestamps "
            "--syscall-times --strings-in-hex --decode-fds --tips --quiet",
        ),
        transparent=False,
    ),
    "ltrace": _Wrapper(Options.of("fhiLrStTCV", "aAeEnopsuwlDFx"), transparent=False),
    "fakeroot": _Wrapper(
        Options.of("u", "isb", "--unknown-is-real", "--lib --faked"), transparent=False
    ),
    "faketime": _Wrapper(Options.of("fm", "p"), positionals=1, transparent=False),
    "torsocks": _Wrapper(Options.of("idqh", "uapP"), transparent=False),
    "proxychains": _Wrapper(Options.of("q", "f"), transparent=False),
    "proxychains4": _Wrapper(Options.of("q", "f"), transparent=False),
    "unbuffer": _Wrapper(Options.of("p"), transparent=False),
    "dbus-run-session": _Wrapper(
        Options.of("", "", "", "--config-file --dbus-daemon"), transparent=False
    ),
    "catchsegv": _Wrapper(transparent=False),
}
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
    return _runner(name, args)


def _runner(name: str, args: tuple[Word, ...]) -> Found:
    """A program that runs code or a command given in its own words (``runners``)."""
    found = (
        _runners.runs(name, args)
        or _delegates.runs(name, args)
        or _launchers.runs(name, args)
        or _containers.runs(name, args)
    )
    if found is None:
        return Found()
    if found.unknown:
        return Found(unknown=found.unknown)
    if found.command:
        return Found((found.command,), label=found.label, wrapper=found.wrapper)
    return Found(code=found.code, label=found.label) if found.code is not None else Found()


def _wrapper(name: str, spec: _Wrapper, words: list[Word]) -> Found:
    """The command under a wrapper, after its options, assignments and positionals."""
    given = read(words, spec.options, first_operand_ends=True)
    if unknown := given.unknown:
        return Found(unknown=f"`{name}` has an option hookline does not know: {unknown.shown}")
    if any(o.name in spec.no_command.split() for o in given.options):
        return Found()
    rest = list(given.operands)
    if name == "env":
        why = _env_assignments(rest)
        if why:
            return Found(unknown=why)
    chdir = given.named("C", "--chdir", "D") if name in ("env", "sudo") else None
    split = given.named("S", "--split-string") if name == "env" else None
    if name == "flock":
        return _flock(rest)
    if name == "sudo" and rest and any(o.name in ("s", "i") for o in given.options):
        return _code("sudo -s", rest, label="sudo -s")  # its shell runs the words as code
    cwd = chdir.value.value if chdir and chdir.value else None
    code = split.value.value if split and split.value else None
    if split and code is None:
        return Found(unknown="`env -S` splits a string only run time knows")
    if name == "xargs" and (replaced := given.named("I", "i", "--replace")):
        mark = replaced.value.value if replaced.value and replaced.value.value else "{}"
        rest = [Word(None, raw=w.raw) if mark in (w.value or mark) else w for w in rest]
    return _after_options(name, spec, rest, cwd, code)


def _after_options(
    name: str, spec: _Wrapper, words: list[Word], cwd: str | None, code: str | None
) -> Found:
    skipped, words = words[: spec.positionals], words[spec.positionals :]
    if len(skipped) < spec.positionals:
        return Found()
    if code is not None:
        found = _code("env -S", [literal(code), *words], label="env -S")
        return replace(found, transparent=True)
    if name == "coproc" and any(w.value in ("{", "(") for w in words[:2]):
        # `coproc [NAME] { ...; }`: tree-sitter reads the group as plain words
        return Found(unknown="`coproc` runs a compound command hookline cannot read")
    if name == "xargs":
        inner = tuple(words) or (literal("echo"),)
        return Found((inner,), label=name, wrapper=True, transparent=True, more_args=True)
    if not words:
        return Found()
    return Found((tuple(words),), wrapper=True, transparent=spec.transparent, cwd=cwd)


def _flock(words: list[Word]) -> Found:
    """``flock FILE CMD ARGS``, ``flock FILE -c CODE``; ``flock 9`` runs nothing."""
    if len(words) < 2:
        return Found()
    if words[1].value in ("-c", "--command"):
        return replace(_code("flock", words[2:3], label="flock -c"), wrapper=True)
    return Found((tuple(words[1:]),), wrapper=True)


def _env_assignments(words: list[Word]) -> str:
    """Drops ``env``'s ``-`` and ``NAME=value`` words from ``words``; why they make what runs
    unknowable, if they do."""
    while words:
        value = words[0].value
        if value is None:
            return "an `env` argument is not known before it runs"
        if value != "-" and not _ASSIGNMENT.match(value):
            break
        variable = value.split("=", 1)[0].rstrip("+")
        if value != "-" and changes_what_runs(variable):
            return f"`env` sets {variable}, which changes what runs"
        words.pop(0)
    return ""


def _take(words: list[Word]) -> str | None:
    return words.pop(0).value if words else None


def _values(words: list[Word] | tuple[Word, ...]) -> list[str] | None:
    values = [w.value for w in words]
    return None if None in values else [v for v in values if v is not None]


def _code(name: str, words: tuple[Word, ...] | list[Word], *, label: str) -> Found:
    values = _values(words)
    if values is None:
        return Found(unknown=f"`{label}` runs a string only run time knows")
    return Found(code=" ".join(values), label=label, wrapper=True)


def _shell(name: str, args: tuple[Word, ...]) -> Found:
    """``bash -c CODE``: the code string (the first word after the options, which may also
    follow ``-c``: ``bash -c -x CODE``, ``bash -c -- CODE``); other forms run a file or stdin
    (see code_source)."""
    words, code_flag = list(args), False
    while words and (words[0].value or "").startswith(("-", "+")) and words[0].value != "-":
        flag = words.pop(0).value or ""
        if flag == "--":
            break
        if flag in ("-o", "+o", "--rcfile", "--init-file", "-O", "+O"):
            _take(words)
        code_flag |= re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", flag) is not None
    if code_flag:
        return _code(name, words[:1], label=f"{name} -c") if words else Found()
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


_WATCH = Options.of(
    "bcegptwx",
    "qn",
    "--beep --color --errexit --chgexit --precise --no-title --no-wrap --exec",
    "--equexit --interval",
    attached="d",
    long_attached="--differences",
)


def _watch(args: tuple[Word, ...]) -> Found:
    """``watch [options] CODE...``: the words joined are run by ``sh -c``, or (``-x``) exec'd."""
    given = read(args, _WATCH, first_operand_ends=True)
    if unknown := given.unknown:
        return Found(unknown=f"`watch` has an option hookline does not know: {unknown.shown}")
    words = list(given.operands)
    if not words:
        return Found()
    if given.named("x", "--exec"):
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
