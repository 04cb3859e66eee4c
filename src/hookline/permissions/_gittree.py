"""Git commands that rewrite the work tree, and whether a rewrite may reach the protected set.

``rewrite(command)`` says what a git command rewrites in the files git tracks: the whole tree
(``checkout BRANCH``, ``switch``, ``reset --hard``/``--merge``/``--keep``, ``stash`` and
``stash pop/apply/branch``, ``merge``, ``pull``, ``cherry-pick``, ``revert``, ``rebase``,
``bisect``, ``read-tree -u``, ``checkout-index -a``, ``sparse-checkout``, ``filter-branch``, a
bare ``checkout -f``), the paths a pathspec names (``checkout [TREE] -- PATHS``, ``restore``,
``rm``, ``mv``, ``checkout-index PATHS``, ``stash push -- PATHS``), what a patch names
(``apply``, ``am``), or the untracked files ``clean`` deletes. Commands that change only the
index or history (``reset``, ``restore --staged``, ``rm --cached``, ``commit``, ``add``) rewrite
nothing here; a pathspec only run time knows, a glob or pathspec magic widens to the whole tree.

``why_protected(command, folder, protected, others_write)`` judges one: a rewrite of tracked
files asks when the repository's index (``hookline.permissions._gitindex``) tracks a protected
path within its reach, or cannot be read or found; a patch asks when one of its file headers
names a protected path (it may create files the index does not track), or when it comes from
stdin or a file another command of the line may write first; ``clean`` asks when a protected
entry exists within its reach. A tree the command brings in (another commit, a pull) may hold
protected paths the index does not track now: that is left to the sandbox, which keeps the
protected set read-only.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final

import hookline.permissions._gitindex as gitindex
import hookline.permissions._gitpatches as gitpatches
import hookline.permissions.bash._git as gitwords
from hookline.permissions._paths import inside
from hookline.permissions._protected import NAMES, ProtectedSet
from hookline.permissions.bash._words import Word

if TYPE_CHECKING:
    from hookline.permissions.bash import Command

__all__ = ["Rewrite", "rewrite", "why_protected"]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """What a git command rewrites: ``paths`` (its pathspecs; None: the whole tree), from a
    ``patch`` (the files it reads; None: stdin), or (``untracked``) what the index does not
    track."""

    paths: tuple[Word, ...] | None = None
    patch: tuple[Word, ...] | None = ()
    untracked: bool = False


_WHOLE = Rewrite()
_WHOLE_TREE = frozenset(
    {"merge", "pull", "cherry-pick", "revert", "rebase", "filter-branch", "sparse-checkout"}
)


@dataclass(frozen=True, slots=True)
class _Args:
    """A subcommand's words: options given (``--x=v`` as ``--x``, clusters as letters),
    operands before ``--``, the words after it (None without one), and whether every option
    was one the table lists (else an option may have taken a word read here as an operand)."""

    options: frozenset[str]
    operands: tuple[Word, ...]
    after: tuple[Word, ...] | None
    exact: bool

    @property
    def paths(self) -> list[Word]:
        return [*self.operands, *(self.after or ())]


#: Per subcommand: its flags and the options that take the next word (or ``=``) as a value.
_OPTIONS: Final = {
    "checkout": (
        "-q --quiet --progress --no-progress -f --force --ours --theirs -m --merge -p --patch "
        "--overlay --no-overlay --detach --ignore-other-worktrees -l --guess --no-guess "
        "--no-track --ignore-skip-worktree-bits --recurse-submodules --no-recurse-submodules",
        "-b -B --orphan --conflict --pathspec-from-file",
    ),
    "switch": (
        "-q --quiet --progress --no-progress -f --force --discard-changes -m --merge --detach -d "
        "--guess --no-guess --no-track --ignore-other-worktrees --recurse-submodules "
        "--no-recurse-submodules",
        "-c -C --create --force-create --orphan --conflict",
    ),
    "restore": (
        "-S --staged -W --worktree -q --quiet --progress --no-progress --ours --theirs -m "
        "--merge --ignore-unmerged -p --patch --overlay --no-overlay --recurse-submodules "
        "--no-recurse-submodules --ignore-skip-worktree-bits --pathspec-file-nul",
        "-s --source --conflict --pathspec-from-file",
    ),
    "stash": (
        "-p --patch -S --staged -k --keep-index --no-keep-index -u --include-untracked -a --all "
        "-q --quiet --pathspec-file-nul --index",
        "-m --message --pathspec-from-file",
    ),
    "rm": (
        "-f --force -n --dry-run -r --cached --ignore-unmatch --sparse -q --quiet "
        "--pathspec-file-nul",
        "--pathspec-from-file",
    ),
    "mv": ("-f --force -k -n --dry-run -v --verbose --sparse", ""),
    "checkout-index": (
        "-u --index -q --quiet -f --force -a --all -n --no-create --temp --stdin -z "
        "--ignore-skip-worktree-bits",
        "--stage --prefix",
    ),
    "clean": ("-d -f --force -i --interactive -n --dry-run -q --quiet -x -X", "-e --exclude"),
    "apply": (
        "--stat --numstat --summary --check --index --intent-to-add -N --cached --apply -3 "
        "--3way -R --reverse --reject -z --unidiff-zero --recount --inaccurate-eof -v --verbose "
        "-q --quiet --allow-empty --no-add --allow-overlap",
        "-p -C --whitespace --exclude --include --directory --build-fake-ancestor",
    ),
}


def rewrite(command_args: Sequence[Word]) -> tuple[gitwords.Git, Rewrite | None]:
    """The git command (split) and what it rewrites in the work tree (None: nothing)."""
    git = gitwords.split(command_args)
    sub = git.subcommand or ""
    if sub in _WHOLE_TREE:
        return git, _WHOLE
    finder = _FINDERS.get(sub)
    if finder is None:
        return git, None
    flags, valued = _OPTIONS.get(sub, ("", ""))
    return git, finder(_read(list(git.args), set(flags.split()), set(valued.split())))


def _read(words: list[Word], flags: set[str], valued: set[str]) -> _Args:
    options: set[str] = set()
    operands: list[Word] = []
    exact, index = True, 0
    while index < len(words):
        value = words[index].value
        index += 1
        if value == "--":
            return _Args(frozenset(options), tuple(operands), tuple(words[index:]), exact)
        if value is None or not value.startswith("-") or value == "-":
            operands.append(words[index - 1])
            exact &= value is not None  # a word only run time knows may be an option
            continue
        names = [value.partition("=")[0]] if value.startswith("--") else _letters(value, valued)
        for name in names:
            options.add(name)
            exact &= name in flags or name in valued
        attached = "=" in value if value.startswith("--") else len(value) > len(names) + 1
        if names[-1] in valued and not attached:
            index += 1
    return _Args(frozenset(options), tuple(operands), None, exact)


def _letters(value: str, valued: set[str]) -> list[str]:
    """``-fdx`` as ``-f``, ``-d``, ``-x``; the letters after one that takes a value are it."""
    found = []
    for letter in value[1:]:
        found.append(f"-{letter}")
        if found[-1] in valued:
            break
    return found


def _checkout(given: _Args) -> Rewrite | None:
    if given.after is not None:
        return Rewrite(given.after) if given.after else _WHOLE
    changes = {"-f", "--force", "-p", "--patch", "-m", "--merge", "--pathspec-from-file"}
    if given.operands or given.options & changes or not given.exact:
        return _WHOLE  # a branch, or paths git tells from one at run time
    return None  # `checkout -b new`: the same tree


def _switch(given: _Args) -> Rewrite | None:
    changes = {"--orphan", "-f", "--force", "--discard-changes", "-m", "--merge"}
    if given.operands or given.after or given.options & changes or not given.exact:
        return _WHOLE
    return None  # `switch -c new`: the same tree


def _scoped(given: _Args, paths: list[Word]) -> Rewrite:
    """The pathspecs, when they are all it reaches."""
    if "--pathspec-from-file" in given.options or not paths or not given.exact:
        return _WHOLE
    return Rewrite(tuple(paths))


def _restore(given: _Args) -> Rewrite | None:
    if given.options & {"-S", "--staged"} and not given.options & {"-W", "--worktree"}:
        return None  # the index only
    return _scoped(given, given.paths)


def _reset(given: _Args) -> Rewrite | None:
    return _WHOLE if given.options & {"--hard", "--merge", "--keep"} else None


def _stash(given: _Args) -> Rewrite | None:
    verb = given.operands[0].value if given.operands else "push"
    if verb in ("list", "show", "drop", "clear", "create", "store"):
        return None
    untracked = bool(given.options & {"-u", "--include-untracked", "-a", "--all"})
    if verb == "push":
        paths = [*given.operands[1:], *(given.after or ())]
        return Rewrite(_scoped(given, paths).paths, untracked=untracked)
    return Rewrite(None, untracked=untracked)  # save, pop, apply, branch


def _rm(given: _Args) -> Rewrite | None:
    return None if "--cached" in given.options else _scoped(given, given.paths)


def _paths(given: _Args) -> Rewrite | None:
    return _scoped(given, given.paths)


def _checkout_index(given: _Args) -> Rewrite | None:
    if given.options & {"-a", "--all", "--stdin", "--prefix"}:
        return _WHOLE
    return _scoped(given, given.paths)


def _read_tree(given: _Args) -> Rewrite | None:
    return _WHOLE if given.options & {"-u", "--reset"} or not given.exact else None


def _bisect(given: _Args) -> Rewrite | None:
    verb = given.operands[0].value if given.operands else ""
    return None if verb in ("log", "view", "visualize", "terms") else _WHOLE


def _apply(given: _Args) -> Rewrite | None:
    reads_only = {"--stat", "--numstat", "--summary", "--check"}
    if given.exact and (
        "--cached" in given.options
        or (given.options & reads_only and "--apply" not in given.options)
    ):
        return None
    if "--directory" in given.options or not given.exact:
        return Rewrite(paths=(), patch=None)  # its files go where an option says
    return Rewrite(paths=(), patch=tuple(given.paths) or None)


def _am(given: _Args) -> Rewrite | None:
    if given.options & {"--abort", "--quit", "--show-current-patch"}:
        return _WHOLE if "--abort" in given.options else None
    if given.options & {"--continue", "--skip", "--resolved", "-r"}:
        return Rewrite(paths=(), patch=None)  # the patches left from before
    return Rewrite(paths=(), patch=tuple(given.paths) or None)


def _clean(given: _Args) -> Rewrite | None:
    if given.exact and given.options & {"-n", "--dry-run"}:
        return None
    return Rewrite(_scoped(given, given.paths).paths, untracked=True)


_FINDERS: Final = {
    "checkout": _checkout,
    "switch": _switch,
    "restore": _restore,
    "reset": _reset,
    "stash": _stash,
    "rm": _rm,
    "mv": _paths,
    "checkout-index": _checkout_index,
    "read-tree": _read_tree,
    "bisect": _bisect,
    "apply": _apply,
    "am": _am,
    "clean": _clean,
}


#: Files ``clean`` may walk through to prove it deletes nothing protected.
MAX_WALK = 20_000
_REPOSITORY_VARIABLES = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"})


def why_protected(
    command: Command,
    folder: str | None,
    protected: ProtectedSet,
    *,
    others_write: Callable[[], bool],
) -> str | None:
    """What of the protected set the git ``command`` (run in ``folder``; None: only run time
    knows) may rewrite, in a phrase that follows the line's name; None when it rewrites nothing
    there (or is no git command that rewrites the work tree)."""
    if command.name != "git":
        return None
    git, found = rewrite(command.args)
    if found is None:
        return None
    if command.more_args:  # `xargs git checkout --`: the paths arrive at run time
        found = Rewrite(None, None if found.patch != () else (), found.untracked)
    shown = f"`git {git.subcommand}`"
    where = _where(git, folder, command.env)
    if where is None:
        return f"has {shown} rewrite files in a repository only run time can find"
    repo = gitindex.repository(where)
    if repo is None:
        return None  # no repository: git rewrites nothing
    if found.patch != ():
        return gitpatches.why_protected(
            shown, found.patch, where, repo.top, protected, others_write=others_write()
        )
    scope = _scope(found.paths, where, repo.top)
    if found.untracked and (hit := _untracked(scope, repo.top, protected)):
        return f"has {shown} delete files git does not track: {hit}"
    paths = gitindex.tracked(repo.index)
    if paths is None:
        return f"has {shown} rewrite the files git tracks, and its index cannot be read"
    for path in _protected_tracked(repo.top, paths, protected):
        if scope is None or any(path == p or path.startswith(p + "/") for p in scope):
            entry = protected.covers(posixpath.join(repo.top, path), resolve=False)
            return f"has {shown} rewrite {posixpath.join(repo.top, path)}, which git tracks, " + (
                f"in {entry}, which is protected"
            )
    return None


def _where(git: gitwords.Git, folder: str | None, env: tuple[str, ...]) -> str | None:
    """The folder git works in (``-C`` followed); None when a variable or an option points it
    at a repository by hand, or the folder is only known at run time."""
    if folder is None or _REPOSITORY_VARIABLES & {*env, *os.environ}:
        return None
    for option in git.options:
        value = option.value.value if option.value else ""
        if option.name in ("--git-dir", "--work-tree", "--bare") or value is None:
            return None
        if option.name == "-C":
            folder = posixpath.normpath(posixpath.join(folder, value))
    return folder


def _scope(paths: tuple[Word, ...] | None, where: str, top: str) -> tuple[str, ...] | None:
    """The pathspecs as paths below ``top`` (``""``: all of it); None when one widens to the
    whole tree (a word only run time knows, a glob, pathspec magic, a path outside)."""
    if paths is None:
        return None
    found = []
    for word in paths:
        value = word.value
        if value is None or word.glob or value.startswith(":") or any(c in value for c in "*?[\\"):
            return None
        path = posixpath.relpath(posixpath.normpath(posixpath.join(where, value)), top)
        if path == "." or path.startswith("../") or path == "..":
            return None
        found.append(path)
    return tuple(found)


@lru_cache(maxsize=16)
def _protected_tracked(top: str, paths: tuple[str, ...], protected: ProtectedSet) -> list[str]:
    """The tracked ``paths`` (below ``top``) that lie in the protected set."""
    codes = {posixpath.relpath(f, top) for f in protected.code_files if inside(f, top)}
    return [
        path
        for path in paths
        if ("/." in "/" + path or path in codes)
        and protected.covers(posixpath.join(top, path), resolve=False)
    ]


def _untracked(scope: tuple[str, ...] | None, top: str, protected: ProtectedSet) -> str:
    """A protected entry below the folders ``scope`` names (None: all of ``top``), found by
    a walk that skips ``.git``; a phrase saying why when the walk is too long."""
    seen = 0
    for start in [posixpath.join(top, p) for p in scope or ("",)]:
        if protected.covers(start, resolve=False):
            return f"{start} is protected"
        for folder, dirs, files in os.walk(start):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in (*dirs, *files):
                seen += 1
                if seen > MAX_WALK:
                    return f"more than {MAX_WALK} files to check"
                path = posixpath.join(folder, name)
                if (name in NAMES or path in protected.code_files) and (
                    entry := protected.covers(path, resolve=False)
                ):
                    return f"{path}, in {entry}, which is protected"
    return ""
