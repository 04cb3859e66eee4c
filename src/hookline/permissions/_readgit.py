"""The read-only git subcommands and every option each may take.

``git_check(words)`` splits the words as git does (``hookline.permissions.bash._git``): the only
global options kept in the tier are ``-C``, ``--no-pager``/``-P``, ``--no-optional-locks``,
``--literal-pathspecs`` and the like (no ``-c``, ``--exec-path=``, ``--config-env``, and no
``--git-dir``/``--work-tree``/``--bare``: a repository named by hand need not be a protected
``.git``, and its settings run programs). The subcommand must be listed here, and each of its
options too; git's log and diff options are taken only spelled in full (git does not abbreviate
them). Not listed, so never read-only: ``--output`` (writes a file), ``--ext-diff``,
``--textconv``, ``--filters`` (run programs the settings name), ``--open-files-in-pager``,
``--upload-pack``, ``ls-remote``/``fetch`` (contact a remote and run its transport),
``format-patch``. Subcommands with verbs are read where git reads the verb: ``git remote``
takes only ``-v`` before it (``remote_verb``), and reads only to list, ``get-url`` and
``show -n`` (``show`` without ``-n`` runs the remote's upload-pack); ``git reflog`` with options
first reads unless ``expire`` or ``delete`` stands among them.
"""

from __future__ import annotations

import re
from typing import Final

from hookline._support.words import words
from hookline.permissions._readspec import Spec, why_arguments
from hookline.permissions.bash._git import split
from hookline.permissions.bash._words import literal

__all__ = ["git_check", "remote_verb"]

_GLOBALS = words(
    "-C --namespace --no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs "
    "--noglob-pathspecs --icase-pathspecs --no-replace-objects --no-advice --no-lazy-fetch"
)
#: Global options that point git at a repository by hand: its settings (``core.fsmonitor``,
#: ``diff.external``) run programs, and a folder that is not a ``.git`` is not protected.
_ELSEWHERE = frozenset({"--git-dir", "--work-tree", "--bare"})
_DIFF_FLAGS = (
    "-p -u -s -z --patch --no-patch --raw --patch-with-raw --patch-with-stat --stat --shortstat "
    "--numstat --compact-summary --summary --name-only --name-status --dirstat --cumulative "
    "--full-index --binary --minimal --patience --histogram --no-renames --find-renames "
    "--find-copies --find-copies-harder --irreversible-delete --relative --no-relative --text "
    "--ignore-cr-at-eol --ignore-space-at-eol --ignore-space-change --ignore-all-space "
    "--ignore-blank-lines --indent-heuristic --no-indent-heuristic --function-context "
    "--exit-code --quiet --check --no-prefix --default-prefix --color --no-color --color-moved "
    "--no-color-moved --word-diff --color-words --no-ext-diff --no-textconv "
    "--ita-invisible-in-index --ita-visible-in-index --ignore-submodules --submodule --abbrev "
    "--no-abbrev --pickaxe-all --pickaxe-regex --break-rewrites --cached --staged --merge-base "
    "--no-index -R -a -b -w -W -D --full-diff -t -r -m -c --cc --root --combined-all-paths "
    "--no-diff-merges --remerge-diff --base --ours --theirs -0 -1 -2 -3 -q"
)
_DIFF_VALUES = (
    "-S -G -O -L --diff-filter --unified --inter-hunk-context --stat-width --stat-name-width "
    "--stat-count --stat-graph-width --word-diff-regex --src-prefix --dst-prefix --line-prefix "
    "--anchored --diff-algorithm --orderfile --find-object --rotate-to --skip-to "
    "--ws-error-highlight --diff-merges --color-moved-ws"
)
_LOG_FLAGS = (
    "--oneline --graph --no-graph --all --decorate --no-decorate --abbrev-commit "
    "--no-abbrev-commit --reverse --merges --no-merges --first-parent --follow --date-order "
    "--topo-order --author-date-order --left-right --left-only --right-only --cherry-pick "
    "--cherry-mark --cherry --boundary --no-walk --do-walk --remotes --branches --tags --source "
    "--use-mailmap --mailmap --no-mailmap --log-size --parents --children "
    "--simplify-by-decoration --ancestry-path --full-history --dense --sparse --simplify-merges "
    "--regexp-ignore-case --basic-regexp --extended-regexp --fixed-strings --perl-regexp "
    "--invert-grep --all-match --no-notes --notes --expand-tabs --no-expand-tabs "
    "--show-linear-break --single-worktree --show-pulls --no-max-parents --no-min-parents "
    "--ignore-missing --not --count --objects --objects-edge --reflog --walk-reflogs --bisect "
    "--relative-date --timestamp --header --stdin -g -i -E -F -P"
)
_LOG_VALUES = (
    "-n --max-count --skip --since --after --until --before --author --committer --grep --format "
    "--pretty --date --encoding --decorate-refs --decorate-refs-exclude --exclude --glob "
    "--max-parents --min-parents --max-age --min-age --since-as-filter --show-notes"
)
_LOG = Spec(
    "pusznRabwWDtrmcgeiEFPq0123",
    "SGOLn",
    f"{_DIFF_FLAGS} {_LOG_FLAGS}",
    f"{_DIFF_VALUES} {_LOG_VALUES}",
    attached="UMClB",
    numbers=True,
    abbreviate=False,
    harmful="--output --ext-diff --textconv",
    does="writes a file or runs a program",
)


def _spec(
    flags: str = "",
    values: str = "",
    *,
    attached: str = "",
    operands: int | None = None,
    numbers: bool = False,
    harmful: str = "",
    does: str = "",
) -> Spec:
    """A git subcommand's options, long and short written alike (``"-v --verbose"``)."""
    short = "".join(w[1] for w in flags.split() if len(w) == 2)
    short_values = "".join(w[1] for w in values.split() if len(w) == 2)
    longs = " ".join(w for w in flags.split() if len(w) > 2)
    long_values = " ".join(w for w in values.split() if len(w) > 2)
    return Spec(
        short,
        short_values,
        longs,
        long_values,
        attached=attached,
        numbers=numbers,
        abbreviate=False,
        max_operands=operands,
        harmful=harmful,
        does=does or "writes a file",
    )


_LOG_COMMANDS = (
    "log",
    "show",
    "diff",
    "whatchanged",
    "rev-list",
    "diff-tree",
    "diff-files",
    "diff-index",
    "shortlog",
)
_READS: Final[dict[str, Spec]] = dict.fromkeys(_LOG_COMMANDS, _LOG)
_READS.update(
    {
        "status": _spec(
            "-s --short -b --branch --porcelain --long -v --verbose --ignored -z --column "
            "--no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames "
            "--show-stash --untracked-files --ignore-submodules",
            attached="uM",
        ),
        "blame": _spec(
            "-b --root --show-stats -l -t -s -f -n -e -p --porcelain --line-porcelain "
            "--incremental -c -w --minimal --show-name --show-number --show-email --abbrev "
            "--progress --no-progress --color-lines --color-by-age --reverse --first-parent",
            "-L -S --contents --date --ignore-rev --ignore-revs-file",
            attached="MC",
        ),
        "rev-parse": _spec(
            "--abbrev-ref --short --verify --quiet -q --show-toplevel --git-dir --git-common-dir "
            "--is-inside-work-tree --is-inside-git-dir --is-bare-repository --show-prefix "
            "--show-cdup --absolute-git-dir --symbolic --symbolic-full-name --all --branches "
            "--tags --remotes --local-env-vars --show-superproject-working-tree "
            "--shared-index-path --revs-only --no-revs --flags --no-flags --sq --sq-quote --not "
            "--is-shallow-repository --show-object-format --end-of-options",
            "--default --git-path --prefix --since --until --after --before --path-format "
            "--disambiguate --resolve-git-dir --exclude",
        ),
        "ls-files": _spec(
            "-c -d -m -o -i -s -u -k -z -t -v -f --cached --deleted --modified --others "
            "--ignored --stage --unmerged --killed --directory --no-empty-directory --eol "
            "--full-name --recurse-submodules --error-unmatch --exclude-standard --debug "
            "--deduplicate --sparse --abbrev",
            "-x -X --exclude --exclude-from --exclude-per-directory --with-tree --format",
        ),
        "ls-tree": _spec(
            "-d -r -t -l -z --name-only --name-status --object-only --full-name --full-tree "
            "--long --abbrev",
            "--format",
        ),
        "cat-file": _spec(
            "-t -s -e -p -Z --batch --batch-check --batch-all-objects --buffer --unordered "
            "--follow-symlinks --allow-unknown-type --mailmap --use-mailmap --no-mailmap",
            "--path",
        ),
        "describe": _spec(
            "--all --tags --contains --long --always --first-parent --exact-match --debug "
            "--abbrev --dirty --broken",
            "--candidates --match --exclude",
        ),
        "show-ref": _spec(
            "--head --heads --tags --branches -d --dereference -s --hash --verify --exists -q "
            "--quiet --abbrev"
        ),
        "for-each-ref": _spec(
            "--shell --perl --python --tcl --ignore-case --omit-empty",
            "--count --sort --format --points-at --merged --no-merged --contains --no-contains "
            "--exclude",
        ),
        "name-rev": _spec(
            "--tags --all --annotate-stdin --name-only --no-undefined --always", "--refs --exclude"
        ),
        "merge-base": _spec("--all --octopus --independent --is-ancestor --fork-point"),
        "count-objects": _spec("-v --verbose -H --human-readable"),
        "check-ignore": _spec("-q --quiet -v --verbose --stdin -z -n --non-matching --no-index"),
        "check-attr": _spec("-a --all --cached --stdin -z", "--source"),
        "version": _spec("--build-options"),
        "help": _spec(
            "-a --all -g --guides --verbose --no-verbose --no-external-commands --no-aliases",
            operands=0,
        ),
        "show-branch": _spec(
            "-a --all -r --remotes --topo-order --date-order --current --color --no-color --list "
            "--merge-base --independent --no-name --sha1-name --topics -g --reflog --sparse "
            "--more"
        ),
        "var": _spec("-l"),
        "grep": _spec(
            "-i -I -w -v -h -H -n -l -L -c -o -q -z -r -a -E -G -F -P -W -p --full-name --cached "
            "--untracked --no-index --exclude-standard --no-exclude-standard "
            "--recurse-submodules --text --no-textconv --ignore-case --word-regexp "
            "--invert-match --line-number --column --name-only --files-with-matches "
            "--files-without-match --count --only-matching --quiet --null --break --heading "
            "--show-function --function-context --all-match --and --or --not --extended-regexp "
            "--basic-regexp --fixed-strings --perl-regexp --color --no-color --recursive "
            "--no-recursive",
            "-e -f -A -B -C -m --max-depth --threads --after-context --before-context --context "
            "--max-count",
            numbers=True,
            harmful="-O --open-files-in-pager --textconv",
            does="runs a pager program",
        ),
        "worktree": _spec("--porcelain -v --verbose -z", "--expire"),
    }
)


def _verb(
    command: str, verbs: dict[str, Spec], *, bare: str | None, others: frozenset[str] = frozenset()
) -> Spec:
    """A git command whose first word is a verb (``stash list``): checked by that verb's spec;
    ``bare``: the verb it means without one, whose words then hold none of its ``others``
    (git's option parser may still take one for the verb: ``reflog --all expire``)."""

    def check(words: list[str]) -> str | None:
        verb = words[0] if words and not words[0].startswith("-") else bare
        rest = words[1:] if words and not words[0].startswith("-") else words
        if verb is None or verb not in verbs:
            shown = f" {verb}" if verb else ""
            return f"`git {command}{shown}` is not a read-only git command"
        if hidden := next((w for w in rest if w in others), None):
            return f"`git {command} {hidden}` is not a read-only git command"
        return why_arguments(f"git {command} {verb}", verbs[verb], [literal(w) for w in rest])

    return Spec(check=check, check_only=True)


#: What ``git remote`` itself takes before its verb; nothing else may stand there.
_REMOTE_OWN = re.compile(r"-v+|--verbose|--no-verbose")
_GET_URL = _spec("--push --all", operands=1, does="names a second remote (it takes one)")


def remote_verb(words: list[str]) -> tuple[str | None, list[str]] | None:
    """``git remote``'s verb (None: the listing) and the words after it, read as git reads them
    (``-v`` is all it takes before the verb); None when an option stands there that it does not
    take (``git remote -- add``)."""
    rest = list(words)
    while rest and _REMOTE_OWN.fullmatch(rest[0]):
        rest.pop(0)
    if rest and rest[0].startswith("-"):
        return None
    return (rest[0], rest[1:]) if rest else (None, [])


def _remote(words: list[str]) -> str | None:
    """Only the listing (``git remote -v``), ``get-url`` and ``show -n`` (the remote not
    queried: without ``-n`` git runs its upload-pack) only read."""
    found = remote_verb(words)
    if found is None:
        return "`git remote` takes no option before its verb but `-v`"
    verb, rest = found
    if verb == "get-url":
        return why_arguments("git remote get-url", _GET_URL, [literal(w) for w in rest])
    if verb == "show":
        given = rest[: rest.index("--")] if "--" in rest else rest
        flags = [w for w in given if w.startswith("-")]
        if any(not re.fullmatch(r"-n+", w) for w in flags):
            return "`git remote show` takes no option but `-n`"
        return None if flags else "`git remote show` without `-n` runs the remote's upload-pack"
    return None if verb is None else f"`git remote {verb}` is not a read-only git command"


_READS["remote"] = Spec(check=_remote, check_only=True)
_READS["reflog"] = _verb(
    "reflog", {"show": _LOG}, bare="show", others=frozenset({"expire", "delete"})
)
_READS["stash"] = _verb("stash", {"list": _LOG, "show": _LOG}, bare=None)
_READS["worktree"] = _verb("worktree", {"list": _READS["worktree"]}, bare=None)
_CONFIG = _spec(
    "--global --system --local --worktree --show-origin --show-scope -z --null --name-only "
    "--includes --no-includes --bool --int --bool-or-int --path --expiry-date -l --list --get "
    "--get-all --get-regexp --get-urlmatch",
    "-f --file --blob --type --default",
)
_CONFIG_READS = frozenset({"-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch"})
_LISTING_VALUES = (
    "--contains --no-contains --merged --no-merged --points-at --sort --format --column"
)
_BRANCH = _spec(
    "-a --all -r --remotes -v --verbose --list -l --show-current --color --no-color --no-column "
    "-i --ignore-case --omit-empty",
    _LISTING_VALUES,
)
_TAG = _spec(
    "-l --list -i --ignore-case --color --no-color --no-column --omit-empty",
    _LISTING_VALUES,
    attached="n",
)


def _read_only(command: str, spec: Spec, rest: list[str]) -> str | None:
    why = why_arguments(f"git {command}", spec, [literal(w) for w in rest])
    if why or command not in ("config", "branch", "tag"):
        return why
    operands = [w for w in rest if not w.startswith("-")]
    if command == "config":
        return None if _CONFIG_READS & set(rest) else "`git config` may change settings"
    listing = any(w in ("-l", "--list") for w in rest)
    if operands and not listing and not _value_of_option(rest, operands[0]):
        return f"`git {command} {operands[0]}` creates a {command}"
    return None


def _value_of_option(words: list[str], operand: str) -> bool:
    index = words.index(operand)
    before = words[index - 1] if index else ""
    return before in _LISTING_VALUES.split()


def git_check(words: list[str]) -> str | None:
    """None when ``git WORDS`` only reads; else why not."""
    git = split([literal(w) for w in words])
    if git.unknown:
        return git.unknown
    for option in git.options:
        if option.name in _ELSEWHERE:
            return f"`git {option.name}` points git at settings hookline does not protect"
        if option.name not in _GLOBALS:
            return f"`git {option.name}` may change what git runs"
    if git.subcommand is None:
        return None
    rest = [a.value or "" for a in git.args]
    spec = {"config": _CONFIG, "branch": _BRANCH, "tag": _TAG}.get(git.subcommand)
    if spec is not None:
        return _read_only(git.subcommand, spec, rest)
    spec = _READS.get(git.subcommand)
    if spec is None:
        return f"`{git.subcommand}` is not a read-only git command"
    return why_arguments(f"git {git.subcommand}", spec, [literal(w) for w in rest])
