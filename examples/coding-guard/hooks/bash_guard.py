"""Bash rules: no delete outside the workspace, no force push to a protected branch, no secret
named on the line.

The line is read by hookline's Bash analysis (``hookline.permissions.bash``), not matched as
text: every command it will run is seen, under ``sudo``, ``env``, ``timeout`` and ``xargs``,
inside ``bash -c`` and ``$(...)``, with quotes removed (``r''m`` is ``rm``) and the folder a
literal ``cd`` took it to. Paths are resolved as the file system will (``~``, ``..``, globs,
symlinks). What only run time knows — ``rm -rf "$DIR"``, ``$CMD``, data piped into a shell —
is refused, saying why: a guard that cannot see a target cannot vouch for it.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from itertools import pairwise

from file_guard import SECRET_ADVICE, inside, is_secret

from hookline.permissions import DANGEROUS, targets
from hookline.permissions.bash import Command, Options, Word, analyze, read_options

#: Branches no force push (or deletion) may reach; ``fnmatch`` patterns.
PROTECTED_BRANCHES = ("main", "master", "release/*")
#: Programs that delete the files they are given.
DELETERS = frozenset({"rm", "rmdir", "unlink", "shred"})
_DELETER_OPTIONS = Options.of(
    "dfiIrRvuxz",
    "ns",
    "--recursive --force --dir --verbose --interactive --one-file-system --preserve-root "
    "--no-preserve-root --remove --zero --exact --ignore-fail-on-non-empty --parents",
    "--iterations --size --random-source",
)
_FIND_DELETES = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
#: hookline's own dangerous-tier check: ``/``, system folders, home, or all of a workspace.
_WIPE = next(danger for danger in DANGEROUS if danger.name == "rm-root")
#: Options of ``git`` itself that take the next word.
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
#: Options of ``git push`` that take the next word.
_PUSH_VALUED = frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"})
#: The path-like pieces of a word (``open('.env')`` holds ``.env``).
_PIECES = re.compile(r"[^\s'\"`()=,;:<>|&{}$]+")


@dataclass(frozen=True, slots=True)
class Place:
    """Where the line runs: its folder, the workspace (real path) and the home folder."""

    cwd: str
    workspace: str
    home: str


def refuse(command: str, *, cwd: str, workspace: str, home: str) -> str | None:
    """Why this Bash line must not run, or None."""
    if named := next((p for p in _PIECES.findall(command) if is_secret(p)), None):
        return (
            f"coding-guard: this line names {named}, a secret file; {SECRET_ADVICE} To write "
            "the name into a file (a .gitignore), use Edit."
        )
    analysis = analyze(command)
    if analysis.unknown:
        return (
            f"coding-guard: cannot tell what this line runs ({'; '.join(analysis.unknown)}), so "
            "it cannot rule out a delete outside the workspace, a force push or a secret read. "
            "Write the commands out with literal names."
        )
    place = Place(posixpath.normpath(cwd), os.path.realpath(workspace), home)
    if _WIPE.matches("Bash", {"command": command}, cwd=place.cwd, home=home, roots=(workspace,)):
        return f"coding-guard: this line is {_WIPE.about}. Delete single folders inside it."
    for check in (_deletes_outside, _force_pushes, _names_a_secret):
        for part in analysis.commands:
            if reason := check(part, place):
                return reason
    return None


# -- deleting ------------------------------------------------------------------------------


def _deletes_outside(command: Command, place: Place) -> str | None:
    """A delete (``rm``, ``find -delete``, ...) of a path outside the workspace, of the
    workspace itself, or of a path only run time knows."""
    if command.name in DELETERS:
        words, why = _deleter_targets(command)
        if why:
            return _cannot_tell(command, why)
        start_ok = False
    elif command.name == "find" and _find_deletes(command):
        words, start_ok = _find_starts(command), True  # it deletes what lies below
    else:
        return None
    for word in words:
        judged = _judge_target(word, command, place, start_ok=start_ok)
        if judged is None:
            continue
        kind, what = judged
        if kind == "unknown":
            return _cannot_tell(command, what)
        return (
            f"coding-guard: `{_shown(command)}` would delete {what}. Deleting is allowed only "
            f"inside the workspace: delete a path under {place.workspace}, or ask the user to "
            "delete this themselves."
        )
    return None


def _deleter_targets(command: Command) -> tuple[list[Word], str]:
    """The words naming what an ``rm`` (``rmdir``, ...) deletes, or why only run time knows."""
    under_find = any(label.startswith("find") for label in command.via)
    # under find -exec, `{}` stands for what find finds: find's start folders are judged instead
    args = [arg for arg in command.args if not (under_find and arg.raw == "{}")]
    given = read_options(args, _DELETER_OPTIONS)
    unknown = next((option for option in given.options if not option.name), None)
    if unknown is not None:
        return [], f"`{unknown.shown}` is only known at run time"
    if command.more_args and not under_find:
        return [], "its targets arrive at run time (xargs)"
    return list(given.operands), ""


def _find_deletes(command: Command) -> bool:
    values = [arg.value for arg in command.args]
    return "-delete" in values or any(
        value in _FIND_DELETES and posixpath.basename(following or "") in DELETERS
        for value, following in pairwise(values)
    )


def _find_starts(command: Command) -> list[Word]:
    """The folders ``find`` starts from (before its first test), ``.`` when none."""
    starts: list[Word] = []
    for word in command.args:
        if word.value in ("-H", "-L", "-P") and not starts:
            continue
        if word.value is not None and word.value.startswith(("-", "(", "!")):
            break
        starts.append(word)
    return starts or [Word(".", raw=".", mask="q")]


def _judge_target(
    word: Word, command: Command, place: Place, *, start_ok: bool
) -> tuple[str, str] | None:
    """``("outside", what)`` for a path ``word`` names outside the workspace (or the workspace
    itself, unless ``start_ok``), ``("unknown", why)`` when it cannot be followed, None when
    every path it names lies inside."""
    where = targets.folder(command, place.cwd, place.home)
    if where is None:
        return "unknown", "it runs after a cd to a folder only run time knows"
    if word.value is None:
        return "unknown", f"`{word.raw}` is only known at run time"
    try:
        paths = targets.expand(word, where, place.home)
    except targets.TooManyMatches:
        return "unknown", f"`{word.raw}` matches too many files to check"
    for path in paths:
        real = targets.located(path)
        if isinstance(real, targets.Unresolved):
            return "unknown", real.reason
        shown = path if real == path else f"{path} (really {real})"
        if real == place.workspace and not start_ok:
            return "outside", f"the workspace itself, {shown}"
        if not inside(real, place.workspace):
            return "outside", f"{shown}, outside the workspace {place.workspace}"
    return None


def _cannot_tell(command: Command, why: str) -> str:
    return (
        f"coding-guard: cannot tell what `{_shown(command)}` deletes: {why}. Write each path out "
        "literally, inside the workspace."
    )


# -- pushing -------------------------------------------------------------------------------


def _force_pushes(command: Command, place: Place) -> str | None:
    """``git push`` forcing (``-f``, ``--force``, ``--force-with-lease``, ``+ref``) onto, or
    deleting, a protected branch; or one whose branch only run time knows."""
    words = _push_words(command)
    if words is None:
        return None
    if isinstance(words, str):
        return _push_unknown(command, words)
    push = _Push.read(words)
    if push.mirror or (push.every and push.force):
        return _push_refused(command, "force-push every branch, the protected ones included")
    if push.force and len(push.operands) < 2:
        return _push_unknown(command, "with no branch named it pushes the current one")
    for spec in push.operands[1:]:
        if why := _refspec_problem(spec, push):
            return _push_refused(command, why)
    return None


def _push_words(command: Command) -> list[str] | str | None:
    """The words after ``push`` of a ``git push``; a reason if the subcommand is unknowable."""
    if command.name != "git":
        return None
    values = [arg.value for arg in command.args]
    index = 0
    while index < len(values):
        value = values[index]
        if value in _GIT_VALUED:
            index += 2
            continue
        if value is None:
            return "a word of it is only known at run time"
        if not value.startswith("-"):
            break
        index += 1
    if index >= len(values) or values[index] != "push":
        return None
    rest = values[index + 1 :]
    if any(value is None for value in rest):
        return "a word of it is only known at run time"
    return [value for value in rest if value is not None]


@dataclass(frozen=True, slots=True)
class _Push:
    """A ``git push`` read: what it forces, deletes, and the remote and refspecs."""

    operands: tuple[str, ...]
    force: bool = False
    delete: bool = False
    mirror: bool = False
    every: bool = False

    @classmethod
    def read(cls, words: list[str]) -> _Push:
        operands: list[str] = []
        flags: set[str] = set()
        queue = list(words)
        while queue:
            word = queue.pop(0)
            if word == "--":
                operands += queue
                break
            if word.startswith("--"):
                name = word.partition("=")[0]
                flags.add(_long_flag(name))
                if name in _PUSH_VALUED and "=" not in word and queue:
                    queue.pop(0)
            elif word.startswith("-") and word != "-":
                letters, _, value = word[1:].partition("o")
                flags.update(f"-{letter}" for letter in letters)
                if "o" in word[1:] and not value and queue:
                    queue.pop(0)
            else:
                operands.append(word)
        return cls(
            tuple(operands),
            force=bool({"--force", "-f"} & flags),
            delete=bool({"--delete", "-d"} & flags),
            mirror="--mirror" in flags,
            every="--all" in flags or "--branches" in flags,
        )


def _long_flag(name: str) -> str:
    """A long option as git reads it: an abbreviation stands for the whole name, and every
    kind of force counts as ``--force``."""
    if len(name) >= 4 and any(
        full.startswith(name) for full in ("--force", "--force-with-lease", "--force-if-includes")
    ):
        return "--force"
    for full in ("--delete", "--mirror", "--all", "--branches"):
        if len(name) >= 4 and full.startswith(name):
            return full
    return name


def _refspec_problem(spec: str, push: _Push) -> str | None:
    plus = spec.startswith("+")
    source, colon, destination = spec.removeprefix("+").rpartition(":")
    branch = (destination if colon else spec.removeprefix("+")).removeprefix("refs/heads/")
    if branch in ("HEAD", "@") and (push.force or plus):
        return "force-push the current branch, which may be a protected one; name the branch"
    if not _protected(branch):
        return None
    if push.force or plus:
        return f"force-push {branch}, a protected branch"
    if push.delete or (colon and not source):
        return f"delete {branch}, a protected branch"
    return None


def _protected(branch: str) -> bool:
    if "*" in branch:  # a glob refspec may cover a protected branch
        return True
    return any(fnmatchcase(branch, pattern) for pattern in PROTECTED_BRANCHES)


def _push_refused(command: Command, what: str) -> str:
    return (
        f"coding-guard: `{_shown(command)}` would {what} ({', '.join(PROTECTED_BRANCHES)} are "
        "protected): that rewrites history others have pulled. Push your work to a new branch "
        "(git push origin HEAD:my-fix) and open a pull request, or ask the user."
    )


def _push_unknown(command: Command, why: str) -> str:
    return (
        f"coding-guard: cannot tell where `{_shown(command)}` pushes: {why}. Name the remote "
        "and the branch literally (git push --force origin my-branch)."
    )


# -- secrets -------------------------------------------------------------------------------


def _names_a_secret(command: Command, place: Place) -> str | None:
    """A word of the command (argument or redirect) that names a secret file once its quotes
    are removed (``.e""nv``), through a glob (``.en?``) or through a symlink. (``refuse`` has
    already looked for secret names in the line as written.)"""
    words = [*command.args, *(r.target for r in command.redirects if r.target is not None)]
    named = next((p for w in words for p in _PIECES.findall(w.value or "") if is_secret(p)), None)
    where = targets.folder(command, place.cwd, place.home)
    if named is None and where is not None:
        try:
            paths = (p for word in words for p in _real_paths(word, where, place))
            named = next((p for p in paths if is_secret(p)), None)
        except targets.TooManyMatches:
            return f"coding-guard: `{_shown(command)}` names too many files to check for secrets."
    if named is None:
        return None
    return f"coding-guard: `{_shown(command)}` reaches {named}, a secret file; {SECRET_ADVICE}"


def _real_paths(word: Word, where: str, place: Place) -> list[str]:
    """The paths ``word`` names (globs expanded) and their real paths."""
    if word.value is None:
        return []
    paths = targets.expand(word, where, place.home)
    return [p for path in paths for p in (path, os.path.realpath(path))]


def _shown(command: Command) -> str:
    return " ".join([command.path or command.name or "?", *(arg.raw for arg in command.args)])
