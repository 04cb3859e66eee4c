"""Matchers: Claude Code's matcher syntax, argument tests, composition and reprs."""

from __future__ import annotations

import pytest

from hookline import ConfigError, SessionStart, Stop, all_of, any_of, arg, not_, tool_name


@pytest.mark.parametrize("pattern", ["", "*", None, "  "])
def test_empty_star_and_none_match_every_tool(pattern, pre_tool_use):
    matcher = tool_name(pattern)
    assert matcher(pre_tool_use("Bash")) and matcher(pre_tool_use("mcp__x__y"))


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Bash", "bash", False),
        ("Write|Edit", "Edit", True),
        ("Write|Edit", "Write", True),
        ("Write|Edit", "NotebookEdit", False),
        ("Write, Edit", "Edit", True),
        ("Write , Edit", "Write", True),
        ("mcp__orders__.*", "mcp__orders__refund", True),
        ("mcp__orders__.*", "mcp__users__get", False),
        ("mcp__orders", "mcp__orders__refund", False),
        ("Edit.*", "NotebookEdit", True),
        ("^Edit$", "NotebookEdit", False),
        ("my-tool", "my-tool", True),
        ("my-tool", "my-tool2", False),
        ("my-tool", "xmy-tool", False),
    ],
)
def test_tool_name_reads_claude_code_syntax(pattern, name, matches, pre_tool_use):
    assert tool_name(pattern)(pre_tool_use(name)) is matches


def test_a_bad_regex_is_a_config_error_on_the_matcher_key():
    with pytest.raises(ConfigError) as caught:
        tool_name("Bash(", file="settings.json")
    error = caught.value
    assert (error.key, error.file) == ("matcher", "settings.json")
    assert "Bash(" in error.message and error.fix and "Bash|Edit" in error.fix


def test_events_without_a_match_field_pass_any_tool_matcher(scope):
    stop = scope.event(Stop)
    assert tool_name("Bash")(stop)
    assert tool_name("mcp__.*")(stop)


def test_session_start_filters_on_its_source(scope):
    resume = scope.event(SessionStart, source="resume")
    assert tool_name("resume|compact")(resume)
    assert not tool_name("startup")(resume)
    assert tool_name("res.*")(resume)


@pytest.mark.parametrize(
    ("matcher", "matches"),
    [
        (arg("command", equals="rm -rf /tmp/x"), True),
        (arg("command", equals="rm"), False),
        (arg("command", contains="rm -rf"), True),
        (arg("command", contains="sudo"), False),
        (arg("command", matches=r"rm\s+-rf"), True),
        (arg("command", matches=r"^sudo"), False),
        (arg("command", startswith="rm "), True),
        (arg("command", startswith="ls"), False),
        (arg("mode", one_of=["fast", "safe"]), True),
        (arg("mode", one_of=("slow",)), False),
        (arg("options.force", equals=True), True),
        (arg("options.force.deeper", equals=True), False),
        (arg("options.dry_run", exists=True), False),
        (arg("options.dry_run", exists=False), True),
        (arg("command", exists=True), True),
        (arg("missing", equals=None), False),
        (arg("missing", contains="x"), False),
        (arg("timeout", contains="1"), False),
    ],
)
def test_arg_tests_one_field_of_the_tool_input(matcher, matches, pre_tool_use):
    event = pre_tool_use(
        "Bash", command="rm -rf /tmp/x", mode="safe", timeout=10, options={"force": True}
    )
    assert matcher(event) is matches


def test_arg_never_matches_an_event_without_tool_input(scope):
    stop = scope.event(Stop)
    assert not arg("command", exists=True)(stop)
    assert not arg("command", exists=False)(stop)
    assert not arg("stop_hook_active", equals=False)(stop)


def test_arg_needs_exactly_one_test():
    with pytest.raises(ConfigError, match="exactly one test"):
        arg("command")
    with pytest.raises(ConfigError, match="exactly one test"):
        arg("command", contains="rm", startswith="rm")


def test_matchers_compose_with_operators_and_functions(pre_tool_use):
    dangerous = tool_name("Bash") & arg("command", contains="rm -rf")
    assert dangerous(pre_tool_use("Bash", command="rm -rf /"))
    assert not dangerous(pre_tool_use("Bash", command="ls"))
    assert not dangerous(pre_tool_use("Shell", command="rm -rf /"))

    either = tool_name("Write") | arg("command", startswith="git push")
    assert either(pre_tool_use("Write", file_path="a"))
    assert either(pre_tool_use("Bash", command="git push -f"))
    assert not either(pre_tool_use("Bash", command="git status"))

    assert (~tool_name("Read"))(pre_tool_use("Bash"))
    assert not (~tool_name("Read"))(pre_tool_use("Read"))

    same = all_of(tool_name("Bash"), not_(any_of(arg("x", exists=True), arg("y", exists=True))))
    assert same(pre_tool_use("Bash", command="ls"))
    assert not same(pre_tool_use("Bash", y=1))


@pytest.mark.parametrize(
    ("matcher", "text"),
    [
        (
            tool_name("Bash") & arg("command", contains="rm -rf"),
            "tool_name('Bash') & arg('command', contains='rm -rf')",
        ),
        (
            ~tool_name("Bash") | arg("x", equals=1) & arg("y", one_of=[1, 2]),
            "~tool_name('Bash') | (arg('x', equals=1) & arg('y', one_of=(1, 2)))",
        ),
        (not_(any_of(tool_name("A"), tool_name("B.*"))), "~(tool_name('A') | tool_name('B.*'))"),
        (all_of(tool_name("A"), tool_name("B"), tool_name("C")),
         "tool_name('A') & tool_name('B') & tool_name('C')"),
        (tool_name("*"), "everything"),
        (arg("a", exists=False), "arg('a', exists=False)"),
    ],
)  # fmt: skip
def test_reprs_print_what_they_match(matcher, text):
    assert repr(matcher) == text
