"""``hookline audit export``: JSON Lines as stored, CEF and RFC 5424 lines a SIEM reads back to
the same values whatever a record holds; filters, ``--output`` and a tampered log (exit 1)."""

from __future__ import annotations

import json
import re
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import hookline
from hookline import Agent, Decision, ScriptedModel
from hookline._cli.main import cli, main
from hookline.audit import attach_audit
from hookline.audit._export import cef_line, syslog_line
from hookline.storage import AuditRow

#: What a hostile tool, hook or model could put in a record: every character each format
#: escapes, line breaks of every kind, and text that looks like the format's own syntax.
HOSTILE = 'a|b\\c=d\ne\rf] "g" h\u2028i\x1bj cs1=forged |7| [x@1 k="v"] \\'


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


def audited(project: Path, texts: list[str]) -> str:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": "echo", "input": {"text": text}}]}
        for i, text in enumerate(texts)
    ]
    agent = Agent(ScriptedModel([*turns, {"text": "ok"}]), tools=[echo], cwd=project, user="ana")
    agent.registry.add(
        "PreToolUse",
        lambda e: Decision.deny(HOSTILE) if e.tool_input["text"] == "bad" else None,
        name="gate|x=y",
    )
    with attach_audit(agent):
        agent.run_sync("go")
    return agent.session.id


def export(project: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["audit", "export", "--cwd", str(project), *args])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    audited(tmp_path, ["ok", "bad"])
    return tmp_path


# -- reading the formats back, as a SIEM's parser does --------------------------------------

_SIMPLE = {"n": "\n", "r": "\r", "t": "\t"}


def _unescape(text: str, i: int) -> tuple[str, int]:
    """The character an escape at ``text[i]`` (a backslash) stands for, and where it ends."""
    after = text[i + 1]
    if after == "u":
        return chr(int(text[i + 2 : i + 6], 16)), i + 6
    return _SIMPLE.get(after, after), i + 2


def read_cef(line: str) -> tuple[list[str], dict[str, str]]:
    """The seven header fields after ``CEF:`` and the extension's pairs."""
    assert line.startswith("CEF:") and "\n" not in line and "\r" not in line
    header, field, i = [], "", 4
    while len(header) < 7:
        char = line[i]
        if char == "\\":
            field, i = field + line[i + 1], i + 2
        elif char == "|":
            header, field, i = [*header, field], "", i + 1
        else:
            field, i = field + char, i + 1
    pairs: dict[str, str] = {}
    key, buf, rest = None, "", line[i:]
    i = 0
    while i < len(rest):
        if rest[i] == "\\":
            char, i = _unescape(rest, i)
            buf += char
            continue
        if rest[i] == "=":
            value, _, new_key = buf.rpartition(" ")
            if key is not None:
                pairs[key] = value
            key, buf = new_key, ""
        else:
            buf += rest[i]
        i += 1
    if key is not None:
        pairs[key] = buf
    return header, pairs


SYSLOG = re.compile(r"^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) \[hookline@32473")


def read_syslog(line: str) -> tuple[tuple[str, ...], dict[str, str], str]:
    """The header fields, the structured data's params and the message."""
    assert "\n" not in line and "\r" not in line
    head = SYSLOG.match(line)
    assert head is not None, line
    params: dict[str, str] = {}
    i = head.end()
    while line[i] == " ":
        name_end = line.index('="', i)
        name, i, value = line[i + 1 : name_end], name_end + 2, ""
        while line[i] != '"':
            if line[i] == "\\":
                char, i = _unescape(line, i)
                value += char
            else:
                assert line[i] != "]", "RFC 5424 6.3.3: a ] in a PARAM-VALUE must be escaped"
                value, i = value + line[i], i + 1
        params[name], i = value, i + 1
    assert line[i : i + 2] == "] "
    message, j = "", i + 2
    while j < len(line):
        if line[j] == "\\":
            char, j = _unescape(line, j)
            message += char
        else:
            message, j = message + line[j], j + 1
    return head.groups(), params, message


def hostile_row() -> AuditRow:
    data = {"hook": HOSTILE, "reason": HOSTILE, "user": HOSTILE, "duration_ms": 12.5,
            "failure": "timeout", "message": HOSTILE}  # fmt: skip
    return AuditRow(
        7, "hmac:ab", None, 1.5, "s 1", "t=1", "PreToolUse", "hook", HOSTILE, "deny", data, "deny"
    )


def test_cef_reads_back_every_hostile_value_exactly() -> None:
    header, pairs = read_cef(cef_line(hostile_row(), version="1|2"))
    assert header[:4] == ["0", "hookline", "hookline", "1|2"]
    assert header[4] == "hook:deny" and header[6] == "7"  # a refusal: high severity
    assert HOSTILE.replace("\n", " ").replace("\r", " ").split("\u2028")[0] in header[5]
    assert pairs["reason"] == pairs["msg"] == pairs["suser"] == pairs["cs4"] == HOSTILE
    assert pairs["cs3"] == HOSTILE and pairs["cs2"] == "t=1" and pairs["cs1"] == "s 1"
    assert (pairs["cn1"], pairs["flexString2"], pairs["act"]) == ("7", "timeout", "deny")
    assert "forged" not in pairs and pairs["cs1Label"] == "session"


def test_syslog_reads_back_every_hostile_value_exactly() -> None:
    head, params, message = read_syslog(syslog_line(hostile_row(), host="my host\n"))
    priority, stamp, host, app, procid, msgid = head
    assert priority == str(13 * 8 + 4)  # log audit, warning: a refusal
    assert stamp == "1970-01-01T00:00:01.500000Z"
    assert (host, app, procid, msgid) == ("my_host_", "hookline", "-", "hook")
    assert params["reason"] == params["hook"] == params["user"] == params["tool"] == HOSTILE
    assert (params["seq"], params["toolUseId"], params["durationMs"]) == ("7", "t=1", "12.5")
    assert message.endswith(f": deny ({HOSTILE})")


def test_jsonl_is_each_record_as_stored(project: Path) -> None:
    result = export(project)
    assert result.exit_code == 0, result.output
    exported = [json.loads(line) for line in result.stdout.splitlines()]
    shown = CliRunner().invoke(cli, ["audit", "--cwd", str(project), "--json"])
    records = [json.loads(line) for line in shown.stdout.splitlines()]
    assert exported == [{k: v for k, v in r.items() if k != "finished"} for r in records]
    denied = [r for r in exported if r["decision"] == "blocked"]
    assert denied[0]["data"]["hooks"][0]["reason"] == HOSTILE
    assert [r["seq"] for r in exported] == list(range(1, len(exported) + 1))


def test_cef_and_syslog_have_a_line_per_event_hook_runs_included(project: Path) -> None:
    cef = export(project, "--format", "cef").stdout.splitlines()
    events = [read_cef(line) for line in cef]
    refusals = [pairs for header, pairs in events if header[4] == "hook:deny"]
    assert len(refusals) == 1 and refusals[0]["reason"] == HOSTILE
    assert refusals[0]["cs4"] == "gate|x=y" and refusals[0]["suser"] == "ana"
    syslog = export(project, "--format", "syslog").stdout.splitlines()
    assert len(syslog) == len(cef)
    blocked = [read_syslog(line) for line in syslog if "blocked" in line]
    assert blocked and blocked[0][1]["decision"] == "blocked"


def test_output_file_is_private_and_filters_are_shared(tmp_path: Path) -> None:
    first = audited(tmp_path, ["ok"])
    second = audited(tmp_path, ["bad"])
    out = tmp_path / "out" / "audit.cef"
    out.parent.mkdir()
    result = export(tmp_path, "--format", "cef", "--session", second[:8], "--output", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    sessions = {read_cef(line)[1]["cs1"] for line in out.read_text().splitlines()}
    assert sessions == {second} and first not in sessions
    later = export(tmp_path, "--since", "2999-01-01")
    assert later.exit_code == 0 and later.stdout == ""


def test_an_unwritable_output_is_one_line_naming_the_option(project: Path, capsys) -> None:
    nowhere = str(project / "no" / "such" / "dir" / "x.jsonl")
    with pytest.raises(SystemExit) as exited:
        main(["audit", "export", "--cwd", str(project), "--output", nowhere])
    assert exited.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("hookline: error: --output: cannot write ") and "(fix: " in line


def test_a_tampered_log_is_exported_and_said_unverified(project: Path) -> None:
    state = project / ".hookline" / "state"
    with sqlite3.connect(state / "hookline.db") as conn:
        conn.execute("UPDATE hookline_audit SET data = replace(data, 'ana', 'bob') WHERE seq = 1")
    result = export(project, "--format", "syslog")
    assert result.exit_code == 1
    assert result.stdout.count("\n") >= 3
    assert "the audit is NOT VERIFIED" in result.stderr and "TAMPERED" in result.stderr
