"""The read-only tier as allow-lists: each program's every permitted option is listed, read with
the program's real syntax, and anything else asks with a reason naming the option."""

from __future__ import annotations

import pytest

from hookline.permissions._readonly import why_not_read_only
from hookline.permissions.bash import analyze

EVERYDAY = [
    "ls", "ls -la src", "ls -lhS --color=auto", "cat a | grep -n x",
    "grep -rn --include='*.py' x .",
    "rg -n TODO src", "rg -i -g '*.py' -t py x", "git status", "git status -sb",
    "git status --porcelain=v1 -uno", "git log --oneline -5", "git log -n 3 --stat",
    "git log --format='%H %s' --since=2.weeks", "git log -p -- src/a.py", "git diff",
    "git diff HEAD~1 --stat", "git diff --cached --name-only", "git show HEAD:README.md",
    "git show --stat HEAD", "git -C sub diff HEAD~1", "git --no-pager log -1",
    "find . -name '*.py'", "find src -type f -newer a -print0 | xargs -0 grep -l x",
    "find . -maxdepth 2 \\( -name a -o -name b \\) -prune", "ls | wc -l",
    "cat a.txt | sort | uniq -c | sort -rn | head -20", "git log --oneline | head",
    "head -5 a", "tail -n +2 a", "wc --lines a", "sort --rev a", "du -sh --max-depth=1 .",
    "LC_ALL=C sort a", "env LANG=C TZ=UTC ls -l", "TZ=UTC date +%s", "NO_COLOR=1 git diff",
    "cat \"$f\"", "ls $DIR",
    "jq -r '.a' f.json", "jq --arg n v '.[$n]' f", "git blame -L 1,5 a.py", "git grep -n x",
    "git rev-parse --show-toplevel", "git branch -a", "git stash list", "git remote -v",
    "git remote show -n origin", "git remote -v show origin -n", "git remote get-url --all o",
    "date -d yesterday +%F", "file -b a", "stat -c %s a", "diff -u a b", "tree -L 2 -a",
]  # fmt: skip


@pytest.mark.parametrize("line", EVERYDAY)
def test_everyday_reads_stay_unasked(line: str) -> None:
    assert why_not_read_only(analyze(line)) is None


HOLES = [
    ("git ls-remote --upload-pack='touch x' .", "`ls-remote` is not a read-only git command"),
    ("git diff-tree -p HEAD --output=.claude/settings.json", "`git diff-tree --output` writes"),
    ("git diff-files --output=x", "`git diff-files --output` writes"),
    ("git diff-index HEAD --output=x", "`git diff-index --output` writes"),
    ("git stash show --output=x", "`git stash show --output` writes"),
    ("git reflog --output=x", "`git reflog show --output` writes"),
    ("git rev-list HEAD --output=x", "`git rev-list --output` writes"),
    ("git blame --output=x a", "`git blame --output` is not an option"),
    ("git log --output=x", "`git log --output` writes"),
    ("git show --output x", "`git show --output` writes"),
    ("git diff --ext-diff", "`git diff --ext-diff` writes a file or runs a program"),
    ("git log -p --textconv", "`git log --textconv` writes a file or runs a program"),
    ("git cat-file --textconv HEAD:a", "`git cat-file --textconv` is not an option"),
    ("git cat-file --filters HEAD:a", "`git cat-file --filters` is not an option"),
    ("git log --outp=x", "`git log --output` writes"),
    ("git -c color.ui=never log", "`git -c` may change what git runs"),
    ("git --git-dir=x --work-tree=. status", "`git --git-dir` points git at settings"),
    ("git --work-tree . status", "`git --work-tree` points git at settings"),
    ("git --bare log", "`git --bare` points git at settings"),
    ("git --exec-path log", "`git --exec-path` may change what git runs"),
    ("git grep --open-files-in-pager=x y", "`git grep --open-files-in-pager` runs a pager"),
    ("git grep -O x", "`git grep -O` runs a pager program"),
    ("git help -w log", "`git help -w` is not an option"),
    ("git help log", "`git help log` writes a file"),
    ("git remote show origin", "`git remote show` without `-n` runs the remote's upload-pack"),
    ("git remote -v set-url origin x", "`git remote set-url` is not a read-only git command"),
    ("git remote --verbose add o u", "`git remote add` is not a read-only git command"),
    ("git remote -- add o u", "`git remote` takes no option before its verb but `-v`"),
    ("git remote show -v origin", "`git remote show` takes no option but `-n`"),
    ("git reflog --all expire", "`git reflog expire` is not a read-only git command"),
    ("git config --add a.b c", "`git config --add` is not an option"),
    ("git config --get a.b --unset c", "`git config --unset` is not an option"),
    ("rg --pre ./x y", "`rg --pre` runs another program"),
    ("rg --pr ./x y", "`rg --pre` runs another program"),
    ("rg -z x", "`rg -z` runs another program"),
    ("sort -o out in", "`sort -o` writes a file"),
    ("sort --compress-program=sh a", "`sort --compress-program` writes a file"),
    ("sort --comp=sh a", "`sort --compress-program` writes a file"),
    ("sort -T .git a", "`sort -T` writes a file"),
    ("find . -fprint x", "`find -fprint` writes a file"),
    ("find . -exec true \\;", "`find -exec` runs another command"),
    ("find . -delete", "`find -delete` changes files"),
    ("find . -fls x", "`find -fls` writes a file"),
    ("find . -newerXY x", "`find -newerXY` is not an expression"),
    ("find . -frobnicate", "`find -frobnicate` is not an expression"),
    ("find $D -name x", "`find` has an argument only known at run time"),
    ("tree -o out", "`tree -o` writes a file"),
    ("tree -R -H . -L 1", "`tree -R` writes a file"),
    ("less a", "`less` is not a read-only program"),
    ("more a", "`more` is not a read-only program"),
    ("man ls", "`man` is not a read-only program"),
    ("ls --frobnicate", "`ls --frobnicate` is not an option hookline lists as read-only"),
    ("cat -Z a", "`cat -Z` is not an option hookline lists as read-only"),
    ("diff -l a b", "`diff -l` runs another program"),
    ("file -p a", "`file -p` writes a file or runs a program"),
    ("date 010100002030", "`date 010100002030` sets the clock"),
    ("printf -v PATH x", "what runs cannot be known"),
    ("printf -v x y", "`printf -v` sets a variable"),
    ("test -v 'a[$(touch x)]'", "what runs cannot be known"),
    ("test -v x", "`test -v` evaluates a subscript as code"),
    ("jq --frob . f", "`jq --frob` is not an option"),
    ("PAGER=cat git log", "what runs cannot be known: it sets PAGER"),
    ("COLUMNS=80 FOO=1 ls", "`FOO=` is set for `ls`"),
    ("GIT_EXTERNAL_DIFF=x git diff", "what runs cannot be known"),
    ("LESSOPEN='|touch x' cat a", "what runs cannot be known: it sets LESSOPEN"),
    ("GIT_TRACE=/tmp/x git status", "what runs cannot be known"),
    ("env RIPGREP_CONFIG_PATH=./cfg rg x", "what runs cannot be known"),
    ("env FOO=1 ls", "`env FOO=` may change what the command runs or writes"),
    ("export XDG_CONFIG_HOME=./x; git status", "what runs cannot be known"),
    ("GCONV_PATH=. cat a", "what runs cannot be known"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "reason"), HOLES)
def test_an_option_or_program_not_on_the_lists_asks_and_says_which(line: str, reason: str) -> None:
    why = why_not_read_only(analyze(line))
    assert why is not None and why.startswith(reason), why
