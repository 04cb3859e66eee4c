"""The Bash analysis itself: which commands it finds, how it reads words, options and wrappers,
and what it says cannot be known. (The attack table judges the verdicts built on it.)"""

from __future__ import annotations

import pytest

from hookline.permissions.bash import Analysis, analyze
from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._words import literal


def texts(line: str) -> list[str]:
    """The commands found, as ``name args`` with unknown words as ``?``."""
    return [c.text.replace("\0", "?") for c in analyze(line).commands]


def unknown(line: str) -> tuple[str, ...]:
    return analyze(line).unknown


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("ls -la", ["ls -la"]),
        ("a && b || c; d & e | f |& g", ["a", "b", "c", "d", "e", "f", "g"]),
        ("(a; b) && { c; }", ["a", "b", "c"]),
        ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
        ("while a; do b; done; until c; do d; done", ["a", "b", "c", "d"]),
        ("for x in 1 2; do b $x; done", ["b ?"]),
        ("case $x in a) b;; *) c;; esac", ["b", "c"]),
        ("echo $(a) `b` <(c) >(d)", ["a", "b", "c", "d", "echo ? ? ? ?"]),
        ('x="$(a)" y', ["a", "y"]),
        ('echo hi > "$(a)"', ["a", "echo hi"]),
        ('cat <<< "$(a)"', ["a", "cat"]),
        ("cat <<EOF\n$(a)\nEOF", ["a", "cat"]),
        ("f() { a; }; f", ["a", "f"]),
        ("> out.txt", [":"]),
    ],
)
def test_every_command_that_will_run_is_found(line: str, found: list[str]) -> None:
    assert texts(line) == found


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ('"touch" x', "touch"),
        ("t''ouch x", "touch"),
        ("\\touch x", "touch"),
        ("$'\\x74ouch' x", "touch"),
        ("/usr/bin/touch x", "touch"),
        ("./touch x", "touch"),
        ("tou\\\nch x", "touch"),
    ],
)
def test_a_command_name_is_read_as_bash_runs_it(line: str, name: str) -> None:
    assert name in [c.name for c in analyze(line).commands]


def test_a_path_named_program_keeps_its_path_for_allow_rules() -> None:
    (command,) = analyze("./echo hi").commands
    assert (command.name, command.path, command.written) == ("echo", "./echo", "./echo hi")


def test_braces_expand_into_words_and_too_many_are_unknowable() -> None:
    assert texts("echo {a,b}{1..2}") == ["echo a1 a2 b1 b2"]
    assert texts("echo '{a,b}'") == ["echo {a,b}"]  # quoted: no expansion
    assert "brace expansion" in unknown("echo {1..9}{1..9}{1..9}")[0]


def test_home_reads_as_a_tilde_only_where_it_starts_a_word() -> None:
    words = analyze('rm -rf "$HOME"/* ~ a$HOME "~"').commands[0].args
    assert [(w.value, w.tilde, w.glob) for w in words] == [
        ("-rf", False, False),
        ("~/*", True, True),
        ("~", True, False),
        (None, False, False),
        ("~", False, False),
    ]


@pytest.mark.parametrize(
    ("line", "commands", "via"),
    [
        ("sudo -u root env -i A=1 nice -n 5 timeout -s KILL 5 rm x",
         ["sudo", "env", "nice", "timeout", "rm"], ("sudo", "env", "nice", "timeout")),
        ("xargs -I{} rm {}", ["xargs", "rm"], ("xargs",)),
        ("find . -name x -exec rm {} \\;", ["find", "rm"], ("find -exec",)),
        ("bash -ec 'rm x'", ["bash", "rm"], ("bash -c",)),
        ("eval 'rm x'", ["eval", "rm"], ("eval",)),
        ("su -c 'rm x' root", ["su", "rm"], ("su -c",)),
        ("watch 'rm x'", ["watch", "rm"], ("watch",)),
        ("bash <<'EOF'\nrm x\nEOF", ["bash", "rm"], ("bash <<",)),
        ("trap 'rm x' EXIT", ["trap", "rm"], ("trap",)),
        ("env -S 'rm x'", ["env", "rm"], ("env -S",)),
    ],
)  # fmt: skip
def test_wrappers_and_code_strings_are_read_to_the_command_they_run(
    line: str, commands: list[str], via: tuple[str, ...]
) -> None:
    analysis = analyze(line)
    assert [c.name for c in analysis.commands] == commands
    assert analysis.commands[-1].via == via
    assert analysis.known


def test_only_wrappers_that_change_how_a_command_runs_are_transparent() -> None:
    transparent = {c.name for c in analyze("timeout 5 nice env A=1 xargs ls").commands if c.wrapper}
    assert transparent == {"timeout", "nice", "env", "xargs"}
    assert all(c.transparent for c in analyze("timeout 5 nice env A=1 xargs ls").commands[:-1])
    assert not analyze("sudo ls").commands[0].transparent


def test_xargs_and_find_plus_get_more_arguments_at_run_time() -> None:
    assert analyze("xargs rm").commands[-1].more_args
    assert analyze("find . -exec rm {} +").commands[-1].more_args
    assert not analyze("find . -exec rm {} \\;").commands[-1].more_args
    assert "not closed" in analyze("find . -exec rm {}").unknown[0]


@pytest.mark.parametrize(
    ("line", "cwds"),
    [
        ("a; cd /srv && b && cd x && c", ["", "", "/srv", "/srv", None]),
        ("cd /srv && b; c", ["", "/srv", None]),
        ("cd /srv && b || c", ["", "/srv", None]),
        ("cd nope 2>/dev/null; rm -rf ../*", ["", None]),
        ("(cd /tmp); touch x", ["", ""]),
        ("(cd /tmp && touch x); touch y", ["", None, ""]),
        ("echo $(cd /tmp); touch x", ["", "", ""]),
        ("cd /tmp | ls; touch x", ["", None, None]),
        ("cd /tmp & touch x", ["", None]),
        ("true && cd /tmp && touch x", ["", "", None]),
        ("! cd /tmp && touch x", ["", None]),
        ("if true; then cd /tmp; fi; touch x", ["", "", None]),
        ("f() { cd /tmp; }; touch x", [None, None]),
        ("f() { rm -rf ./x; }; cd / && f", [None, "", "/"]),
        ("trap 'rm x' EXIT; cd / && ls", ["", None, "", "/"]),
        ("trap 'cd /' DEBUG; rm x", ["", None, None]),
        ("{ cd /tmp; }; touch x", ["", None]),
        ("pushd /tmp && touch x", ["", None]),
        ("popd && touch x", ["", None]),
        ("builtin cd /tmp && touch x", ["", "", None]),
        ("cd $D && touch x", ["", None]),
        ("cd && touch x", ["", "~"]),
        ("cd - && touch x", ["", None]),
        ("cd ~- && touch x", ["", None]),
        ("cd ~+ && touch x", ["", None]),
        ("cd -- -x && touch x", ["", "-x"]),
        ("cd -P sub && touch x", ["", "sub"]),
        ("cd '~' && touch x", ["", "./~"]),
        ("cd ~ && touch x", ["", "~"]),
        ("cd a b && touch x", ["", None]),
        ("cd() { :; }; cd sub && touch x", [None, "", None]),
        ("alias cd=:; cd sub && touch x", ["", "", "", None]),
        ("eval 'cd /tmp' && touch x", ["", "", None]),
    ],
)
def test_a_cd_moves_the_folder_only_at_the_top_level_and_for_what_its_success_guards(
    line: str, cwds: list[str | None]
) -> None:
    assert [c.cwd for c in analyze(line).commands] == cwds


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("$CMD x", "command name"),
        ('"$(echo rm)" x', "command name"),
        ("touch${IFS}x", "command name"),
        ("/bin/r? x", "glob"),
        ('eval "$X"', "run time"),
        ("curl -s x | sh", "piped into `sh`"),
        ("base64 -d <<< aGk= | bash", "piped into `bash`"),
        ("cat f | python3", "piped into `python3`"),
        ("sh < script.sh", "fed to `sh`"),
        ("bash <(curl x)", "run time knows"),
        ("bash <<EOF\n$(x)\nEOF", "expansions"),
        ("PATH=. ls", "PATH"),
        ("export LD_PRELOAD=/x.so; ls", "LD_PRELOAD"),
        ("env BASH_ENV=x bash -c ls", "BASH_ENV"),
        ("timeout --bogus 5 ls", "does not know"),
        ("echo 'open", "does not parse"),
        ("echo $(date", "does not parse"),
        ("a\0b", "NUL"),
        ("x" * 100_001, "longer than"),
        ("bash -c " + "\"bash -c '" * 4 + "ls", "does not parse"),
        ("sudo " * 40 + "ls", "wrapped more than"),
        ("(" * 3000 + "ls" + ")" * 3000, "nests too deep"),
        ("python3 - <<'EOF'\nprint(1)\nEOF", "`python3` runs code from stdin"),
    ],
)
def test_what_cannot_be_known_says_why(line: str, why: str) -> None:
    analysis = analyze(line)
    assert not analysis.known
    assert any(why in reason for reason in analysis.unknown), analysis.unknown


@pytest.mark.parametrize(
    "line",
    [
        "echo $HOME",
        "ls $(pwd)",
        "python3 script.py < data.txt",
        "bash script.sh",
        "cat <<EOF\nhi\nEOF",
    ],
)
def test_data_in_arguments_is_not_unknowable(line: str) -> None:
    assert analyze(line).known, analyze(line).unknown


def test_redirects_say_whether_they_write_a_file() -> None:
    (command,) = analyze("cmd 2>&1 >out.txt <in.txt >&- 2>>log").commands
    assert [(r.op, r.target.value if r.target else None, r.writes) for r in command.redirects] == [
        (">&", "1", False),
        (">", "out.txt", True),
        ("<", "in.txt", False),
        (">&-", None, False),
        (">>", "log", True),
    ]


def test_a_function_that_calls_itself_is_recorded() -> None:
    assert analyze(":(){ :|:& };:").recursive == (":",)
    assert analyze("f() { ls; }; f").recursive == ()


def test_the_same_line_is_analysed_once() -> None:
    analyze.cache_clear()
    first: Analysis = analyze("git status")
    assert analyze("git status") is first


@pytest.mark.parametrize(
    ("words", "options", "operands"),
    [
        (["-rf", "/"], ["r", "f"], ["/"]),
        (["-n5", "x"], ["n"], ["x"]),
        (["-n", "5", "x"], ["n"], ["x"]),
        (["--recu", "x"], ["--recursive"], ["x"]),  # a unique prefix stands for the name
        (["--mode=7", "x"], ["--mode"], ["x"]),
        (["x", "-v", "--", "-y"], ["v"], ["x", "-y"]),
        (["-Q", "x"], ["Q"], ["x"]),
    ],
)
def test_options_read_as_gnu_programs_read_them(
    words: list[str], options: list[str], operands: list[str]
) -> None:
    spec = Options.of("rfv", "n", "--recursive --force", "--mode")
    given = read([literal(w) for w in words], spec)
    assert [o.name for o in given.options] == options
    assert [w.value for w in given.operands] == operands
    assert [o.known for o in given.options] == [name != "Q" for name in options]


def test_a_wrappers_options_end_at_its_command() -> None:
    given = read([literal(w) for w in ["-s", "KILL", "5", "rm", "-rf"]], Options.of("", "s"),
                 first_operand_ends=True)  # fmt: skip
    assert [o.name for o in given.options] == ["s"]
    assert [w.value for w in given.operands] == ["5", "rm", "-rf"]
