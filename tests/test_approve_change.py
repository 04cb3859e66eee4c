"""What an edit changes, shown line by line above the choices: in the terminal prompt and, from
the same lines, in the inbox. Hostile text in the change is written out, never acted on."""

from __future__ import annotations

from hookline._cli.approve_screen import CHANGE_ROWS, prompt_lines
from hookline._inbox import pages
from hookline._inbox.pending import Pending, Waiting
from hookline._tools.approvals import ApprovalRequest


def request(tool: str, tool_input: dict[str, object]) -> ApprovalRequest:
    return ApprovalRequest("s1", "t1", tool, tool_input, reason="it edits", source="tier")


def change(tool: str, tool_input: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    lines = prompt_lines(request(tool, tool_input), 100)
    heads = [i for i, line in enumerate(lines) if line.text.startswith("  the change")]
    if not heads:
        return []
    return [(line.text, line.style) for line in lines[heads[0] + 1 :]]


def test_an_edit_shows_the_lines_it_removes_and_adds_with_those_around_them() -> None:
    old = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
    new = old.replace("s += x", "s += x * TAX")
    shown = change("Edit", {"file_path": "app.py", "old_string": old, "new_string": new})
    assert ("    -         s += x", {"fg": "red"}) in shown
    assert ("    +         s += x * TAX", {"fg": "green"}) in shown
    assert ("          for x in xs:", {"dim": True}) in shown
    assert [text for text, _ in shown].count("    -         s += x") == 1


def test_a_one_line_edit_and_each_edit_of_a_multi_edit_are_shown() -> None:
    assert [t for t, _ in change("Edit", {"old_string": "x = 1", "new_string": "x = 2"})] == [
        "    - x = 1",
        "    + x = 2",
    ]
    edits = [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]
    assert [t for t, _ in change("MultiEdit", {"file_path": "f", "edits": edits})] == [
        "    - a", "    + b", "    - c", "    + d",
    ]  # fmt: skip


def test_hostile_text_in_a_change_is_written_out() -> None:
    new = "ok\x1b[2J\x1b]8;;https://evil.example\x07click\u202emoc.live\n"
    shown = change("Edit", {"old_string": "ok\n", "new_string": new})
    added = next(text for text, style in shown if style == {"fg": "green"})
    assert "\x1b" not in added and "\u202e" not in added and "\x07" not in added
    assert "\\x1b[2J" in added


def test_a_long_change_is_cut_after_its_first_lines_saying_how_many_more() -> None:
    new = "\n".join(f"line {n}" for n in range(500))
    shown = change("Edit", {"old_string": "", "new_string": new})
    assert len(shown) == CHANGE_ROWS + 1
    assert shown[-1][0].startswith("    … ") and "more lines of the change" in shown[-1][0]


def test_a_call_that_is_not_an_edit_shows_no_change() -> None:
    assert change("Bash", {"command": "ls"}) == []
    assert change("Edit", {"old_string": "same", "new_string": "same"}) == []


def test_the_inbox_shows_the_change_escaped() -> None:
    edit = {"file_path": "a.html", "old_string": "<p>hi</p>", "new_string": "<script>x()</script>"}
    waiting = Pending("s1", 1.0, None, None, "edit it", (Waiting(request("Edit", edit)),), ())
    html = pages.pending_list([waiting], csrf="c", may_answer=True)
    assert '<span class="fg-red">    - &lt;p&gt;hi&lt;/p&gt;</span>' in html
    assert '<span class="fg-green">    + &lt;script&gt;x()&lt;/script&gt;</span>' in html
    assert "<script>x()" not in html
