"""A ``git push`` read for the dangerous tier: whether it may force, and where it writes.

``judge(command, folder)`` reads ``git [global options] push [options] [remote [refspec...]]``
with git's global options split as git splits them (``hookline.permissions.bash._git``), and
says whether the push may rewrite or delete a branch: ``-f``/``--force``,
``--force-with-lease``, ``--force-if-includes``, ``--mirror``, ``--delete``/``-d``, ``--prune``
(GNU-style abbreviations included: ``--force-w``, ``--mirr``), a ``+`` refspec, a ``-c`` setting
(``remote.<name>.mirror``, ``remote.<name>.push``), an option hookline does not know, or a word
only run time knows. Any push, forced or not, is proven only when every destination is a
literal name that is not a protected branch: ``main``, ``master`` and the repository's default
branch (what the clone recorded in ``refs/remotes/<remote>/HEAD``), matched the way git
resolves a short name (``heads/main``, ``refs/heads/main``, ``HEAD:main``, ``+x:main``,
``:main``, ``--delete main`` all reach ``main``). No refspec (git takes it from the
configuration), ``@``, ``HEAD``, a glob, ``:`` (matching branches) and ``--all``/``--branches``/
``--mirror`` are not proven; ``--tags`` alone pushes tags only, and is.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

import hookline.permissions.bash._git as gitwords
from hookline.permissions.bash import Command
from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._words import Word

__all__ = ["Push", "judge", "protected_branches"]

_FORCE = frozenset(
    {"--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune"}
)
_EVERYTHING = frozenset({"--all", "--branches", "--mirror"})
_OPTIONS = Options.of(
    "fdnquv46",
    "o",
    "--all --branches --prune --mirror --dry-run --porcelain --delete --tags --follow-tags "
    "--no-follow-tags --atomic --no-atomic --force --force-if-includes --no-force-if-includes "
    "--set-upstream --thin --no-thin --quiet --verbose --progress --no-progress --verify "
    "--no-verify --ipv4 --ipv6 --no-signed --no-force-with-lease --no-recurse-submodules",
    "--push-option --receive-pack --exec --repo",
)
#: Options whose value is optional and only ever attached (``--signed=if-asked``).
_ATTACHED = ("--force-with-lease", "--signed", "--recurse-submodules")
_KNOWN_LONG = _OPTIONS.long_flags | _OPTIONS.long_values
_MAIN = ("main", "master")
_RULES = (
    "{}",
    "refs/{}",
    "refs/tags/{}",
    "refs/heads/{}",
    "refs/remotes/{}",
    "refs/remotes/{}/HEAD",
)


@dataclass(frozen=True, slots=True)
class Push:
    """What a push was found to do: why it may force ("" if it cannot), what is certainly
    catastrophic ("" if nothing), and why its destinations are not proven ("" when every one
    is a literal branch that is not protected)."""

    may_force: str = ""
    catastrophic: str = ""
    unproven: str = ""


def judge(command: Command, folder: str | None) -> Push | None:
    """The push ``command`` makes (None when it is not ``git push``); ``folder`` is where it
    runs (None when only run time knows), to find the repository's default branch."""
    if command.name != "git":
        return None
    git = gitwords.split(command.args)
    if git.subcommand not in ("push", "send-pack"):
        return None
    attached, rest = _optional_values(git.args)
    given = read(rest, _OPTIONS)
    names = {o.name for o in given.options} | attached
    forcing = sorted((names & _FORCE) | ({"f", "d"} & names))
    may = _may_force(forcing, given.unknown, git, command)
    refspecs = given.operands[1:]
    if runtime := next((o.value for o in given.options if not o.name and o.value), None):
        return Push(may, "", f"{may or 'a push'}: `{runtime.raw}` is only known at run time")
    everything = names & _EVERYTHING
    if everything:
        what = f"`git push {sorted(everything)[0]}` may force every branch"
        return Push(
            may,
            what if forcing else "",
            f"`git push {sorted(everything)[0]}` pushes every branch, the protected ones too",
        )
    if not refspecs:
        if "--tags" in names and not may:
            return Push()  # tags only
        said = "names no branch (git takes it from its settings)"
        return Push(may, "", f"{may}, and {said}" if may else f"the push {said}")
    branches = protected_branches(_repository(git, folder))
    return _refspecs(refspecs, may, surely=bool(forcing), branches=branches)


def _forces(word: Word) -> bool:
    """Whether a refspec forces on its own: ``+src:dst``, or deletes: ``:dst``."""
    return word.value is None or word.value.startswith(("+", ":"))


def _optional_values(words: tuple[Word, ...]) -> tuple[set[str], list[Word]]:
    """Drops the options whose value is optional and attached (``--force-with-lease[=...]``,
    also abbreviated: ``--force-w``); their names, and the other words."""
    names: set[str] = set()
    rest: list[Word] = []
    for index, word in enumerate(words):
        value = word.value or ""
        if value == "--":
            rest += words[index:]
            break
        given = value.partition("=")[0]
        full = [n for n in _ATTACHED if n == given or (len(given) > 2 and n.startswith(given))]
        others = [n for n in _KNOWN_LONG if n.startswith(given)] if given.startswith("--") else []
        if value.startswith("--") and (given in _ATTACHED or (full and not others)):
            names.add(full[0] if given not in _ATTACHED else given)
        else:
            rest.append(word)
    return names, rest


def _may_force(forcing: list[str], unknown: object, git: gitwords.Git, command: Command) -> str:
    if forcing:
        return f"`git push {_shown(forcing[0])}` may rewrite or delete branches"
    if unknown is not None or git.unknown:
        return "the push has an option hookline does not know"
    if git.config:
        return "`git -c` settings may make the push force (`remote.<name>.mirror`)"
    if command.more_args:
        return "the push gets more arguments at run time"
    return ""


def _shown(name: str) -> str:
    return name if name.startswith("--") else f"-{name}"


def _refspecs(
    refspecs: tuple[Word, ...], may: str, *, surely: bool, branches: frozenset[str]
) -> Push:
    """Each refspec's destination (``src:dst``, ``+src:dst``, ``:dst``, ``dst`` alone, or the
    name ``--delete`` deletes) must be one literal branch that is not protected."""
    for word in refspecs:
        if word.value is None:
            why = may or "a refspec is only known at run time"
            return Push(why, "", f"{why}: `{word.raw}` is only known at run time")
        why = may or (f"the refspec `{word.value}` forces or deletes" if _forces(word) else "")
        _, colon, destination = word.value.lstrip("+").rpartition(":")
        target = destination if colon else word.value.lstrip("+")
        if not target or target in ("@", "HEAD") or any(c in target for c in "*~^@:?[\\"):
            said = f"`{word.value}` does not name one literal branch"
            return Push(why, "", f"{why}, and {said}" if why else f"the push's destination {said}")
        if hit := _protected(target, branches):
            what = f"a forced push to (or deletion of) `{hit}`"
            sure = surely or _forces(word)
            said = f"to the protected branch `{hit}`"
            return Push(why, what if sure else "", f"{why}, {said}" if why else f"a push {said}")
    return Push(may)


def _protected(target: str, branches: frozenset[str]) -> str:
    """The protected branch ``target`` resolves to the way git resolves a short name, or ""."""
    refs = {rule.format(target).casefold() for rule in _RULES}  # a remote may ignore case
    return next((b for b in sorted(branches) if f"refs/heads/{b}".casefold() in refs), "")


def _repository(git: gitwords.Git, folder: str | None) -> str | None:
    """The ``.git`` folder of the repository the push runs in; None when it cannot be found."""
    if folder is None:
        return None
    where = folder
    for option in git.options:
        value = option.value.value if option.value else None
        if option.name == "-C":
            if value is None:
                return None
            where = posixpath.normpath(posixpath.join(where, value))
        elif option.name == "--git-dir":
            return None if value is None else posixpath.join(where, value)
    while True:
        candidate = posixpath.join(where, ".git")
        if os.path.exists(candidate):
            return _gitdir(candidate)
        if where in ("/", ""):
            return None
        where = posixpath.dirname(where)


def _gitdir(path: str) -> str | None:
    if os.path.isdir(path):
        return path
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read(4096)
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    linked = posixpath.join(posixpath.dirname(path), text[7:].strip())
    common = posixpath.join(linked, "commondir")
    try:
        with open(common, encoding="utf-8") as file:
            return posixpath.normpath(posixpath.join(linked, file.read(4096).strip()))
    except OSError:
        return linked


def protected_branches(gitdir: str | None) -> frozenset[str]:
    """``main``, ``master``, and the default branch each remote's ``HEAD`` names in
    ``gitdir`` (``refs/remotes/origin/HEAD``: ``ref: refs/remotes/origin/develop``)."""
    found = set(_MAIN)
    remotes = posixpath.join(gitdir, "refs", "remotes") if gitdir else ""
    try:
        names = os.listdir(remotes) if remotes else []
    except OSError:
        names = []
    for remote in names:
        try:
            with open(posixpath.join(remotes, remote, "HEAD"), encoding="utf-8") as file:
                text = file.read(1024).strip()
        except OSError:
            continue
        prefix = f"ref: refs/remotes/{remote}/"
        if text.startswith(prefix):
            found.add(text[len(prefix) :])
    return frozenset(found)
