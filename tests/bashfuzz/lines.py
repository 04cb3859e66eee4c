"""Whole Bash lines for the fuzzer, built from the grammar's node types.

``line()`` is a list of statements joined by ``;``, ``&&``, ``||``, ``&`` or a new line. A
statement is a simple command (prefix assignments, a name from ``programs``, its words,
redirects), a pipeline, an assignment on its own, a subshell, a group, ``if``, ``for`` (both
forms), ``while``/``until``, ``case``, a function defined and called, ``!``, ``time``, ``[[``,
``((``, or any of these with redirects (here-strings and here-documents included). About half
of the simple commands come from the read-only tier's programs, so many lines are auto-allowed
and many more are near misses. ``generate(count)`` draws ``count`` distinct lines, the same ones
each time (hypothesis, derandomized).
"""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bashfuzz.programs import (
    builtin_command,
    editing_command,
    evaluated,
    git_command,
    read_only_command,
    writer_command,
)
from bashfuzz.words import assignment, pick, word

REDIRECTS = ("> /dev/null", "2>/dev/null", "2>&1", ">/dev/stderr", "&>/dev/null", "< a.txt",
             "<<< alpha", "<<< \"$x\"", "> out.txt", ">> out.txt", ">| out.txt", "2> err.txt",
             "&> out.txt", "<> a.txt", ">&2", "3>&1", ">&-", "> .git/config", "> link_out/x",
             "> /dev/stdout", "< nope", "{fd}>/dev/null", "> \"$x\"", "> $(echo out.txt)",
             ">/dev/fd/1", "> ~/x", "> ../outside/x")  # fmt: skip
HEREDOCS = (
    "<<EOF\nalpha $x\nEOF",
    "<<'EOF'\n$(touch pwned)\nEOF",
    "<<-EOF\n\tplain\nEOF",
    "<<EOF\n$((x))\nEOF",
    "<<EOF\n${x@P}\nEOF",
    '<<"EOF"\n`touch pwned`\nEOF',
    "<<EOF\n$(touch pwned)\nEOF",
    "<<EOF\n${a[x]}\nEOF",
    # delimiters quoted in part, escaped, indented, followed by more on the line
    "<<E'O'F\n$(touch pwned)\nEOF",
    "<<\\EOF\n`touch pwned`\nEOF",
    "<<-'EOF'\n\t$(touch pwned)\n\tEOF",
    "<<EOF\n$(touch pwned)\n EOF\nEOF",
    "<<EOF\nx\nEOF \n$(touch pwned)\nEOF",
    "<<'EOF'\nx\n'EOF'\n$(touch pwned)\nEOF",
    "<<A <<'B'\nx\nA\n$(touch pwned)\nB",
    "<<'A' <<B\n$(touch pwned)\nA\nx\nB",
    "<<EOF | cat\n$(touch pwned)\nEOF",
    '<<"E F"\n$(touch pwned)\nE F',
    "<<EOF\n\\$(touch pwned)\nEOF",
    "<<EOF\n$x\\\nEOF\nEOF",
    "<<'EOF'\nEOFx\n$(touch pwned)\nEOF",
    "<<EOF; cat <<'EOF'\nx\nEOF\n$(touch pwned)\nEOF",
)


_HARMLESS_REDIRECTS = REDIRECTS[:7]
_KINDS = ("read",) * 10 + ("git",) * 4 + ("builtin",) * 2 + ("write",) + ("edit",) * 4
_BODIES = {"read": read_only_command, "git": git_command, "builtin": builtin_command,
           "write": writer_command, "edit": editing_command}  # fmt: skip


def simple(draw: st.DrawFn) -> str:
    """A simple command: read-only (most often), git, a builtin, a file edit or a writer."""
    text = _BODIES[pick(draw, _KINDS)](draw)
    if pick(draw, (0, 0, 0, 0, 0, 1)):
        prefix = assignment(draw)
        text = ("x=1" if "=(" in prefix else prefix) + " " + text  # no array before a command
    redirect = pick(draw, (0, 0, 0, 1, 2))
    if redirect:
        text += " " + pick(draw, _HARMLESS_REDIRECTS if redirect == 1 else REDIRECTS)
    return text


def pipeline(draw: st.DrawFn) -> str:
    parts = [simple(draw) for _ in range(pick(draw, (2, 2, 3)))]
    return pick(draw, (" | ", " | ", " |& ")).join(parts)


_LEAVES = ("simple",) * 8 + ("pipeline", "assignment", "heredoc", "cd", "evaluated")


def statement(draw: st.DrawFn, depth: int = 0) -> str:
    """One statement; compound ones hold statements one level deeper (at most two)."""
    kind = pick(draw, _LEAVES + (("compound",) * 3 if depth < 2 else ()))
    if kind == "simple":
        return simple(draw)
    if kind == "pipeline":
        return pipeline(draw)
    if kind == "assignment":
        return assignment(draw)
    if kind == "heredoc":
        return heredoc(draw)
    if kind == "evaluated":
        return evaluated(draw)
    if kind == "cd":  # a folder change the edits after it depend on
        return pick(draw, CDS)
    return compound(draw, depth + 1)


CDS = ("cd sub", "cd nope 2>/dev/null", "cd sub || true", "(cd sub)", "cd ..", "cd ~",
       "cd -", "pushd sub >/dev/null", "cd link_out", "cd gitlink", "cd .git", "cd $x",
       "f() { cd sub; }; f", "cd sub &", "cd sub && cd ..", "cd /tmp", "cd dirlink",
       "cd sub/deep 2>/dev/null || cd ..", "cd .claude", "CDPATH=.. cd ws")  # fmt: skip
_HEREDOC_READERS = ("cat", "cat", "grep a", "wc -l", "bash", "sh", "read x", "tr a b",
                    "git log -1 --format=%H")  # fmt: skip


def heredoc(draw: st.DrawFn) -> str:
    return f"{pick(draw, _HEREDOC_READERS)} {pick(draw, HEREDOCS)}"


_COMPOUNDS = ("( {B} )", "{ {B}; }", "if {C}; then {B}; fi", "if {C}; then {B}; else {S}; fi",
              "for {V} in {I}; do {B}; done", "for (( i=0; i<2; i++ )); do {B}; done",
              "for (( {V}=0; {V}<1; {V}++ )); do {B}; done", "while {C}; do {B}; break; done",
              "until true; do {B}; done", "while read -r {V}; do {B}; done < a.txt",
              "case {W} in a*) {B};; *) {S};; esac", "f() { {B}; }; f",
              "function g { {B}; }; g {W}", "f() { local {V}={W}; {B}; }; f", "! {B}",
              "time {B}", "( {B} ) {R}", "{ {B}; } {R}", "[[ {W} == {W} ]] && {B}",
              "(( {V} )) || {B}", "coproc {B}")  # fmt: skip


def compound(draw: st.DrawFn, depth: int) -> str:
    """A compound statement: ``{B}`` is its body, ``{C}`` a condition, ``{S}`` another
    statement, ``{V}`` a variable (the same one throughout), ``{I}`` words, ``{W}`` a word,
    ``{R}`` a redirect."""
    text = pick(draw, _COMPOUNDS).replace("{V}", pick(draw, ("x", "f", "i", "PATH", "a")))
    fill = {
        "{B}": lambda: "; ".join(statement(draw, depth) for _ in range(pick(draw, (1, 1, 2)))),
        "{C}": lambda: statement(draw, depth), "{S}": lambda: statement(draw, depth),
        "{I}": lambda: " ".join(word(draw) for _ in range(pick(draw, (1, 2, 3)))),
        "{W}": lambda: word(draw), "{R}": lambda: pick(draw, REDIRECTS),
    }  # fmt: skip
    for mark, make in fill.items():
        while mark in text:
            text = text.replace(mark, make(), 1)
    return text


@st.composite
def line(draw: st.DrawFn) -> str:
    """A whole line: one to three statements."""
    out = statement(draw)
    for _ in range(pick(draw, (0, 0, 0, 0, 0, 1, 1, 2))):  # `&` only here: `a &; b` is no Bash
        out += pick(draw, ("; ", "; ", " && ", " || ", "\n", " & ")) + statement(draw)
    return out


class _Enough(Exception):
    """Enough distinct lines were drawn: the run stops (hypothesis draws repeats too)."""


def generate(count: int, *, derandomize: bool = True) -> list[str]:
    """``count`` distinct lines drawn from ``line()``; the same ones each call when
    ``derandomize`` (as CI needs), fresh ones otherwise."""
    found: dict[str, None] = {}

    @settings(max_examples=count * 4, derandomize=derandomize, database=None,
              phases=[Phase.generate], deadline=None, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(line())
    def collect(text: str) -> None:
        found[text] = None
        if len(found) >= count:
            raise _Enough

    with contextlib.suppress(_Enough):
        collect()
    return list(found)[:count]
