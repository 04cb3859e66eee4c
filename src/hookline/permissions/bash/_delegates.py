"""Programs that hand their words to something else to run: package runners, ``make``, ``ssh``,
GNU ``parallel``, util-linux ``script`` and ``expect``.

``runs(name, args)`` answers as ``hookline.permissions.bash._runners.runs`` does: the command
(``npx CMD``, ``npm exec -- CMD``), the shell code (``ssh HOST CMD``, ``parallel CMD ::: ARGS``,
``script -c CMD``, ``npx -c CODE``), or why it cannot be read (``make --eval``, ``expect -c``,
an ``ssh -o`` that runs a local command).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._runners import Runs
from hookline.permissions.bash._words import Word

__all__ = ["runs"]


def runs(name: str, args: tuple[Word, ...]) -> Runs | None:
    """What ``name args`` hands on to run; None when it is no such program."""
    if name in _PACKAGE_RUNNERS or (name in _PACKAGE_MANAGERS and args and args[0].value in _EXEC):
        return _package_runner(name, args if name in _PACKAGE_RUNNERS else args[1:])
    if name == "make":
        return _make(args)
    if name in _REMOTE_OR_TEMPLATE:
        return _REMOTE_OR_TEMPLATE[name](args)
    return None


_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "pnpx"})
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_EXEC = frozenset({"exec", "x", "dlx"})
_PACKAGE_VALUES = frozenset({"-p", "--package", "-w", "--workspace", "--prefix", "-C", "--dir"})


def _package_runner(name: str, args: tuple[Word, ...]) -> Runs:
    """``npx CMD``, ``npm exec -- CMD``, ``pnpm dlx CMD``: the command they run, or the shell
    code of ``-c``/``--call``."""
    words = list(args)
    while words:
        value = words[0].value
        if value is None:
            return Runs(unknown=f"`{name}` has an argument only run time knows")
        if value in ("-c", "--call") or value.startswith("--call="):
            code = (
                value.partition("=")[2]
                if "=" in value
                else (words[1].value if len(words) > 1 else "")
            )
            if code is None:
                return Runs(unknown=f"`{name} -c` runs a command only run time knows")
            return Runs(code=code, label=f"{name} -c")
        if value == "--":
            words.pop(0)
            break
        if not value.startswith("-"):
            break
        words = words[2:] if value in _PACKAGE_VALUES else words[1:]
    return Runs(command=tuple(words), label=name) if words else Runs()


_SSH = Options.of("46AaCfGgKkMNnqsTtVvXxYy", "BbcDEeFIiJLlmOopQRSWw")
_SSH_LOCAL = re.compile(
    r"(proxycommand|localcommand|permitlocalcommand|knownhostscommand"
    r"|proxyusefdpass|include|match)\b.*",
    re.IGNORECASE,
)


def _ssh(args: tuple[Word, ...]) -> Runs | None:
    """``ssh HOST CMD``: the remote command, shell code; options that run a local command."""
    given = read(args, _SSH, first_operand_ends=True)
    if unknown := given.unknown:
        return Runs(unknown=f"`ssh` has an option hookline does not know: {unknown.shown}")
    for option in given.options:
        setting = option.value.value if option.name == "o" and option.value else ""
        if setting is None or _SSH_LOCAL.match(setting or ""):
            return Runs(unknown=f"`ssh -o {setting or '...'}` may run a local command")
    return _joined("ssh", given.operands[1:])


_PARALLEL = Options.of(
    "0kqvXmuge",
    "jNnIadSE",
    "--null --keep-order --quote --verbose --dry-run --will-cite --tag --bar --eta --progress "
    "--group --ungroup --line-buffer --halt-on-error",
    "--jobs --max-args --arg-file --delimiter --colsep --halt --results --joblog --timeout "
    "--retries --sshlogin",
)


def _parallel(args: tuple[Word, ...]) -> Runs | None:
    """GNU ``parallel CMD ::: ARGS``: the command template, run by a shell."""
    given = read(args, _PARALLEL, first_operand_ends=True)
    if unknown := given.unknown:
        return Runs(unknown=f"`parallel` has an option hookline does not know: {unknown.shown}")
    if given.named("S", "--sshlogin", "--results", "--joblog"):
        return Runs(unknown="`parallel` runs on other hosts or writes files it names")
    words = list(given.operands)
    end = next((i for i, w in enumerate(words) if (w.value or "").startswith(":::")), len(words))
    if end == 0:
        return Runs(unknown="`parallel` runs commands it reads from its input")
    found = _joined("parallel", words[:end])
    if found is None or found.code is None:
        return found
    # each input replaces `{}`, `{.}`, `{1}`, ... (or is appended): a word only run time knows
    code = _PLACEHOLDER.sub("${PARALLEL_ARG}", found.code) + " ${PARALLEL_ARG}"
    return Runs(code=code, label="parallel")


_PLACEHOLDER = re.compile(r"\{[^{}\s]*\}")


_SCRIPT = Options.of(
    "aefqhV",
    "IOBTmEoc",
    "--append --return --flush --force --quiet",
    "--log-in --log-out --log-io --log-timing --logging-format --command --echo --output-limit",
    attached="t",
    long_attached="--timing",
)


def _script(args: tuple[Word, ...]) -> Runs | None:
    """util-linux ``script -c CMD``: shell code (its options in any order, abbreviated too)."""
    given = read(args, _SCRIPT)
    if unknown := given.unknown:
        return Runs(unknown=f"`script` has an option hookline does not know: {unknown.shown}")
    code = given.named("c", "--command")
    return _joined("script -c", [code.value] if code and code.value else []) if code else None


def _joined(label: str, words: Sequence[Word]) -> Runs | None:
    if not words:
        return None
    values = [w.value for w in words]
    if None in values:
        return Runs(unknown=f"`{label}` runs a command only run time knows")
    return Runs(code=" ".join(v for v in values if v is not None), label=label)


def _expect(args: tuple[Word, ...]) -> Runs | None:
    return (
        Runs(unknown="`expect -c` runs Tcl code hookline cannot read")
        if any((a.value or "-c").startswith("-c") for a in args)
        else None
    )


_REMOTE_OR_TEMPLATE: Final = {
    "ssh": _ssh,
    "parallel": _parallel,
    "script": _script,
    "expect": _expect,
}


def _make(args: tuple[Word, ...]) -> Runs | None:
    """``make`` runs its makefile (a file); ``--eval`` and assignments that set the shell or
    hold a substitution give it code on the line."""
    for word in args:
        value = word.value
        if value is None:
            return Runs(unknown=f"`make` has an argument only run time knows (`{word.raw}`)")
        if value in ("-E", "--eval") or value.startswith(("--eval=", "--ev")):
            return Runs(unknown="`make --eval` runs makefile code hookline cannot read")
        name, eq, setting = value.partition("=")
        if (
            eq
            and not value.startswith("-")
            and (
                name.strip(" :+?") in ("SHELL", "MAKESHELL", ".SHELLFLAGS", "MAKEFLAGS")
                or "$" in setting
            )
        ):
            return Runs(unknown=f"`make {name}=` sets code hookline cannot read")
    return None
