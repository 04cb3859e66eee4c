"""Launchers: programs whose words, after their own options, are a command they run (``runuser
-u bob -- rm x``, ``systemd-run rm x``, ``uv run pytest``, ``bundle exec rake``), or an option's
value is shell code they run (``runuser -c CODE``, ``sg GROUP -c CODE``, ``nix-shell --run``).

``runs(name, args)`` reads one with its option table: the command it runs, the code, or why that
cannot be read (an option the table does not list may take the next word as its value). The
command is judged like a command on the line; a launcher is not looked through by allow rules
or the read-only tier (it changes who, where or with what the command runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from hookline.permissions.bash.options import Options, read
from hookline.permissions.bash.runners import Runs
from hookline.permissions.bash.words import Word

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


_RESOURCES = ("--as --core --cpu --data --fsize --locks --memlock --msgqueue --nice --nofile "
              "--nproc --rss --rtprio --rttime --sigpending --stack")  # fmt: skip
_LAUNCHERS: Final = {
    "runuser": _Launcher(Options.of("lmpfP", "ugGcsw", "--login --preserve-environment --pty",
                                    "--user --group --supp-group --command --session-command "
                                    "--shell --whitelist-environment"),
                         code=("c", "--command", "--session-command")),
    "sg": _Launcher(Options.of("", "c"), positionals=1, code=("c",)),
    "setpriv": _Launcher(Options.of("d", "", "--dump --no-new-privs --clear-groups --keep-groups "
                                    "--init-groups --reset-env", "--reuid --regid --groups "
                                    "--inh-caps --ambient-caps --bounding-set --securebits "
                                    "--pdeathsig --selinux-label --apparmor-profile")),
    "nsenter": _Launcher(Options.of("aFZ", "tSGrw", "--all --no-fork --follow-context "
                                    "--preserve-credentials", "--target --setuid --setgid "
                                    "--root --wd", attached="muinpUCT")),
    "systemd-run": _Launcher(Options.of("qGdPtS", "upMEr", "--user --system --scope --quiet "
                                        "--wait --pipe --pty --collect --same-dir --no-block "
                                        "--no-ask-password --shell --remain-after-exit",
                                        "--unit --property --description --slice --machine "
                                        "--host --setenv --uid --gid --nice "
                                        "--working-directory --service-type")),
    "prlimit": _Launcher(Options.of("", "p", "--noheadings --raw --verbose",
                                    f"--pid --output {_RESOURCES}", attached="AcdefilmnqrstuvxyT")),
    "xvfb-run": _Launcher(Options.of("a", "nsfpwe", "--auto-servernum", "--server-num "
                                     "--server-args --auth-file --xauth-protocol --wait "
                                     "--error-file")),
    "dbus-launch": _Launcher(Options.of("", "", "--sh-syntax --csh-syntax --auto-syntax "
                                        "--exit-with-session --exit-with-x11",
                                        "--autolaunch --config-file")),
    "ssh-agent": _Launcher(Options.of("cDdks", "aEPt")),
    "cgexec": _Launcher(Options.of("", "g", "--sticky")),
    "setarch": _Launcher(Options.of("vRFZLXBIST3", "", "--verbose --addr-no-randomize "
                                    "--fdpic-funcptrs --mmap-page-zero --addr-compat-layout "
                                    "--read-implies-exec --32bit --short-inode --whole-seconds "
                                    "--sticky-timeouts --3gb --4gb --uname-2.6"),
                         positionals=1),
    "uv": _Launcher(Options.of("q", "", "--quiet --no-sync --frozen --locked --isolated",
                               "--with --python --project --directory --package"), verb="run"),
    "poetry": _Launcher(Options.of("q", "", "--quiet --no-interaction", "--directory"),
                        verb="run"),
    "pipenv": _Launcher(verb="run"), "pdm": _Launcher(verb="run"), "hatch": _Launcher(verb="run"),
    "rye": _Launcher(verb="run"), "pixi": _Launcher(verb="run"), "devbox": _Launcher(verb="run"),
    "conda": _Launcher(Options.of("", "np", "--no-capture-output --live-stream",
                                  "--name --prefix --cwd"), verb="run"),
    "bundle": _Launcher(verb="exec"), "asdf": _Launcher(verb="exec"),
    "mise": _Launcher(verb="exec"), "direnv": _Launcher(verb="exec", positionals=1),
    "nix-shell": _Launcher(Options.of("", "pI", "--pure", "--packages --run --command"),
                           code=("--run", "--command")),
}  # fmt: skip


#: Programs that run commands in a language or session hookline does not read, when given
#: these words (a subcommand, or an option as written or starting a word): what they run
#: cannot be known.
_UNREADABLE: Final = {
    "tmux": frozenset({"new-session", "new", "new-window", "neww", "split-window", "splitw",
                       "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell",
                       "run", "send-keys", "send", "if-shell", "if", "pipe-pane", "pipep",
                       "display-popup", "popup", "source-file", "source", "-c"}),
    "screen": frozenset({"-X", "-c", "-d", "-D", "-m"}),
    "vim": frozenset({"-c", "--cmd", "-S", "-s", "-u", "+"}),
    "gdb": frozenset({"-ex", "--ex", "-x", "--x", "--eval-command", "-iex", "-ix", "--command",
                      "-batch", "--batch"}),
    "emacs": frozenset({"--eval", "-l", "--load", "-f", "--funcall", "--script", "-x"}),
}  # fmt: skip
_ALIASES: Final = {"nvim": "vim", "vi": "vim", "ex": "vim", "view": "vim", "gvim": "vim"}


def runs(name: str, args: tuple[Word, ...]) -> Runs | None:
    """What the launcher ``name`` runs from ``args``; None when ``name`` is no launcher or runs
    nothing here (``uv sync``)."""
    if (unreadable := _UNREADABLE.get(_ALIASES.get(name, name))) is not None:
        return _unreadable(name, unreadable, args)
    launcher = _LAUNCHERS.get(name)
    if launcher is None:
        return None
    words = list(args)
    if launcher.verb:
        if not words or words[0].value != launcher.verb:
            return None
        words.pop(0)
    given = read(words, launcher.options, first_operand_ends=True)
    if unknown := given.unknown:
        return Runs(unknown=f"`{name}` has an option hookline does not know: {unknown.shown}")
    code = next((o for o in given.options if o.name in launcher.code), None)
    rest = list(given.operands)[launcher.positionals :]
    if name == "sg" and rest:  # `sg GROUP [-c] COMMAND`: sh -c runs it
        return _joined(name, rest[1:] if rest[0].value == "-c" else rest)
    if code is not None:
        return _joined(name, [code.value] if code.value else [])
    return Runs(command=tuple(rest), label=name, wrapper=True) if rest else None


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
