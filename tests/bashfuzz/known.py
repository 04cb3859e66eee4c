"""What the fuzzer excuses, in one place, each entry with why it is harmless.

``INCIDENTAL_EXECS``: programs a listed program starts as part of itself. ``incidental``:
writes a program makes on its own that change no user file. Nothing else is excused: every
other program started or file changed beyond the claim is a finding (``findings``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bashfuzz.trace import Change

if TYPE_CHECKING:
    from bashfuzz.judge import Disagreement

#: A listed program -> the programs it starts as part of itself.
INCIDENTAL_EXECS: dict[str, tuple[str, ...]] = {
    # Debian's egrep and fgrep are shell scripts that run `grep -E` / `grep -F`.
    "egrep": ("grep",),
    "fgrep": ("grep",),
}


def incidental(change: Change, path: str, workspace: str) -> bool:
    """Whether ``change`` (to ``path``, links resolved) is one of the writes below."""
    return any(rule(change, path, workspace) for rule in _RULES)


def _git_index_refresh(change: Change, path: str, workspace: str) -> bool:
    """git refreshes the stat data its index caches for the work tree when it reads it
    (``git status``, ``git describe --dirty``): it writes ``.git/index.lock`` and renames it
    onto ``.git/index``, or removes the lock when there was nothing to refresh. The index keeps
    the same entries; only git's own bookkeeping changes (the state is copied afresh before
    each line, so every read of the work tree finds the stat data stale)."""
    git = posixpath.join(workspace, ".git")
    lock, index = f"{git}/index.lock", f"{git}/index"
    return change.program == "git" and path in (lock, index) and change.syscall in (
        "openat", "rename", "renameat", "renameat2", "unlink", "unlinkat")  # fmt: skip


def _terminal(change: Change, path: str, workspace: str) -> bool:
    """Bash opens ``/dev/tty`` read-write at start, to see whether it has a controlling
    terminal; a terminal is no file (and inside the jail there is none: the open fails)."""
    return change.program == "bash" and path == "/dev/tty" and change.syscall == "openat"


def _own_temporary_file(change: Change, path: str, workspace: str) -> bool:
    """``tac`` on input it cannot seek (a pipe, stdin) and ``sort`` when it merges or spills
    copy their input to a temporary file of their own in ``$TMPDIR``: made under a fresh
    random name (``O_EXCL``, so no existing file is opened), cut (``ftruncate`` on the
    descriptor they made) and removed before they exit."""
    name = posixpath.basename(path)
    return (change.program in ("tac", "sort") and path.startswith("/tmp/")
            and name.startswith(change.program) and path.count("/") == 2
            and (change.syscall in ("unlink", "ftruncate")
                 or "O_EXCL" in change.flags))  # fmt: skip


def _existing_parent(change: Change, path: str, workspace: str) -> bool:
    """``mkdir -p a/b/c`` tries each folder of the path in turn; on one that exists (the
    workspace itself, or a folder above it, for a path that climbs out and back in) the call
    fails with ``EEXIST`` and changes nothing."""
    above = workspace == path or workspace.startswith(path.rstrip("/") + "/")
    return change.program == "mkdir" and change.error == "EEXIST" and above


_RULES = (_git_index_refresh, _terminal, _own_temporary_file, _existing_parent)


@dataclass(frozen=True, slots=True)
class Finding:
    """A disagreement the fuzzer found that the analyser does not fix yet: ``repro`` is the
    smallest line that shows it, and the permission layer claims ``claim`` of it. It explains
    a thing Bash did (``seen``, as the judge words it) on a line claimed ``claim`` (a hole in
    the read-only tier is one in acceptEdits too: that mode runs read-only lines), when
    ``line`` and ``seen`` (regular expressions) both match."""

    name: str
    repro: str
    claim: str
    line: str
    seen: str
    about: str

    def explains(self, line: str, claim: str, seen: str) -> bool:
        return (claim in (self.claim, "acceptEdits") and re.search(self.line, line) is not None
                and re.search(self.seen, seen) is not None)  # fmt: skip


#: What a payload (``words.PAYLOADS``) does when Bash runs it: start ``touch pwned``, write it.
_PAYLOAD = r"`touch`.*pwned"
#: A file written by a redirect: Bash opens it itself, before any program starts.
_REDIRECT = r"^`bash` openat "
#: An acceptEdits write that left the workspace (judge's wording).
_ESCAPED = r"not strictly inside the workspace"

#: The analyser's findings not fixed yet, each kept as a strict xfail in the test module (the
#: day it is fixed, that test fails until the entry moves to ``FIXED``).
FINDINGS: tuple[Finding, ...] = ()
#: Findings fixed since the fuzzer found them: each reproduction must stay asked, or agree.
FIXED: tuple[Finding, ...] = (
    Finding("heredoc-end", 'cat <<EOF\nx\nEOF ; cat <<"EOF"\n$(touch pwned)\nEOF', "read-only",
            r"\nEOF[^\n]", _PAYLOAD,
            "a line that only starts with a here-document's delimiter (`EOF ; cat ...`) ends "
            "it for the parser, not for Bash: Bash reads on, and runs what follows as the "
            "unquoted body"),
    Finding("git-remote-verb-after-option", "git remote -v set-url origin x", "read-only",
            r"\bgit\b.*\bremote\s+(-\S+\s+)+(add|remove|rm|rename|set-url|set-head|"
            r"set-branches|prune|update|show)\b", r"^`git` |^(started|tried to start) `",
            "`git remote -v VERB` is read as `git remote -v` listing with operands, but git "
            "runs VERB: `set-url`, `add`, `remove`, `rename` rewrite .git/config unasked, "
            "`show` runs the remote's upload-pack through `sh -c`"),
    Finding("redirect-without-command", "[ -e a.txt ] > out.txt", "read-only",
            r"(\]|\)|\}|esac|\b(unset|declare|export|local|readonly|typeset)\b[^;|&\n]*?)"
            r"\s*[0-9&]?>[>|]?\s*[^&\s]", _REDIRECT,
            "a redirect on `[ ]`, `[[ ]]`, `(( ))`, `declare`, `unset` or a group of "
            "assignments is not seen: it writes its file"),
    Finding("assignment-subscript", "a['$(touch pwned)']=v", "read-only",
            r"\['\$\(touch pwned\)'\]", _PAYLOAD,
            "an array element's quoted subscript is evaluated as arithmetic when assigned, "
            "running the substitution in it"),
    Finding("arithmetic-expansion", "x='a[$(touch pwned)]'; echo $((x))", "read-only",
            r"\$\(\(|\$\[", _PAYLOAD,
            "`$((x))` evaluates the value of x, and a subscript in it runs its substitution"),
    Finding("indirection", "x='a[$(touch pwned)]'; echo ${!x}", "read-only", r"\$\{!",
            _PAYLOAD, "`${!x}` expands the variable x names, subscript and all"),
    Finding("prompt-expansion", "x='$(touch pwned)'; echo ${x@P}", "read-only", r"@P\}",
            _PAYLOAD, "`${x@P}` expands x as a prompt, which runs `$(...)` in it"),
    Finding("subscript-expansion", "x='a[$(touch pwned)]'; echo ${a[x]}", "read-only",
            r"\$\{#?\w+\[", _PAYLOAD,
            "a subscript in an expansion is arithmetic: it evaluates the value of x"),
    Finding("substring-offset", "y='a[$(touch pwned)]'; echo ${y:y}", "read-only",
            r"\$\{\w+:[^-=?+}]", _PAYLOAD,
            "a substring's offset and length are arithmetic: `${y:y}` evaluates the value of y"),
    Finding("test-v", "[ -v 'a[$(touch pwned)]' ]", "read-only",
            r"(\[\[?|\btest)\s+(!\s+)?-v\b", _PAYLOAD,
            "`[ -v NAME ]` and `[[ -v NAME ]]` evaluate NAME's subscript (`test -v` asks)"),
    Finding("arithmetic-test", "[[ 'a[$(touch pwned)]' -eq 0 ]]", "read-only",
            r"\[\[.*-(eq|ne|lt|le|gt|ge)\b", _PAYLOAD,
            "`[[ A -eq B ]]` evaluates both sides as arithmetic"),
    Finding("arithmetic-command", "(( 'a[$(touch pwned)]' ))", "read-only", r"\(\(", _PAYLOAD,
            "`(( ... ))` and `for (( ... ))` evaluate arithmetic, quotes and all"),
    Finding("declare-nameref-integer", "declare -n r='a[$(touch pwned)]'; echo $r", "read-only",
            r"\b(declare|typeset|local)\s+-\w*[ni]", _PAYLOAD,
            "`declare -n` makes a name a reference (its subscript evaluated on use); "
            "`declare -i` evaluates what is assigned"),
    Finding("cd-not-followed", "cd nope 2>/dev/null; cp a.txt ../x", "acceptEdits",
            r"\b(cd|pushd)\b", _ESCAPED,
            "a `cd` that fails, runs in a subshell or in the background is followed as if it "
            "moved the shell: the paths after it are judged from the wrong folder"),
    Finding("tilde-plus", "cp a.txt ~+/../x", "acceptEdits", r"~[+-]", _ESCAPED,
            "`~+` is the working folder and `~-` the one before: read as a user's home"),
    Finding("git-output", "git blame --output=out.txt a.txt", "read-only", r"--output",
            r"^`git` openat .*/out\.txt",
            "`--output` of git's log-like commands writes a file (blame, reflog show, "
            "diff-index, diff-tree, diff-files, rev-list)"),
    Finding("git-runs-programs", "git remote show origin", "read-only",
            r"\bgit\b.*\b(remote|ls-remote|help)\b", r"^(started|tried to start) `",
            "git runs other programs: `remote show` and `ls-remote` start the remote's "
            "upload-pack through `sh -c` (any program a configured remote names), `help` "
            "starts man and groff"),
    Finding("printf-v", "printf -v 'a[$(touch pwned)]' x", "read-only", r"printf\s+-v",
            _PAYLOAD, "`printf -v NAME` assigns NAME, evaluating its subscript"),
)  # fmt: skip


def explained(found: Disagreement) -> tuple[tuple[str, ...], list[str]]:
    """What of ``found`` no listed finding explains, and the findings that explain the rest."""
    unexplained, by = [], []
    for seen in found.seen:
        names = [f.name for f in FINDINGS if f.explains(found.line, found.claim, seen)]
        by.extend(names)
        if not names:
            unexplained.append(seen)
    return tuple(unexplained), list(dict.fromkeys(by))
