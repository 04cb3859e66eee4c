"""The known subset: what the analyser accepts, the grammar docs/permissions.md writes down, and
code hidden inside what reads as data, tried for real.

Each attack is first run by real Bash in a throwaway folder, to show that it does run its code
(the sentinel file appears); then the analyser must call the line unknown (or, where it reads
the code, not read-only, with the code's commands listed), and an Agent on a ScriptedModel must
leave the sentinel absent: in default mode with nobody to approve, and in bypassPermissions
with a ``Bash(touch:*)`` deny rule.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_bash

import hookline.permissions.bash._builtins as builtins
import hookline.permissions.bash._subset as subset
from hookline import Agent, ScriptedModel
from hookline.permissions import PermissionPolicy, PermissionRule, targets
from hookline.permissions._readonly import why_not_read_only
from hookline.permissions.bash import analyze

DOCS = Path(__file__).resolve().parents[1] / "docs" / "permissions.md"
_VALUE = "x='a[$(touch @S@)]'; "

# Arithmetic, subscripts, offsets, indirection and transformations: Bash evaluates them as code.
# fmt: off
EVALUATED = [
    (_VALUE + "echo $((x))", "`$((x))` is arithmetic"),
    (_VALUE + "(( x ))", "`(( x ))` is arithmetic"),
    (_VALUE + "let x", "`let` evaluates its arguments as arithmetic"),
    (_VALUE + "[[ $x -eq 0 ]]", "`[[ ... -eq ... ]]` compares as arithmetic"),
    (_VALUE + "[[ x -gt 1 ]]", "`[[ ... -gt ... ]]` compares as arithmetic"),
    (_VALUE + "declare -i y; y=x", "`declare -i` is outside the known subset"),
    (_VALUE + "for ((i=x; i<0; i++)); do :; done", "`for ((...))` is arithmetic"),
    (_VALUE + "y=abc; echo ${y:x}", "`${y:x}` is a substring offset"),
    (_VALUE + "y=abc; echo ${y:0:x}", "`${y:0:x}` is a substring offset"),
    (_VALUE + "echo $[x]", "`$[x]` is arithmetic"),
    (_VALUE + "b=(1); echo ${b[x]}", "`${b[x]}` is an array subscript"),
    (_VALUE + "b[x]=1", "`b[x]` is an array subscript"),
    (_VALUE + "b=([x]=1)", "`[x]=1` is an array subscript"),
    (_VALUE + "cat <<< $((x))", "`$((x))` is arithmetic"),
    (_VALUE + "cat <<EOF\n$((x))\nEOF", "`((...))` is arithmetic"),
    (_VALUE + "case $((x)) in *) ;; esac", "`$((x))` is arithmetic"),
    (_VALUE + "shift $((x))", "`$((x))` is arithmetic"),
    (_VALUE + "echo ${!x}", "`${!x}` is an indirection"),
    ("x='$(touch @S@)'; echo ${x@P}", "`${x@P}` is a transformation"),
    (_VALUE + "declare -n r=$x; echo $r", "`declare -n` is outside the known subset"),
    (_VALUE + "time (( x ))", "`((...))` is arithmetic"),
    (_VALUE + "coproc (( x ))", "`((...))` is arithmetic"),
    (_VALUE + "RANDOM=$x", "`RANDOM=` is evaluated as arithmetic"),
    (_VALUE + "OPTIND=$x", "`OPTIND=` is evaluated as arithmetic"),
    (_VALUE + "local SRANDOM=$x 2>/dev/null || SRANDOM=$x", "`SRANDOM=` is evaluated"),
    (_VALUE + "read HISTCMD <<< $x", "`read` sets HISTCMD"),
    (_VALUE + "a=(1); echo hi {a[x]}>/dev/null", "`{a[x]}` names a descriptor"),
    (_VALUE + "a=(1); cat {a[x]}</dev/null", "`{a[x]}` names a descriptor"),
    (_VALUE + "if (( x )); then :; fi", "`(( x ))` is arithmetic"),
    (_VALUE + "while (( x )); do break; done", "`(( x ))` is arithmetic"),
    (_VALUE + "[[ $((x)) ]]", "`$((x))` is arithmetic"),
    (_VALUE + ": $(( x ))", "`$(( x ))` is arithmetic"),
    (_VALUE + ": ${z:=$((x))}", "is a default or alternative value"),
    (_VALUE + "arr=(1 2); echo ${arr[@]:x}", "`${arr[@]:x}` is an array subscript"),
    (_VALUE + "echo ${x:+$((x))}", "is a default or alternative value"),
    (_VALUE + "printf %d $((x))", "`$((x))` is arithmetic"),
    (_VALUE + "y=$((x))", "`$((x))` is arithmetic"),
    (_VALUE + "case 1 in $((x))) ;; esac", "`$((x))` is arithmetic"),
    (_VALUE + 'a=(1); echo "${a[x]}"', "`${a[x]}` is an array subscript"),
    (_VALUE + "declare -a a=([x]=1)", "`[x]=1` is an array subscript"),
    (_VALUE + "test $((x)) = 1", "`$((x))` is arithmetic"),
    (_VALUE + "f() { local -i y=x; }; f", "`local -i` is outside the known subset"),
    (_VALUE + "typeset -i y; y+=x", "`typeset -i` is outside the known subset"),
    (_VALUE + "echo $(( (x) ))", "`$(( (x) ))` is arithmetic"),
    (_VALUE + 'echo "$(( x + 1 ))"', "`$(( x + 1 ))` is arithmetic"),
    (_VALUE + "[[ -n $x && x -ne 1 ]]", "`[[ ... -ne ... ]]` compares as arithmetic"),
    (_VALUE + "[[ ( x -eq 1 ) ]]", "`[[ ... -eq ... ]]` compares as arithmetic"),
    (_VALUE + "a=(1); a+=([x]=2)", "`[x]=2` is an array subscript"),
    (_VALUE + "echo `echo $((x))`", "`$((x))` is arithmetic"),
    ("echo hi >&'$(touch @S@)'", "may expand its target a second time"),
    ("ls >&'`touch @S@`'", "may expand its target a second time"),
    ("echo hi 1>&'$(touch @S@)'", "may expand its target a second time"),
    ("x='$(touch @S@)'; echo hi >&\"$x\"", "may expand its target a second time"),
    ("x='`touch @S@`'; pwd >&\"$x\"", "may expand its target a second time"),
]

# Builtins that take a variable's name evaluate a subscript in it.
NAMES = [
    ("printf -v 'a[$(touch @S@)]' x", "`printf -v` takes a variable name"),
    (_VALUE + 'printf -v "$x" y', "`printf -v` takes a variable name"),
    ("read 'a[$(touch @S@)]' <<< 1", "`read` takes a variable name"),
    (_VALUE + 'test -v "$x"', "`test -v` takes a variable name"),
    (_VALUE + '[ -v "$x" ]', "`-v` takes a variable name"),
    (_VALUE + "[[ -v $x ]]", "`-v` takes a variable name"),
    ("declare 'a[$(touch @S@)]=1'", "`declare` takes a variable name"),
    ("typeset 'a[$(touch @S@)]=1'", "`typeset` takes a variable name"),
    ("declare -n r='a[$(touch @S@)]'; r=1", "`declare -n` is outside the known subset"),
    ("f() { local 'a[$(touch @S@)]=1'; }; f", "`local` takes a variable name"),
    ("sleep 0 & wait -n -p 'a[$(touch @S@)]'", "`wait -p` takes a variable name"),
    ("mapfile -C 'touch @S@' -c 1 m <<< 1", "`mapfile -C` runs a callback as code"),
    ("read PS4 <<< '$(touch @S@)'; set -x; :", "`read` sets PS4"),
    ("read -r PS4 <<< '$(touch @S@)'; set -o xtrace; :", "`read` sets PS4"),
    ("printf -v PS4 '$(touch @S@)'; set -x; :", "`printf -v` sets PS4"),
    ("mapfile -t PS4 <<< '$(touch @S@)'; set -x; :", "`mapfile` sets PS4"),
    ("for PS4 in '$(touch @S@)'; do set -x; :; done", "`for PS4` sets PS4"),
    ("builtin declare 'a[$(touch @S@)]=1'", "`declare` takes a variable name"),
    ("a=(1); builtin unset 'a[$(touch @S@)]'", "`unset` takes a variable name"),
    ("a=(1); command unset -v 'a[$(touch @S@)]'", "`unset` takes a variable name"),
    ("builtin printf -v 'a[$(touch @S@)]' x", "`printf -v` takes a variable name"),
    ("builtin read 'a[$(touch @S@)]' <<< 1", "`read` takes a variable name"),
]

# Builtins that run code: outside the subset unless the code is a literal string, which is read.
RUNNERS_OUTSIDE = [
    ("hash -p /usr/bin/touch ls; ls @S@", "`hash -p` makes a name run another program"),
    ("x='touch @S@'; trap \"$x\" EXIT", "`trap` runs a string only run time knows"),
    ("x='touch @S@'; eval -- \"$x\"", "`eval` runs a string only run time knows"),
    ("compgen -W '$(touch @S@)'", "`compgen` expands its word list"),
    ("jobs -x touch @S@", "`jobs -x` runs a command"),
    ("exec <<< 'touch @S@'; bash", "`exec` gave the shell a stdin that `bash` runs"),
    ("exec 0< <(echo touch @S@); sh", "`exec` gave the shell a stdin that `sh` runs"),
    ("exec < <(echo touch @S@); source /dev/stdin", "that `source` runs as code"),
    ("exec <<< 'import os; os.system(\"touch @S@\")'; python3", "that `python3` runs"),
    ("python3 <<< 'import os; os.system(\"touch @S@\")'", "`python3` runs code from stdin"),
    ("python3 - <<'EOF'\nimport os\nos.system('touch @S@')\nEOF", "`python3` runs code from"),
    ("builtin jobs -x touch @S@", "`jobs -x` runs a command"),
    ("exec 3< <(echo touch @S@); source /dev/fd/3", "`source /dev/fd/3` reads code"),
    ("source /proc/self/fd/3 3< <(echo touch @S@)", "`source /proc/self/fd/3` reads code"),
]
RUNNERS_READ = [
    "trap -- 'touch @S@' EXIT",
    "trap 'touch @S@' EXIT",
    "trap -- 'touch @S@' DEBUG; :",
    "trap -- 'touch @S@' ERR; false",
    "builtin trap -- 'touch @S@' EXIT",
    "eval -- 'touch @S@'",
    "command eval -- 'touch @S@'",
    "command_not_found_handle() { touch @S@; }; nonexistent_command_xyz",
    "f() { trap -- 'touch @S@' RETURN; }; f",
    "trap -- \"touch @S@\" EXIT; ls",
    ". /dev/stdin <<< 'touch @S@'",
    "source /dev/fd/0 <<'EOF'\ntouch @S@\nEOF",
]
# fmt: on

OUTSIDE = EVALUATED + NAMES + RUNNERS_OUTSIDE


def _fill(line: str, sentinel: Path) -> str:
    return line.replace("@S@", str(sentinel))


def _bash_runs_it(line: str, tmp_path: Path) -> None:
    """Real Bash, in a folder of its own: the attack does create its sentinel."""
    folder = tmp_path / "real"
    folder.mkdir()
    sentinel = folder / "s"
    subprocess.run(["bash", "-c", _fill(line, sentinel)], cwd=folder, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=30, check=False)  # fmt: skip
    assert sentinel.exists(), f"the attack does not run its code in Bash: {line}"


def _agent_leaves_it_absent(line: str, tmp_path: Path, mode: str) -> None:
    ws, sent = tmp_path / "ws", tmp_path / "sent"
    ws.mkdir()
    sent.mkdir()
    sentinel = sent / "s"
    call = {"id": "t1", "name": "Bash", "input": {"command": _fill(line, sentinel)}}
    deny = ((PermissionRule.parse("Bash(touch:*)"), "test"),) if mode != "default" else ()
    policy = PermissionPolicy(mode=mode, deny=deny, workspace=(str(ws),))  # type: ignore[arg-type]
    agent = Agent(ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]), cwd=ws,
                  permissions=policy)  # fmt: skip
    result = agent.run_sync("go")
    assert [c.status for c in result.tool_calls] == ["blocked"], result.tool_calls
    assert not sentinel.exists()


@pytest.mark.parametrize(("line", "why"), OUTSIDE)
def test_code_inside_data_is_outside_the_subset_and_never_runs(
    line: str, why: str, tmp_path: Path
) -> None:
    _bash_runs_it(line, tmp_path)
    analysis = analyze(_fill(line, tmp_path / "s"))
    assert any(why in reason for reason in analysis.unknown), analysis.unknown
    _agent_leaves_it_absent(line, tmp_path, "default")


@pytest.mark.parametrize("line", RUNNERS_READ)
def test_a_runners_literal_code_is_read_as_commands_of_the_line(line: str, tmp_path: Path) -> None:
    _bash_runs_it(line, tmp_path)
    analysis = analyze(_fill(line, tmp_path / "s"))
    assert "touch" in [c.name for c in analysis.commands]
    assert why_not_read_only(analysis) is not None
    _agent_leaves_it_absent(line, tmp_path, "default")


@pytest.mark.parametrize("line", [line for line, _ in OUTSIDE[::4]] + RUNNERS_READ[::3])
def test_a_deny_rule_holds_in_bypass_permissions(line: str, tmp_path: Path) -> None:
    _agent_leaves_it_absent(line, tmp_path, "bypassPermissions")


# -- cd ---------------------------------------------------------------------------------------

# In bypassPermissions: each deletes the folder above the workspace when Bash runs it, since its
# `cd` did not happen (or ended with its subshell) where the line reads as if it did.
# fmt: off
CD_ATTACKS = [
    "cd nope 2>/dev/null; rm -rf ../*",
    "cd sub/nope 2>/dev/null; rm -rf ../../*",
    "(cd sub); rm -rf ../*",
    "(cd sub && true); rm -rf ../*",
    "echo $(cd sub); rm -rf ../*",
    "cd sub | true; rm -rf ../*",
    "cd sub & wait; rm -rf ../*",
    "false && cd sub; rm -rf ../*",
    "false || cd nope 2>/dev/null; rm -rf ../*",
    "if false; then cd sub; fi; rm -rf ../*",
    "f() { cd sub; }; rm -rf ../*",
    "cd sub && cd nope 2>/dev/null; rm -rf ../../*",
    "! cd nope 2>/dev/null && rm -rf ../*",
    "cd nope 2>/dev/null || rm -rf ../*",
    "cd() { :; }; cd sub && rm -rf ../*",
    "function cd { :; }; cd sub && rm -rf ../*",
    "shopt -s expand_aliases; alias cd=:\ncd sub && rm -rf ../*",
]
# fmt: on


def _tree(root: Path) -> Path:
    """``root/ws`` (the workspace, with ``sub/``), and a canary beside it in ``root``."""
    (root / "ws" / "sub").mkdir(parents=True)
    (root / "canary.txt").write_text("keep me\n")
    return root / "ws"


@pytest.mark.parametrize("line", CD_ATTACKS)
def test_a_cd_that_may_not_have_happened_leaves_the_folder_unknown(
    line: str, tmp_path: Path
) -> None:
    real = _tree(tmp_path / "real")
    subprocess.run(["bash", "-c", line], cwd=real, capture_output=True, timeout=30, check=False)
    assert not (tmp_path / "real" / "canary.txt").exists(), "the attack does nothing in Bash"
    assert analyze(line).commands[-1].cwd in (None, "")
    ws = _tree(tmp_path / "agent")
    call = {"id": "t1", "name": "Bash", "input": {"command": line}}
    policy = PermissionPolicy(mode="bypassPermissions", workspace=(str(ws),))
    agent = Agent(ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]), cwd=ws,
                  permissions=policy)  # fmt: skip
    result = agent.run_sync("go")
    assert [c.status for c in result.tool_calls] == ["blocked"], result.tool_calls
    assert (tmp_path / "agent" / "canary.txt").exists()


def _far(root: Path) -> tuple[Path, Path]:
    """``root/ws/sub`` and ``root/far/sub``, with a canary in ``root/far/keep``."""
    for folder in ("ws/sub", "far/sub", "far/keep"):
        (root / folder).mkdir(parents=True)
    (root / "far" / "keep" / "canary.txt").write_text("keep me\n")
    return root / "ws", root / "far"


@pytest.mark.parametrize(
    "line",
    [
        "f() { rm -rf keep; }; cd ../far && f",
        "trap 'rm -rf keep' EXIT; cd ../far",
        "trap -- 'rm -rf keep' EXIT; cd ../far && true",
        "trap 'rm -rf keep' DEBUG; cd ../far && true",
    ],
)
def test_code_that_runs_later_runs_in_a_folder_only_known_then(line: str, tmp_path: Path) -> None:
    real_ws, real_far = _far(tmp_path / "real")
    subprocess.run(["bash", "-c", line], cwd=real_ws, capture_output=True, check=False)
    assert not (real_far / "keep").exists(), "the attack does nothing in Bash"
    ws, far = _far(tmp_path / "agent")
    call = {"id": "t1", "name": "Bash", "input": {"command": line}}
    policy = PermissionPolicy(mode="bypassPermissions", workspace=(str(ws),))
    agent = Agent(ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]), cwd=ws,
                  permissions=policy)  # fmt: skip
    result = agent.run_sync("go")
    assert [c.status for c in result.tool_calls] == ["blocked"], result.tool_calls
    assert (far / "keep" / "canary.txt").exists()


def test_a_cd_that_an_inherited_cdpath_may_redirect_leaves_the_folder_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = "cd sub && rm -rf ../keep"
    real_ws, real_far = _far(tmp_path / "real")
    env = {"PATH": "/usr/bin:/bin", "CDPATH": str(real_far)}
    subprocess.run(["bash", "-c", line], cwd=real_ws, env=env, capture_output=True, check=False)
    assert not (real_far / "keep").exists(), "the attack does nothing in Bash"
    ws, far = _far(tmp_path / "agent")
    monkeypatch.setenv("CDPATH", str(far))
    call = {"id": "t1", "name": "Bash", "input": {"command": line}}
    policy = PermissionPolicy(mode="bypassPermissions", workspace=(str(ws),))
    agent = Agent(ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]), cwd=ws,
                  permissions=policy)  # fmt: skip
    result = agent.run_sync("go")
    assert [c.status for c in result.tool_calls] == ["blocked"], result.tool_calls
    assert (far / "keep" / "canary.txt").exists()
    assert targets.folder(analyze("cd ./sub && ls").commands[-1], str(ws), str(tmp_path))


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("enable -f ./evil.so evil", "`enable` with arguments"),
        ("enable -n echo", "`enable` with arguments"),
        ("bind -x '\"\\C-x\": touch f'", "`bind` binds keys to code"),
        ("complete -C 'touch f' ls", "`complete` runs functions and commands"),
        ("compopt -o nospace", "`compopt` is outside"),
        ("fc -s", "`fc` runs commands from the history"),
        ("set -k; ls LD_PRELOAD=./evil.so", "`set -k` is outside"),
        ("history -w ~/.bashrc", "`history` with arguments"),
        ("local -", "`local -` is outside"),
    ],
)
def test_builtins_that_run_code_or_write_are_outside_the_subset(line: str, why: str) -> None:
    assert any(why in reason for reason in analyze(line).unknown), analyze(line).unknown


# -- inside the subset -----------------------------------------------------------------------

INSIDE = [
    "echo $x ${x} $1 $@ \"$@\" $? $# ${#} \"${a[@]}\" ${a[*]}", "echo $((2 * (3 + 4)))",
    "[[ -f a && $x == b* || -n $y ]]", "[[ 1 -eq 1 ]]", "[ \"$x\" -eq 0 ]", "test -v HOME",
    "[[ -v name ]]", "read -r a b <<< 'x y'", "printf -v out '%s' x", "mapfile -t lines < f",
    "declare -r x=1", "local -a xs=(a b)", "export A=1 B", "unset -v a b", "set -euo pipefail",
    "set +x", "shopt -s nullglob", "getopts ab opt", "x=(a b c)",
    "for f in *.py; do wc -l \"$f\"; done",
    "case $x in a|b) ls;; *) pwd;; esac", "if [ -d x ]; then ls x; fi", "hash -r", "enable -p",
    "trap - INT", "trap -p", "cat <<EOF\n$x ${y}\nEOF", "echo $'a\\n' \"t\"",
]  # fmt: skip


@pytest.mark.parametrize("line", INSIDE)
def test_plain_lines_are_inside_the_subset(line: str) -> None:
    assert analyze(line).known, analyze(line).unknown


EVERYDAY = [
    "ls -la", "cat a.txt", "grep -rn a *.txt", "git status", "git log --oneline -3", "git diff",
    "git show --stat", "find . -name '*.txt'", "ls | grep a | wc -l", "cat a.txt | sort | uniq -c",
]  # fmt: skip


@pytest.mark.parametrize("line", EVERYDAY)
def test_everyday_reads_run_unasked_in_default_mode(line: str, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    for git in (["init", "-q"], ["add", "a.txt"], ["commit", "-qm", "a"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *git], cwd=tmp_path,
                       check=True)  # fmt: skip
    call = {"id": "t1", "name": "Bash", "input": {"command": line}}
    policy = PermissionPolicy(workspace=(str(tmp_path),))
    agent = Agent(ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]), cwd=tmp_path,
                  permissions=policy)  # fmt: skip
    result = agent.run_sync("go")
    assert [c.status for c in result.tool_calls] == ["executed"], result.tool_calls


# -- the written model -----------------------------------------------------------------------


def _section() -> str:
    text = DOCS.read_text()
    start = text.index("### The known subset")
    return text[start : text.index("\n## ", start)]


def test_the_documented_grammar_names_every_node_type_the_reader_accepts() -> None:
    grammar = "\n".join(line for line in _section().splitlines() if line.startswith("    "))
    documented = set(re.findall(r"[a-z_]+", grammar)) - {"line", "structure", "leaf",
                                                         "expansion", "expression"}  # fmt: skip
    assert documented | {"expansion"} == subset.NODE_TYPES


def test_every_node_type_of_the_grammar_is_accepted_or_named_as_outside() -> None:
    language = tree_sitter.Language(tree_sitter_bash.language())
    named = {
        language.node_kind_for_id(i)
        for i in range(language.node_kind_count)
        if language.node_kind_is_named(i) and language.node_kind_is_visible(i)
    }
    assert named - subset.NODE_TYPES == {"c_style_for_statement", "subscript"}


def test_the_documented_builtins_are_the_table() -> None:
    section = _section()
    for name in builtins.BUILTINS:
        assert f"`{name}`" in section or f"`{name} " in section or f"/`{name}`" in section, name
