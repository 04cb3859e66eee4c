"""The read-only tier for Bash: which lines only read, and the reason given when one does not."""

from __future__ import annotations

import pytest

from hookline.permissions._readonly import why_not_read_only
from hookline.permissions.bash import analyze

READS = [
    "ls -la src", "cat a.txt | head -n 5", "tail -f log.txt", "wc -l *.py", "pwd", "echo hi",
    "printf '%s\\n' x", "true && false", "grep -rn TODO src", "egrep x f", "fgrep x f",
    "rg -n pattern", "rg -e x --pre-glob '*.gz' src", "ag foo", "find . -name '*.py' -print",
    "stat a", "file a.bin", "which python", "type ls", "whereis ls", "sort -k2 -t, data.csv",
    "sort -r a b c", "uniq a.txt", "uniq -c -f 1 a.txt", "cut -d: -f1 /etc/passwd",
    "tr a-z A-Z < in.txt", "diff a b", "cmp a b", "tree -L 2", "du -sh .", "df -h",
    "basename /a/b", "dirname /a/b", "realpath x", "readlink -f x", "date +%s", "date -d yesterday",
    "env", "printenv HOME", "id", "whoami", "uname -a", "hostname", "hostname -f", "nproc",
    "free -m", "uptime", "ps aux", "jq .name package.json", "md5sum a", "sha256sum a",
    "column -t f", "nl f", "rev f", "seq 10", "test -f a", "[ -d b ]", "sleep 1",
    "ls 2>/dev/null", "ls >/dev/null 2>&1", "cat a 2>&1 | grep x", "timeout 5 ls",
    "nice -n 5 cat a", "LC_ALL=C ls", "TZ=UTC date",
    "env LANG=C sort a", "cd src && ls", "command -v git",
    "git status", "git log --oneline -5", "git -C sub diff HEAD~1", "git show HEAD:README.md",
    "git branch", "git branch -a", "git branch -vv", "git branch --list 'feat*'",
    "git branch --contains HEAD", "git rev-parse HEAD", "git ls-files", "git blame a.py",
    "git remote -v", "git remote get-url origin", "git tag", "git tag -l 'v*'",
    "git stash list", "git config --get user.name", "git --no-pager log", "git grep -n x",
    "command ls", "xargs ls", "xargs -0 grep x",
]  # fmt: skip

NOT_READS = [
    ("rm a", "`rm` is not a read-only program"),
    ("sed -n p f", "`sed` is not a read-only program"),
    ("awk '{print}' f", "`awk` is not a read-only program"),
    ("ls > out.txt", "its output is redirected to `out.txt`"),
    ("echo x >> log", "its output is redirected to `log`"),
    ("cat a &> all.txt", "its output is redirected to `all.txt`"),
    ("echo $(date)", "`$(...)` runs another command"),
    ("diff <(ls a) <(ls b)", "`diff` has an argument only known at run time (`<(ls a)`)"),
    ("cat <(ls a)", "`$(...)` runs another command"),
    ("X=1 ls", "`X=` is set for `ls`, which may change what it runs or writes"),
    ("find . -delete", "`find -delete` changes files"),
    ("find . -exec cat {} +", "`find -exec` runs another command"),
    ("find . -execdir ls \\;", "`find -execdir` runs another command"),
    ("find . -ok rm {} \\;", "`find -ok` runs another command"),
    ("find . -fprint out", "`find -fprint` writes a file"),
    ("find . -fls out", "`find -fls` writes a file"),
    ("sort -o out in", "`sort -o` writes a file"),
    ("sort -ro out in", "`sort -o` writes a file"),
    ("sort --output=out in", "`sort --output` writes a file"),
    ("sort --out=out in", "`sort --output` writes a file"),
    ("sort $OPTS in", "`sort` has an argument only known at run time (`$OPTS`)"),
    ("sort *.txt", "`*.txt` could expand to an option of `sort`"),
    ("uniq in out", "`uniq out` writes its output there"),
    ("tree -o out", "`tree -o` writes a file"),
    ("rg --pre ./evil x", "`rg --pre` runs another program"),
    ("ag --pager less x", "`ag --pager` runs another program"),
    ("file -C -m magic", "`file -C` writes a file or runs a program"),
    ("date -s 2020-01-01", "`date -s` sets the clock"),
    ("date --set=x", "`date --set` sets the clock"),
    ("hostname evil", "`hostname evil` sets the host name"),
    ("sudo ls", "`sudo` runs another command"),
    ("xargs sort", "`sort` gets more arguments at run time (`xargs`, `find -exec +`)"),
    ("bash -c 'ls'", "`bash` runs another command"),
    ("eval ls", "`eval` runs another command"),
    ("watch ls", "`watch` runs another command"),
    ("nohup ls", "`nohup` may write `nohup.out`"),
    ("time -o t.txt ls", "`time -o` writes a file"),
    ("$CMD x", "what runs cannot be known: the command name is a variable or substitution"
               " (`$CMD`): what runs is unknown"),
    (":(){ :|:& };:", "the function `:` calls itself"),
    ("git push", "`push` is not a read-only git command"),
    ("git commit -m x", "`commit` is not a read-only git command"),
    ("git -c core.pager=evil log", "what runs cannot be known: `git -c core.pager` may make git"
                                   " run a program hookline cannot read"),
    ("git branch new", "`git branch new` creates a branch"),
    ("git branch -D old", "`git branch -D` is not an option hookline lists as read-only"),
    ("git branch -m a b", "`git branch -m` is not an option hookline lists as read-only"),
    ("git branch --delete x", "`git branch --delete` is not an option hookline lists as read-only"),
    ("git tag v1", "`git tag v1` creates a tag"),
    ("git tag -d v1", "`git tag -d` is not an option hookline lists as read-only"),
    ("git remote add o url", "`git remote add` is not a read-only git command"),
    ("git stash", "`git stash` is not a read-only git command"),
    ("git stash pop", "`git stash pop` is not a read-only git command"),
    ("git config user.name x", "`git config` may change settings"),
    ("git diff --output=patch", "`git diff --output` writes a file or runs a program"),
    ("git log --ext-diff", "`git log --ext-diff` writes a file or runs a program"),
    ("git grep -O x", "`git grep -O` runs a pager program"),
    ("git format-patch HEAD~1", "`format-patch` is not a read-only git command"),
    ("ls && rm x", "`rm` is not a read-only program"),
    ("echo $(rm x)", "`rm` is not a read-only program"),
]  # fmt: skip


@pytest.mark.parametrize("line", READS)
def test_lines_of_read_only_programs_run_unasked(line: str) -> None:
    assert why_not_read_only(analyze(line)) is None


@pytest.mark.parametrize(("line", "reason"), NOT_READS)
def test_lines_that_write_or_run_code_say_what_made_them_more_than_a_read(
    line: str, reason: str
) -> None:
    assert why_not_read_only(analyze(line)) == reason


def test_a_line_that_does_not_parse_is_not_read_only() -> None:
    why = why_not_read_only(analyze("ls 'unclosed"))

    assert why is not None and why.startswith("what runs cannot be known: it does not parse")
