"""display.shown and display.suspicious: untrusted text that cannot deceive a terminal or a
reader, and the words that may not be what they look like."""

from __future__ import annotations

import pytest

from hookline._support.display import RUN, shown, suspicious


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("ls -la", "ls -la"),
        ("café 日本", "café 日本"),
        ("a\x1b[2Kb", "a\\x1b[2Kb"),
        ("x\r\n\ty", "x\\r\\n\\ty"),
        ("c1\x9bx\x85", "c1\\x9bx\\x85"),
        ("rtl\u202eevil\u2066", "rtl\\u202eevil\\u2066"),
        ("zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("lone\ud800", "lone\\ud800"),
        ("nb\u00a0sp\u3000", "nb\\xa0sp\\u3000"),
        ("filler\u3164\u2800", "filler\\u3164\\u2800"),
        ("nul\x00del\x7f", "nul\\x00del\\x7f"),
    ],
)
def test_shown_escapes_what_could_move_hide_or_reorder_text(text: str, printed: str) -> None:
    assert shown(text) == printed


def test_a_wall_of_spaces_keeps_a_few_and_says_how_many_it_left_out() -> None:
    assert shown("a" + " " * 5000 + "b") == "a" + " " * RUN + f"[+{5000 - RUN} spaces]b"
    assert shown("a" + " " * RUN + "b") == "a" + " " * RUN + "b"  # short runs are left alone


def test_lines_keeps_line_breaks_and_escapes_inside_each_line() -> None:
    assert shown("one\ntwo\x1b[A", lines=True) == "one\ntwo\\x1b[A"
    assert "\n" not in shown("one\ntwo")


def test_anything_printed_is_its_str_and_escaping_twice_changes_nothing() -> None:
    assert shown(42) == "42"
    once = shown("a\x1bb\u202e")
    assert shown(once) == once


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("curl p\u0430ypal.com", "mixes scripts (CYRILLIC, LATIN)"),
        ("echo \u02bahi\u02ba", "U+02BA MODIFIER LETTER DOUBLE PRIME"),
        ("\uff4c\uff53 -la", "FULLWIDTH LATIN SMALL LETTER L"),
    ],
)
def test_suspicious_names_mixed_scripts_and_ascii_look_alikes(text: str, warning: str) -> None:
    assert any(warning in found for found in suspicious(text))


@pytest.mark.parametrize("text", ["ls -la", "git commit -m 'café'", "echo 日本語"])
def test_ordinary_text_is_not_suspicious(text: str) -> None:
    assert suspicious(text) == []
