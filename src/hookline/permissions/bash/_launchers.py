"""Launchers: programs whose words, after their own options, are a command they run (``runuser
-u bob -- rm x``, ``systemd-run rm x``, ``uv run pytest``, ``bundle exec rake``), or an option's
value is shell code they run (``runuser -c CODE``, ``sg GROUP -c CODE``, ``nix-shell --run``).

``runs(name, args)`` reads one with its option table: the command it runs, the code, or why that
cannot be read (an option the table does not list may take the next word as its value). The
command is judged like a command on the line; a launcher is not looked through by allow rules
or the read-only tier (it changes who, where or with what the command runs).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Final

from hookline._support.words import words
from hookline.permissions.bash._options import Options, Read, read
from hookline.permissions.bash._runners import SHELLS, Runs
from hookline.permissions.bash._words import Word

__all__ = ["runs"]


@dataclass(frozen=True, slots=True)
class _Launcher:
    options: Options = field(default_factory=Options)
    #: The subcommand that runs a command (``uv run``); "" when the program itself does.
    verb: str = ""
    #: Words before the command (``sg GROUP``, ``direnv exec DIR``).
    positionals: int = 0
    #: Options whose value is shell code.
    code: tuple[str, ...] = ()
    #: A word before the options, taken when it is not one (``setarch [ARCH] -R CMD``).
    before: int = 0
    #: Options after which nothing is run (``setpriv --dump``), space-separated.
    no_command: str = ""


_RESOURCES = (
    "--as --core --cpu --data --fsize --locks --memlock --msgqueue --nice --nofile --nproc --rss "
    "--rtprio --rttime --sigpending --stack"
)
_LAUNCHERS: Final = {
    "sg": _Launcher(Options.of("", "c"), positionals=1, code=("c",)),
    "setpriv": _Launcher(
        Options.of(
            "d",
            "",
            "--dump --nnp --no-new-privs --clear-groups --keep-groups --init-groups --reset-env",
            "--ruid --euid --rgid --egid --reuid --regid --groups --inh-caps --ambient-caps "
            "--bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile",
        ),
        no_command="d --dump",
    ),
    "nsenter": _Launcher(
        Options.of(
            "aFZ",
            "tSGW",
            "--all --no-fork --follow-context --preserve-credentials",
            "--target --setuid --setgid --wdns",
            attached="muinpUCTrw",
            long_attached="--mount --uts --ipc --net --pid --cgroup --user --time --root --wd",
        )
    ),
    "systemd-run": _Launcher(
        Options.of(
            "qGdPtSr",
            "upMEH",
            "--user --system --scope --quiet --wait --pipe --pty --collect --same-dir --no-block "
            "--no-ask-password --shell --remain-after-exit --slice-inherit --send-sighup "
            "--on-timezone-change --on-clock-change",
            "--unit --property --description --slice --machine --host --setenv --uid --gid "
            "--nice --working-directory --service-type --path-property --socket-property "
            "--timer-property --on-active --on-boot --on-startup --on-unit-active "
            "--on-unit-inactive --on-calendar",
        )
    ),
    "prlimit": _Launcher(
        Options.of(
            "",
            "po",
            "--noheadings --raw --verbose",
            "--pid --output",
            attached="cdefilmnqrstuvxy",
            long_attached=_RESOURCES,
        )
    ),
    "xvfb-run": _Launcher(
        Options.of(
            "a",
            "nsfpwe",
            "--auto-servernum",
            "--server-num --server-args --auth-file --xauth-protocol --wait --error-file",
        )
    ),
    "dbus-launch": _Launcher(
        Options.of(
            "",
            "",
            "--sh-syntax --csh-syntax --auto-syntax --exit-with-session --exit-with-x11",
            "--autolaunch --config-file",
        )
    ),
    "ssh-agent": _Launcher(Options.of("cDdks", "aEPt")),
    "cgexec": _Launcher(Options.of("", "g", "--sticky")),
    "setarch": _Launcher(
        Options.of(
            "vRFZLXBIST3",
            "",
            "--verbose --addr-no-randomize --fdpic-funcptrs --mmap-page-zero "
            "--addr-compat-layout --read-implies-exec --32bit --short-inode --whole-seconds "
            "--sticky-timeouts --3gb --4gb --uname-2.6 --list",
        ),
        before=1,
        no_command="--list",
    ),
    "uv": _Launcher(
        Options.of(
            "q",
            "",
            "--quiet --no-sync --frozen --locked --isolated",
            "--with --python --project --directory --package",
        ),
        verb="run",
    ),
    "poetry": _Launcher(Options.of("q", "", "--quiet --no-interaction", "--directory"), verb="run"),
    "pipenv": _Launcher(verb="run"),
    "pdm": _Launcher(verb="run"),
    "hatch": _Launcher(verb="run"),
    "rye": _Launcher(verb="run"),
    "pixi": _Launcher(verb="run"),
    "devbox": _Launcher(verb="run"),
    "conda": _Launcher(
        Options.of("", "np", "--no-capture-output --live-stream", "--name --prefix --cwd"),
        verb="run",
    ),
    "bundle": _Launcher(verb="exec"),
    "asdf": _Launcher(verb="exec"),
    "mise": _Launcher(verb="exec"),
    "direnv": _Launcher(verb="exec", positionals=1),
    "nix-shell": _Launcher(
        Options.of("", "pI", "--pure", "--packages --run --command"), code=("--run", "--command")
    ),
}


#: Programs that run commands in a language or session hookline does not read, when given
#: these words (a subcommand, or an option as written or starting a word): what they run
#: cannot be known.
_UNREADABLE: Final = {
    "tmux": words(
        "new-session new new-window neww split-window splitw respawn-pane respawnp respawn-window "
        "respawnw run-shell run send-keys send if-shell if pipe-pane pipep display-popup popup "
        "source-file source -c"
    ),
    "screen": frozenset({"-X", "-c", "-d", "-D", "-m"}),
    "vim": frozenset({"-c", "--cmd", "-S", "-s", "-u", "+"}),
    "emacs": frozenset({"--eval", "-l", "--load", "-f", "--funcall", "--script", "-x"}),
}
_ALIASES: Final = {"nvim": "vim", "vi": "vim", "ex": "vim", "view": "vim", "gvim": "vim"}


def runs(name: str, args: tuple[Word, ...]) -> Runs | None:
    """What the launcher ``name`` runs from ``args``; None when ``name`` is no launcher or runs
    nothing here (``uv sync``)."""
    if name == "gdb":
        return _gdb(args)
    if (unreadable := _UNREADABLE.get(_ALIASES.get(name, name))) is not None:
        return _unreadable(name, unreadable, args)
    if name == "runuser":
        return _runuser(args)
    launcher = _LAUNCHERS.get(name)
    if launcher is None:
        return None
    words = list(args)
    if launcher.verb:
        if not words or words[0].value != launcher.verb:
            return None
        words.pop(0)
    if launcher.before and words and not (words[0].value or "-").startswith("-"):
        words = words[launcher.before :]
    given = read(words, launcher.options, first_operand_ends=True)
    if why := _why_unreadable(name, given):
        return Runs(unknown=why)
    if any(o.name in launcher.no_command.split() for o in given.options):
        return None
    code = next((o for o in given.options if o.name in launcher.code), None)
    rest = list(given.operands)[launcher.positionals :]
    if name == "sg" and rest:  # `sg GROUP [-c] COMMAND`: sh -c runs it
        return _joined(name, rest[1:] if rest[0].value == "-c" else rest)
    if code is not None:
        return _joined(name, [code.value] if code.value else [])
    return Runs(command=tuple(rest), label=name, wrapper=True) if rest else None


def _why_unreadable(name: str, given: Read) -> str:
    if unknown := given.unknown:
        return f"`{name}` has an option hookline does not know: {unknown.shown}"
    if name == "systemd-run":  # `-p ExecStartPre=CMD` runs a command of its own
        for option in given.options:
            value = option.value.value if option.value else ""
            if option.name in _PROPERTIES and (value is None or "Exec" in value):
                return f"`systemd-run {option.shown}` may run a command hookline does not read"
    return ""


_PROPERTIES = frozenset(
    {"p", "--property", "--path-property", "--socket-property", "--timer-property"}
)
_RUNUSER = Options.of(
    "lmpfP",
    "ugGcsw",
    "--login --preserve-environment --pty --fast",
    "--user --group --supp-group --command --session-command --shell --whitelist-environment",
)


def _runuser(args: tuple[Word, ...]) -> Runs | None:
    """``runuser -u USER [--] CMD`` runs CMD; ``runuser [-] USER [-c CODE] [ARGS]`` runs a shell
    with ARGS (``-c``: the code). Its options may come anywhere before ``--``, as su's do."""
    given = read(args, _RUNUSER)
    if unknown := given.unknown:
        return Runs(unknown=f"`runuser` has an option hookline does not know: {unknown.shown}")
    shell = given.named("s", "--shell")
    if shell and posixpath.basename((shell.value and shell.value.value) or "?") not in SHELLS:
        return Runs(unknown="`runuser -s` runs the code with a program hookline does not read")
    code = given.named("c", "--command", "--session-command")
    operands = list(given.operands)
    if given.named("u", "--user"):
        return Runs(command=tuple(operands), label="runuser", wrapper=True) if operands else None
    if code is not None:
        return _joined("runuser", [code.value] if code.value else [])
    if operands and operands[0].value == "-":
        operands.pop(0)
    if len(operands) > 1:
        return Runs(unknown="`runuser USER ARGS` gives its words to a shell, which runs a file")
    return None


#: gdb's options that run gdb commands (a string, or a file of them), in full: gdb reads its
#: options with ``getopt_long_only``, so ``-eval-command``, ``--ev`` and ``-ex`` all count.
_GDB = ("command", "init-command", "eval-command", "init-eval-command", "batch", "batch-silent")
_GDB_SHORT = frozenset({"x", "ix", "ex", "iex"})


def _gdb(args: tuple[Word, ...]) -> Runs | None:
    for arg in args:
        value = arg.value
        name = (value or "").lstrip("-").partition("=")[0]
        if value is None or (
            value.startswith("-")
            and (name in _GDB_SHORT or (len(name) > 1 and any(g.startswith(name) for g in _GDB)))
        ):
            shown = arg.raw if value is None else value
            return Runs(unknown=f"`gdb {shown}` runs commands hookline cannot read")
    return None


def _unreadable(name: str, words: frozenset[str], args: tuple[Word, ...]) -> Runs | None:
    for arg in args:
        value = arg.value
        if (
            value is None
            or value in words
            or any(value.startswith(w) for w in words if w.startswith("-") or w == "+")
        ):
            shown = arg.raw if value is None else value
            return Runs(unknown=f"`{name} {shown}` runs commands hookline cannot read")
    return None


def _joined(name: str, words: list[Word]) -> Runs:
    values = [w.value for w in words]
    if None in values:
        return Runs(unknown=f"`{name}` runs a string only run time knows")
    return Runs(code=" ".join(v for v in values if v is not None), label=f"{name} -c")
