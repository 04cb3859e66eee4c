"""Here-documents end where Bash ends them: at a line that *is* the delimiter (with ``<<-``, after
its leading tabs; in an unquoted body, after ``\\``-new-line pairs are joined). tree-sitter's
grammar ends one at a line that only starts with it; where the two differ, Bash reads on and
runs what follows as the body, so the line is outside the known subset.

Each attack is run by real Bash first (its sentinel appears), then must be unknown to the
analyser, and an Agent on a ScriptedModel must leave the sentinel absent: in default mode with
nobody to approve, and in bypassPermissions with a ``Bash(touch:*)`` deny rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline.permissions._readonly import why_not_read_only
from hookline.permissions.bash import analyze
from hookline.permissions.bash._heredocs import reason
from test_bash_subset import _agent_leaves_it_absent, _bash_runs_it, _fill

_ENDS = "where Bash does not end it"
# fmt: off
ATTACKS = [
    ('cat <<EOF\nx\nEOF ; cat <<"EOF"\n$(touch @S@)\nEOF', _ENDS),  # the fuzzer's finding
    ("cat <<EOF\nx\nEOF \n$(touch @S@)\nEOF", _ENDS),               # a trailing space
    ("cat <<EOF\nx\nEOF\t\n$(touch @S@)\nEOF", _ENDS),              # a trailing tab
    ("cat <<EOF\nx\nEOF;\n$(touch @S@)\nEOF", _ENDS),
    ("cat <<-EOF\n\tx\n  EOF\n$(touch @S@)\nEOF", _ENDS),           # <<- drops tabs, not spaces
    ("cat <<EOF\nx\nE\\\nOF\ntouch @S@\nEOF", _ENDS),               # joined, the line is EOF
    ("bash <<'EOF'\necho hi\nEOF #\ntouch @S@\nEOF", _ENDS),         # fed to a shell
]
# fmt: on

# Inside the subset: each line's commands, as Bash runs them.
KNOWN = [
    ("cat <<EOF\nhello\nEOF", ["cat"]),
    ("cat <<'EOF'\n$(not run)\nEOF", ["cat"]),
    ('cat <<"EOF"\n`not run`\nEOF', ["cat"]),
    ("cat <<\\EOF\n$(not run)\nEOF", ["cat"]),
    ("cat <<-EOF\n\tindented\n\t\tEOF", ["cat"]),
    ("cat <<EOF\nEOF", ["cat"]),
    ("cat <<EOF\n\nafter a blank line\nEOF", ["cat"]),
    ("cat <<END_OF_TEXT > notes.txt\nx\nEND_OF_TEXT\necho done", ["cat", "echo done"]),
    (
        "git commit -m \"$(cat <<'EOF'\nA message\n\nwith lines\nEOF\n)\"",
        ["cat", "git commit -m \0"],
    ),
    ("cat <<EOF\n$(date)\nEOF", ["date", "cat"]),
]

#: Delimiters whose meaning to Bash is not one of the plain forms: outside the subset.
UNPLAIN = ['cat <<E"O"F\nx\nEOF', "cat <<$X\nx\n$X", "cat <<'E O'\nx\nE O", 'cat <<"$(x)"\nx\nx']


@pytest.mark.parametrize(("line", "why"), ATTACKS)
def test_a_line_that_does_not_end_the_here_document_for_bash_is_outside_the_subset(
    line: str, why: str, tmp_path: Path
) -> None:
    _bash_runs_it(line, tmp_path)
    analysis = analyze(_fill(line, tmp_path / "s"))
    assert any(why in reason for reason in analysis.unknown), analysis.unknown
    _agent_leaves_it_absent(line, tmp_path, "default")


@pytest.mark.parametrize(("line", "why"), ATTACKS[::2])
def test_a_deny_rule_holds_in_bypass_permissions(line: str, why: str, tmp_path: Path) -> None:
    _agent_leaves_it_absent(line, tmp_path, "bypassPermissions")


@pytest.mark.parametrize(("line", "commands"), KNOWN)
def test_a_here_document_bash_ends_where_the_tree_does_stays_inside(
    line: str, commands: list[str]
) -> None:
    analysis = analyze(line)
    assert analysis.known, analysis.unknown
    assert sorted(c.text for c in analysis.commands) == sorted(commands)


@pytest.mark.parametrize("line", UNPLAIN)
def test_a_delimiter_that_is_not_a_plain_word_is_outside_the_subset(line: str) -> None:
    analysis = analyze(line)
    assert not analysis.known
    assert any("delimiter" in why or "does not parse" in why for why in analysis.unknown)


def test_a_here_document_read_only_line_still_runs_unasked() -> None:
    assert why_not_read_only(analyze("cat <<'EOF'\nplain text\nEOF")) is None
    assert why_not_read_only(analyze("cat <<EOF\nx\nEOF ; echo y\nEOF")) is not None


def test_the_check_compares_the_end_line_whole() -> None:
    """The reason names the line the tree ended at and the delimiter it wanted."""
    from hookline.permissions.bash._grammar import parse

    source = b"cat <<EOF\nx\nEOF ; ls\nEOF\n"
    root = parse(source)
    assert root is not None
    found = reason(root, source)
    assert found is not None and "`EOF ; ls`" in found and "(`EOF`)" in found
