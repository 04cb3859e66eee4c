"""The simple commands the fuzzer builds: programs with their real options, and builtins.

``READ_ONLY`` holds the programs of the read-only tier (``hookline.permissions._readonly``) with
options they take, harmless ones and those that write or run code side by side, so lines land
on both sides of the tier's line. ``WRITERS`` are file-editing and other programs; ``GIT``
git's verbs with their options; ``BUILTINS`` Bash's builtins, the name-taking ones among them
(``printf -v``, ``read``, ``declare``, ``let``, ``test -v``, ``unset``, ...).
"""

from __future__ import annotations

from hypothesis import strategies as st

from bashfuzz.words import NAMES, PAYLOADS, pick, quote, single, word

# program -> options (a string with a space is two words, as written)
READ_ONLY: dict[str, tuple[str, ...]] = {
    "ls": ("-l", "-a", "-la", "-R", "-1", "-d", "--color=never", "-h", "--sort=size", "-F"),
    "cat": ("-n", "-A", "-v", "-s", "-E"),
    "head": ("-n 1", "-c 3", "-1", "-n -1", "-q"),
    "tail": ("-n 1", "-c 3", "-1", "-n +2", "--pid=1 -n 1"),
    "wc": ("-l", "-c", "-w", "-m", "--files0-from=/dev/null"),
    "grep": ("-r", "-n", "-i", "-l", "-c", "-e a", "-F", "-E", "--include=*.txt", "-o", "-q", "-v",
             "-f a.txt", "-R", "-s", "--color=never", "-A 1", "-H"),
    "egrep": ("-n", "-i", "a"), "fgrep": ("-n", "a"),
    "sort": ("-r", "-n", "-u", "-k 2", "-t ,", "-o out.txt", "--output=out.txt",
             "--compress-program=touch", "-T /tmp", "-c", "-m", "-s", "--debug"),
    "uniq": ("-c", "-d", "-u", "-i", "-f 1"),
    "find": (". -name *.txt", "-type f", "-maxdepth 1", "-print", "-newer a.txt", "-delete",
             "-exec touch pwned ;", "-fprint out.txt", "-ls", "-printf %p\\n", "-mindepth 1",
             "-print0", "-execdir ls {} +", "-ok ls ;", "-fls out.txt", "-empty", "-L", "-H",
             "-path ./.git -prune -o -print"),
    "date": ("+%s", "-d @0", "-u", "-s 2020-01-01", "--set=2020-01-01", "-r a.txt", "-I",
             "-f /dev/null", "-R"),
    "hostname": ("-f", "-s", "-F a.txt", "newname", "-b"),
    "stat": ("-c %s", "-L", "-f", "--printf=%n\\n", "-t"),
    "readlink": ("-f", "-e", "-m", "-n"), "realpath": ("-m", "-e", "-s", "--relative-to=sub"),
    "basename": ("-a", "-s .txt"), "dirname": ("-z",),
    "du": ("-s", "-h", "-a", "-c", "--max-depth=1"), "df": ("-h", "-T", "."),
    "cut": ("-d : -f 1", "-c 1-2", "-f 1"), "tr": ("a-z A-Z", "-d a", "-s a"),
    "diff": ("-u", "-r", "-q", "--color=never", "-N"), "cmp": ("-s", "-l"),
    "comm": ("-1", "-2", "-3"), "paste": ("-d ,", "-s"), "fold": ("-w 3", "-s"),
    "od": ("-c", "-An -tx1"), "hexdump": ("-C", "-n 4"), "strings": ("-n 2",),
    "nl": ("-b a",), "rev": (), "tac": ("-s x",), "seq": ("3", "1 2", "-w 3", "-s , 3"),
    "column": ("-t", "-s ,"), "jq": (".", "-r .k", "-n 1+1", "-c .", "--arg x 1 $x", "-S ."),
    "md5sum": ("-c", "--tag"), "sha256sum": ("-b",), "cksum": (), "b2sum": (), "sum": (),
    "file": ("-b", "-i", "-L", "-C", "--compile", "-m /dev/null", "-z"),
    "env": ("-i", "-u HOME", "-0", "-C sub", "--chdir=sub", "-S ls"),
    "printenv": ("HOME", "PATH"), "id": ("-u", "-n"), "whoami": (), "uname": ("-a", "-r"),
    "nproc": (), "free": ("-m",), "uptime": ("-p",), "ps": ("-e", "aux", "-o pid"),
    "groups": (), "locale": ("-a",), "lsblk": ("-l",), "which": ("-a",), "whereis": ("-b",),
    "type": ("-a", "-t", "-p", "-P"), "command": ("-v", "-V", "-p"), "pwd": ("-P", "-L"),
    "echo": ("-n", "-e", "-E"), "printf": ("%s\\n", "-v x", "-v a[0]", "-v 'a[$(touch pwned)]'",
                                            "%q", "%d"),
    "test": ("-e", "-f", "-d", "-v x", "-n", "-z", "-v 'a[$(touch pwned)]'", "-x"),
    "[": ("-e", "-f", "-v x", "-v 'a[$(touch pwned)]'"), "sleep": ("0", "0.01"),
    "true": (), "false": (), ":": (), "cd": ("-P", "-L", "--"), "pushd": ("-n",),
    "popd": ("-n",), "dirs": ("-v", "-c", "-l"), "wait": (), "tree": ("-a", "-o out.txt", "-L 1"),
    "rg": ("-n", "--pre=touch", "--files", "-l x"), "ag": ("--pager=touch", "x"),
}  # fmt: skip
WRITERS: dict[str, tuple[str, ...]] = {
    "touch": ("-c", "-a", "-m", "-d @0", "-r a.txt", "-h"),
    "rm": ("-f", "-r", "-rf", "-i", "-v", "-d", "--one-file-system"),
    "cp": ("-r", "-a", "-f", "-n", "-p", "-v", "-s", "-t sub", "--parents", "-l", "-b",
           "-S .bak", "-u", "-T"),
    "mv": ("-f", "-n", "-v", "-t sub", "-b", "-T", "-u"),
    "mkdir": ("-p", "-v", "-m 700", "-m 777"), "rmdir": ("-p", "-v"),
    "chmod": ("644", "+x", "-w", "u+x", "-R 755", "--reference=a.txt", "-v 600"),
    "ln": ("-s", "-f", "-sf"), "tee": ("-a",), "truncate": ("-s 0",), "install": ("-m 644",),
    "sed": ("-n p", "-i s/a/b/", "-n '1e touch pwned'", "-n 'w out.txt'", "-e s/a/b/"),
    "dd": ("if=a.txt of=out.txt", "if=a.txt", "of=/dev/null if=a.txt"),
    "awk": ("'{print}'", "'BEGIN{system(\"touch pwned\")}'"),
    "python3": ("-c 'print(1)'", "-V"), "bash": ("-c 'ls'", "-c 'touch pwned'"),
    "sh": ("-c ls",), "xargs": ("ls", "-I{} cat {}", "-0", "touch"),
    "timeout": ("2 ls", "2 touch pwned", "-s KILL 2 cat a.txt"),
    "nice": ("ls", "-n 1 cat a.txt", "touch pwned"), "nohup": ("ls",),
    "stdbuf": ("-o0 ls", "-oL cat a.txt"), "sudo": ("ls",), "setsid": ("ls",),
    "time": ("ls", "-p ls", "-o out.txt ls"), "chown": ("0",), "less": (),
    "patch": ("-p1",), "tar": ("-cf out.tar a.txt", "-tf a.txt"),
    "make": ("-n",), "./run.sh": (), "/usr/bin/touch": ("pwned",), "/bin/ls": ("-l",),
}  # fmt: skip
GIT: dict[str, tuple[str, ...]] = {
    "status": ("-s", "--porcelain", "-b", "--ignored", "-uno", "--short"),
    "log": ("--oneline", "-n 1", "-1", "--stat", "-p", "--format=%H", "--output=out.txt",
            "--ext-diff", "--no-ext-diff", "--textconv", "--all", "HEAD", "-- a.txt", "-g",
            "--graph", "--decorate", "--output out.txt"),
    "show": ("HEAD", "--stat", "-s", "v1", "--output=out.txt", "HEAD:a.txt", "--ext-diff"),
    "diff": ("HEAD", "--stat", "--cached", "--name-only", "--output=out.txt", "--ext-diff",
             "--no-index a.txt b.md", "--textconv", "HEAD~1"),
    "diff-tree": ("-r HEAD", "-p HEAD", "--output=out.txt -p HEAD", "--stat HEAD"),
    "diff-files": ("-p", "--output=out.txt", "--stat"),
    "diff-index": ("HEAD", "-p HEAD", "--output=out.txt HEAD", "--cached HEAD"),
    "blame": ("a.txt", "-L 1,1 a.txt", "--output=out.txt a.txt", "-s a.txt"),
    "rev-list": ("HEAD", "--count HEAD", "--all", "--output=out.txt HEAD"),
    "rev-parse": ("HEAD", "--show-toplevel", "--git-dir", "--abbrev-ref HEAD"),
    "ls-files": ("-s", "-o", "--others", "-m"), "ls-tree": ("HEAD", "-r HEAD"),
    "ls-remote": (".", "origin", "--upload-pack=touch\\ pwned .", "--heads ."),
    "cat-file": ("-p HEAD", "-t HEAD", "--textconv HEAD:a.txt", "--batch-check"),
    "describe": ("--tags", "--always", "--dirty"), "show-ref": ("", "--tags"),
    "for-each-ref": ("", "--format='%(refname)'"), "name-rev": ("HEAD",),
    "merge-base": ("HEAD main",), "count-objects": ("-v",), "shortlog": ("-s HEAD",),
    "grep": ("-n alpha", "-O alpha", "--open-files-in-pager=touch alpha", "-l a"),
    "config": ("--get user.name", "--list", "-l", "--get-all core.bare", "core.pager touch",
               "--add x.y 1", "--get-regexp core", "-l --file=.git/config"),
    "branch": ("", "-a", "--list", "-v", "newbranch", "-D feature", "--show-current",
               "-m x", "--contains HEAD"),
    "tag": ("", "-l", "newtag", "-d v1", "-n"),
    "remote": ("", "-v", "show origin", "get-url origin", "add x .", "remove origin"),
    "reflog": ("", "show", "show --output=out.txt", "expire --all", "delete HEAD@{0}"),
    "stash": ("list", "show", "show -p", "show --output=out.txt", "drop", "pop", "push"),
    "worktree": ("list", "add ../outside/wt"), "help": ("-a", "log", "-w log", "-g"),
    "version": ("",), "var": ("GIT_EDITOR", "-l"), "check-ignore": ("a.txt",),
    "archive": ("-o out.zip HEAD",), "add": ("a.txt",), "commit": ("-m x",),
    "checkout": ("feature",), "gc": ("",), "fsck": ("",),
}  # fmt: skip
GIT_GLOBAL = ("", "", "", "-C sub", "--no-pager", "-P", "-c core.pager=touch",
              "--git-dir=.git", "--work-tree=.", "-p", "--exec-path=.", "--no-optional-locks",
              "-c core.fsmonitor=touch\\ pwned", "--git-dir=gitlink", "-C gitlink")  # fmt: skip


_READ_NAMES, _WRITER_NAMES, _GIT_VERBS = sorted(READ_ONLY), sorted(WRITERS), sorted(GIT)
#: The file-editing programs of acceptEdits, with options they know and some they refuse.
EDITING: dict[str, tuple[str, ...]] = {
    "mkdir": ("", "", "-p", "-v", "-m 700"), "touch": ("", "", "-c", "-m", "-d @0", "-a"),
    "cp": ("", "", "-r", "-a", "-f", "-n", "-p", "-s", "-t sub", "-l", "--parents"),
    "mv": ("", "", "-f", "-n", "-v", "-T", "-t sub"), "rm": ("", "", "-f", "-v", "-r", "-d"),
    "rmdir": ("", "-v", "-p"), "chmod": ("644", "+x", "u+w", "-R 755", "-x", "600"),
}  # fmt: skip
_EDITING_NAMES = sorted(EDITING)
EDIT_PATHS = ("new.txt", "new.txt", "a.txt", "sub/new", "sub", "sub/c.txt", "lnk", "dirlink/x",
              "gitlink/x", "link_out/x", "homelink/x", ".git/x", ".claude/x", ".hookline/x",
              "../x", "../outside/x", "~/x", "~+/../x", "~-/x", "nope/x", "*.txt", "sub/*",
              "new dir", "sp ace.txt", "/tmp/x", "d", "d/e", "../ws/new.txt", ".", "..",
              "sub/../../x", "x{1,2}", "$x", "$HOME/x", "$PWD/x")  # fmt: skip


def options_and_args(draw: st.DrawFn, options: tuple[str, ...]) -> list[str]:
    chosen = [pick(draw, options) for _ in range(pick(draw, (0, 1, 1, 2)))] if options else []
    words = [w for option in chosen for w in option.split(" ") if w]
    return words + [word(draw) for _ in range(pick(draw, (0, 1, 1, 2)))]


def read_only_command(draw: st.DrawFn) -> str:
    name = pick(draw, _READ_NAMES)
    words = [name, *options_and_args(draw, READ_ONLY[name])]
    return " ".join([*words, "]"] if name == "[" else words)


def writer_command(draw: st.DrawFn) -> str:
    name = pick(draw, _WRITER_NAMES)
    return " ".join([name, *options_and_args(draw, WRITERS[name])])


def editing_command(draw: st.DrawFn) -> str:
    """A file edit acceptEdits may prove: mostly plain paths inside the workspace."""
    name = pick(draw, _EDITING_NAMES)
    option = pick(draw, EDITING[name])
    count = pick(draw, (1, 1, 2, 2, 3)) if name in ("cp", "mv") else pick(draw, (1, 1, 2))
    paths = [quote(draw, pick(draw, EDIT_PATHS)) for _ in range(count)]
    if name in ("cp", "mv") and len(paths) == 1:
        paths.insert(0, "a.txt")
    return " ".join(p for p in (name, option, *paths) if p)


def git_command(draw: st.DrawFn) -> str:
    verb = pick(draw, _GIT_VERBS)
    options = [pick(draw, GIT[verb]) for _ in range(pick(draw, (1, 1, 2)))]
    parts = ["git", pick(draw, GIT_GLOBAL), verb, *options]
    if pick(draw, (0, 0, 1)):
        parts.append(word(draw))
    return " ".join(p for p in parts if p)


_BUILTINS = ("printf -v {T} %s {W}", "read -r {T} <<< {W}", "declare {T}", "declare -i {N}",
             "declare -n {N}={T}", "declare -p {N}", "local {N}={W}", "typeset {N}={W}",
             "export {N}={W}", "export {T}", "readonly {N}", "unset {T}", "unset -v {T}",
             "unset -f {N}", "let {T}", "let '{N}=1'", "test -v {T}", "[ -v {T} ]",
             "[[ -v {T} ]]", "[[ ${N} -eq 0 ]]", "[[ {T} -eq 0 ]]", "[[ {W} == a* ]]",
             "[[ -n {W} ]]", "(( {T} ))", "(( {N} ))", "(( {N} + 1 ))", "cd {W}", "cd", "cd -",
             "cd ..", "cd sub", "cd nope", "pushd {W}", "popd", "hash {W}",
             "hash -p /usr/bin/touch ls", "hash -r", "type {W}", "command -v {W}",
             "trap 'touch pwned' EXIT", "trap - EXIT", "trap -p", "eval {W}", "eval {P}",
             "source {W}", ". {W}", "set -x", "set -e", "set -- {W}", "set -- {P}",
             "shopt -s nullglob", "shopt -s expand_aliases", "alias ls={P}", "alias",
             "enable -n echo", "mapfile -t {N} < a.txt", "readarray {T} < a.txt",
             "getopts ab {N}", "exec 3<a.txt", "exec >/dev/null", "builtin echo {W}", "wait",
             "kill -0 $$", "umask", "umask 077", "times", "caller", "compgen -c l", "help cd",
             "history", "fc -l", "echo {W}", "printf '%s\\n' {W}", "true", ":", "exit 0",
             "exit 1", "return 2>/dev/null", "echo $(({N}))", "echo ${!{N}}", "echo ${{N}@P}",
             "echo ${a[{N}]}", "echo ${{N}:{N}}", "echo $(({T}))", "[[ ${a[{N}]} ]]")  # fmt: skip


def builtin_command(draw: st.DrawFn) -> str:
    """A builtin, name-taking ones often given a payload or a computed name: in the form,
    ``{N}`` is a name, ``{T}`` a target (a name, a payload, a subscript), ``{P}`` a payload,
    ``{W}`` a word."""
    text = pick(draw, _BUILTINS)
    name = pick(draw, NAMES)
    payload = single(pick(draw, PAYLOADS))
    if "{T}" in text:
        text = text.replace("{T}", pick(draw, (name, name, payload, f"a[{name}]", f"${name}")))
    if "{W}" in text:
        text = text.replace("{W}", word(draw))
    return text.replace("{N}", name).replace("{P}", payload)


#: Ways to put a value into a variable ``{N}``, then contexts where Bash evaluates ``{N}`` (or
#: its value) as arithmetic, a subscript, a name or a prompt.
_SETS = ("{N}={P}", "declare {N}={P}", "export {N}={P}", "read -r {N} <<< {P}",
         "printf -v {N} %s {P}", "set -- {P}; {N}=$1", "for {N} in {P}; do :; done",
         "mapfile -t a <<< {P}; {N}=${a[0]}", "{N}={P} ")  # fmt: skip
_EVALUATES = ("echo $(({N}))", "echo ${!{N}}", "echo ${{N}@P}", "echo ${a[{N}]}", "echo ${y:{N}}",
              "echo ${y:0:{N}}", "[[ ${N} -eq 0 ]]", "[[ {N} -eq 0 ]]", "(( {N} ))",
              "let {N}", "test -v ${N}", "[ -v \"${N}\" ]", "echo \"${a[${N}]}\"",
              "echo ${#a[{N}]}", "echo $[{N}]", "for ((i={N}; i<0; i++)); do :; done",
              "[[ -v ${N} ]]", "declare -n r={N}; echo $r", "printf %d \"${N}\"",
              "echo $(( ${N} ))", "test \"${N}\" -eq 1", "declare -i y=${N}", "shift ${N}",
              "echo ${a[@]:{N}}", "printf -v ${N} x", "read -r -n ${N} y < a.txt",
              "echo \"${{N}@P}\"", "cat <<EOF\n$(({N}))\nEOF", "printf '%*s' \"${N}\" x",
              "[[ ${a[{N}]} ]]", "unset ${N}", "export ${N}", "echo ${{N}[@]@P}",
              "echo ${{N}:-${!{N}}}", "case $(({N})) in *) :;; esac")  # fmt: skip


def evaluated(draw: st.DrawFn) -> str:
    """A payload put into a variable, then the variable used where Bash evaluates it."""
    name = pick(draw, ("x", "x", "y", "i", "f"))
    payload = quote(draw, pick(draw, PAYLOADS))
    text = pick(draw, _SETS)
    text = text + ("" if text.endswith(" ") else "; ") + pick(draw, _EVALUATES)
    return text.replace("{N}", name).replace("{P}", payload)
