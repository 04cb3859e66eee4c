"""What a person reads at the terminal says what happened: a PostToolUse block after the tool
ran, which call of a batch a hook line belongs to, a Read's lines kept as lines, who decided
each audit record, and a ``--decision`` no record can say. Real subprocesses throughout."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import hookline

FEEDBACK = {
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "echo 'use printf' >&2; exit 2"}],
            }
        ]
    }
}
BATCH = {
    "turns": [
        {
            "tool_calls": [
                {"id": "t1", "name": "Bash", "input": {"command": "echo one > one.txt"}},
                {"id": "t2", "name": "Bash", "input": {"command": "echo two"}},
            ]
        },
        {"text": "done"},
    ]
}


def project(tmp_path: Path, settings: dict[str, object] | None = None) -> Path:
    if settings is not None:
        (tmp_path / ".claude").mkdir()
        (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "script.json").write_text(json.dumps(BATCH))
    return tmp_path


def test_a_posttooluse_block_says_the_tool_already_ran_and_marks_its_call(tmp_path: Path) -> None:
    done = hookline("run", "go", "--model", "scripted:script.json",
                    "--permission-mode", "bypassPermissions",
                    cwd=project(tmp_path, FEEDBACK))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "one.txt").read_text() == "one\n"  # it did run
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("model -> ")] == [
        'model -> [1] Bash {"command":"echo one > one.txt"}',
        'model -> [2] Bash {"command":"echo two"}',
    ]
    hooks = [line.strip() for line in lines if "PostToolUse hook" in line]
    assert [line[:4] for line in hooks] == ["[1] ", "[2] "]
    assert all("block (feedback to the model; the tool already ran)" in h for h in hooks)
    assert not any(": deny" in h for h in hooks)
    assert [line.split(" ran with")[0] for line in lines if " ran with " in line] == [
        "tool [1] Bash",
        "tool [2] Bash",
    ]


def test_one_call_is_not_marked(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    done = hookline("run", "read notes.txt", "--model", "rules", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert 'model -> Read {"file_path":"notes.txt"}' in done.stdout.splitlines()
    assert "[1]" not in done.stdout


def test_the_rule_models_summary_keeps_a_reads_lines_as_lines(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    done = hookline("run", "read notes.txt", "--model", "rules", "--output-format", "json",
                    cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)["result"]
    first, *rest = text.splitlines()
    assert first == "Tool Read returned:"
    assert [line.split() for line in rest[:3]] == [["1", "alpha"], ["2", "beta"], ["3", "gamma"]]


def test_the_audit_says_who_decided_each_record_one_way(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    read = hookline("run", "read notes.txt", "--model", "rules", cwd=tmp_path)
    refused = hookline("run", "run touch x.txt", "--model", "rules", "--permission-mode",
                       "dontAsk", cwd=tmp_path)  # fmt: skip
    assert read.returncode == 0 and refused.returncode == 0, (read.stderr, refused.stderr)
    table = hookline("audit", cwd=tmp_path).stdout.splitlines()
    header, rows = table[0].split(), table[1:]
    assert header == ["TIME", "SESSION", "TOOL", "EVENT", "BY", "DECISION", "REASON"]
    start = table[0].index("BY")
    by = {line[start:].split("  ")[0] for line in rows}
    assert {"permission tier", "permission mode"} & by, by
    assert all(b.split()[0] in ("hook", "approver", "permission", "unanswered", "-") for b in by)
    assert not (tmp_path / "x.txt").exists()


def test_a_decision_no_record_can_say_is_an_error_with_the_closest(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert hookline("run", "read notes.txt", "--model", "rules", cwd=tmp_path).returncode == 0
    done = hookline("audit", "--decision", "denied", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "no record says 'denied': did you mean deny?" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert hookline("audit", "--decision", "executed", cwd=tmp_path).stdout.count("Read") == 1
