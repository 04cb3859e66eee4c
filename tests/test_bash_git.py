"""git commands split as git splits them, and rules that name a git subcommand matching it
however the global options spell it (``git -C . push``, ``git --no-pager push``)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookline import PreToolUse
from hookline._events import Scope
from hookline.permissions._command_rules import command_matches
from hookline.permissions._rules import PermissionRule, if_
from hookline.permissions.bash import analyze
from hookline.permissions.bash._git import split
from hookline.permissions.bash._words import Word, literal


def words(line: str) -> list[Word]:
    return [literal(w) for w in line.split()]


@pytest.mark.parametrize(
    ("line", "options", "subcommand", "args"),
    [
        ("push", [], "push", []),
        ("-C . push -f", [("-C", ".")], "push", ["-f"]),
        ("-c k=v --no-pager push", [("-c", "k=v"), ("--no-pager", None)], "push", []),
        ("--git-dir=.git --work-tree . log", [("--git-dir", ".git"), ("--work-tree", ".")],
         "log", []),
        ("--namespace x -P --bare status", [("--namespace", "x"), ("-P", None),
                                            ("--bare", None)], "status", []),
        ("--literal-pathspecs --config-env=a.b=E push", [("--literal-pathspecs", None),
                                                          ("--config-env", "a.b=E")], "push", []),
        ("--exec-path=/x --super-prefix p/ status", [("--exec-path", "/x"),
                                                     ("--super-prefix", "p/")], "status", []),
        ("--help push", [], "help", ["push"]),
        ("-v", [], "version", []),
        ("--exec-path", [("--exec-path", None)], None, []),  # prints the path, runs nothing
        ("-C a -C b push origin main", [("-C", "a"), ("-C", "b")], "push", ["origin", "main"]),
    ],
)  # fmt: skip
def test_global_options_are_split_from_the_subcommand_as_git_reads_them(
    line: str, options: list[tuple[str, str | None]], subcommand: str | None, args: list[str]
) -> None:
    git = split(words(line))
    assert git.unknown == ""
    assert [(o.name, o.value.value if o.value else None) for o in git.options] == options
    assert (git.subcommand, [a.value for a in git.args]) == (subcommand, args)


@pytest.mark.parametrize(
    "line",
    ["--no-pag push", "-Cdir push", "-pP push", "--frobnicate push", "-C", "--git-dir"],
)
def test_what_git_would_not_take_as_a_global_option_leaves_the_split_unknown(line: str) -> None:
    git = split(words(line))
    assert git.unknown and git.subcommand is None


def test_git_takes_no_abbreviation_or_cluster_of_its_global_options(tmp_path: Path) -> None:
    """The model above agrees with the real git: these spellings fail before any subcommand."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for spelling in (["--no-pag"], ["-Cdir"], ["-pP"]):
        done = subprocess.run(["git", *spelling, "status"], cwd=tmp_path, capture_output=True)
        assert done.returncode != 0, spelling
    ok = subprocess.run(["git", "-C", ".", "--no-pager", "-c", "a.b=c", "status"], cwd=tmp_path)
    assert ok.returncode == 0


def test_a_word_only_run_time_knows_before_the_subcommand_leaves_it_unknown() -> None:
    (command,) = analyze("git $OPT push").commands
    assert split(command.args).subcommand is None
    assert "a git option or subcommand is not known" in analyze("git $OPT push").unknown[0]


def test_the_text_is_the_subcommand_and_its_words_as_a_rule_names_them() -> None:
    assert split(words("-C . --no-pager push -f origin")).text == "git push -f origin"
    assert split(words("--version")).text == "git version"
    assert split(words("--exec-path")).text == "git"


PUSHES = ["git -C . push", "git --no-pager push", "git -c color.ui=never push", "git -P push",
          "git --git-dir=.git --work-tree=. push origin main", "git -C $DIR push",
          "/usr/bin/git --no-pager push -f", "git --namespace n push", "git -c k=v push",
          "git --bare push", "sudo git -C . push"]  # fmt: skip


@pytest.mark.parametrize("line", PUSHES)
@pytest.mark.parametrize("spec", ["git push:*", "git push *", "git push*"])
def test_deny_and_ask_rules_on_a_subcommand_meet_it_behind_global_options(
    spec: str, line: str
) -> None:
    assert command_matches(spec, line, every=False)


def test_a_rule_on_one_subcommand_does_not_meet_another_behind_global_options() -> None:
    assert not command_matches("git push:*", "git -C . status", every=False)
    assert not command_matches("git push:*", "git --no-pager log -p", every=False)


def test_an_allow_rule_on_a_subcommand_does_not_approve_it_behind_global_options() -> None:
    """`-C elsewhere` or `-c` change what the subcommand does: an allow rule proves only what
    it names as written."""
    assert command_matches("git push:*", "git push origin", every=True)
    assert not command_matches("git push:*", "git -C /elsewhere push", every=True)
    assert not command_matches("git push:*", "git -c core.sshCommand=evil push", every=True)


@pytest.mark.parametrize("line", PUSHES)
def test_a_hook_if_condition_on_git_push_meets_every_spelling(line: str) -> None:
    event = Scope("s1", "/tmp/t.jsonl", "/work").event(
        PreToolUse, tool_name="Bash", tool_input={"command": line}, tool_use_id="t1"
    )
    assert if_("Bash(git push:*)")(event)
    rule = PermissionRule.parse("Bash(git push *)")
    assert rule.matches("Bash", {"command": line}, cwd="/work")


GLOBALS = [["-C", "."], ["-c", "a.b=c"], ["--git-dir=.git"], ["--git-dir", ".git"],
           ["--work-tree=."], ["--work-tree", "."], ["--namespace=n"], ["--namespace", "n"],
           ["--no-pager"], ["-P"], ["-p"], ["--no-replace-objects"], ["--literal-pathspecs"],
           ["--no-optional-locks"], ["--config-env=a.b=HOME"], ["--config-env", "a.b=HOME"],
           ["--no-pag"], ["-Cx"], ["-pP"], ["--frob"], ["-c"], ["--git-dir"], ["-h"],
           ["--version"], ["--exec-path"], ["--html-path"], ["rev-parse"], ["--"]]  # fmt: skip


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.lists(st.sampled_from(GLOBALS), max_size=4), st.sampled_from([[], ["--git-dir"]]))
def test_the_split_agrees_with_the_real_git_on_what_it_runs(
    git_repo: Path, options: list[list[str]], rest: list[str]
) -> None:
    """Whenever git runs a subcommand, hookline's split names the same one with the same words
    (read from git's own trace); where git refuses the options, nothing runs."""
    argv = [w for option in options for w in option] + ["rev-parse", *rest]
    env = {**os.environ, "GIT_TRACE": "1", "HOME": str(git_repo), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *argv], cwd=git_repo, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    ran = re.search(r"trace: (?:built-in|exec): git (.*)", done.stderr)
    git = split([literal(w) for w in argv])
    if ran is None:
        return  # git refused before running anything
    assert not git.unknown, (argv, ran.group(1))
    assert git.text == f"git {ran.group(1)}", argv
