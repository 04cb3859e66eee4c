"""The evidence commands read one team's traffic: ``--tenant``, ``--agent``, ``--user`` and
``--host`` on ``hooks stats``, ``audit export``, ``audit``, ``replay`` and ``timeline``'s
session listing, over ``served`` records three tokens in two tenants wrote through the app (in
process, ``served_traffic``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from hookline._cli.main import cli, main
from hookline.audit._callers import Callers
from served_traffic import CALLERS, policy_folder, serve_traffic


@pytest.fixture
def traffic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    folder = policy_folder(tmp_path)
    return folder, serve_traffic(folder)


def hookline(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def stats_of(folder: Path, *args: str) -> dict[str, Any]:
    done = hookline("hooks", "stats", "--cwd", str(folder), "--json", *args)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    return {hook["hook"].rsplit(":", 1)[-1]: hook["runs"] for hook in report["hooks"]}


def exported(folder: Path, *args: str) -> list[dict[str, Any]]:
    done = hookline("audit", "export", "--cwd", str(folder), *args)
    assert done.exit_code == 0, done.output
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_each_filter_keeps_the_records_whose_data_says_so_and_none_without_it() -> None:
    served = {"agent": "ci-bot", "tenant": "payments", "user": "alice", "host": "codex"}
    assert Callers(tenant="payments", host="codex").keeps(served)
    assert not Callers(tenant="payments", agent="laptop").keeps(served)
    assert not Callers(agent="ci-bot").keeps({"tenant": "payments"})  # a run's: no agent
    assert not Callers(user="alice").keeps(None)
    assert Callers().keeps(None) and not Callers()
    assert str(Callers(tenant="payments", host="codex")) == "tenant payments, host codex"


def test_hooks_stats_counts_one_tenants_agents_users_or_hosts_runs(traffic) -> None:
    folder, _ = traffic
    assert stats_of(folder) == {"no_writes": 3, "looks": 3}
    assert stats_of(folder, "--tenant", "payments") == {"no_writes": 2, "looks": 2}
    assert stats_of(folder, "--tenant", "search") == {"no_writes": 1, "looks": 1}
    assert stats_of(folder, "--agent", "laptop") == {"no_writes": 1, "looks": 1}
    assert stats_of(folder, "--host", "claude-code", "--tenant", "payments") == {
        "no_writes": 1,
        "looks": 1,
    }
    assert stats_of(folder, "--user", "nobody") == {}


def test_audit_export_writes_one_callers_records_only(traffic) -> None:
    folder, sessions = traffic
    assert len(exported(folder)) == 6
    search = exported(folder, "--tenant", "search")
    assert len(search) == 2
    assert {(r["session_id"], r["data"]["agent"]) for r in search} == {
        (sessions["search-bot"], "search-bot")
    }
    bob = exported(folder, "--user", "bob", "--host", "gemini")
    assert [r["tool"] for r in bob] == ["Write", "Read"]
    assert {r["data"]["tenant"] for r in bob} == {"payments"}
    done = hookline("audit", "export", "--cwd", str(folder), "--format", "cef", "--agent", "ci-bot")
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()  # two records, and the hook run each carries
    assert len(lines) == 4 and all(sessions["ci-bot"] in line for line in lines)


def test_audit_lists_one_agents_records(traffic) -> None:
    folder, sessions = traffic
    done = hookline("audit", "--cwd", str(folder), "--agent", "search-bot", "--json")
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert {r["session_id"] for r in records} == {sessions["search-bot"]} and len(records) == 2


def test_timeline_lists_the_sessions_of_one_tenant_with_who_made_them(traffic) -> None:
    folder, sessions = traffic
    done = hookline("timeline", "--cwd", str(folder), "--tenant", "payments", "--json")
    assert done.exit_code == 0, done.output
    listed = json.loads(done.stdout)
    assert listed["verified"] is True
    by_id = {one["session"]: one for one in listed["sessions"]}
    assert set(by_id) == {sessions["ci-bot"], sessions["laptop"]}
    laptop = by_id[sessions["laptop"]]
    assert (laptop["records"], laptop["calls"]) == (2, 2)
    assert (laptop["host"], laptop["agent"], laptop["user"]) == (["gemini"], ["laptop"], ["bob"])
    table = hookline("timeline", "--cwd", str(folder), "--host", "claude-code")
    assert table.exit_code == 0, table.output
    header, *rows = table.stdout.splitlines()
    assert header.split()[:5] == ["SESSION", "FIRST", "LAST", "RECORDS", "CALLS"]
    assert sorted(row.split()[0] for row in rows) == sorted(
        [sessions["ci-bot"], sessions["search-bot"]]
    )
    none = hookline("timeline", "--cwd", str(folder), "--agent", "nobody")
    assert none.exit_code == 0 and "no sessions of agent nobody" in none.stderr


def test_a_served_sessions_timeline_has_its_calls_and_the_filters_need_no_session(
    traffic, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, sessions = traffic
    done = hookline("timeline", sessions["laptop"], "--cwd", str(folder), "--json")
    assert done.exit_code == 0, done.output
    steps = json.loads(done.stdout)["steps"]
    assert [(s["title"], s["decision"]) for s in steps] == [
        ("Write from gemini", "deny"),
        ("Read from gemini", "allow"),
    ]
    assert steps[0]["who"] == "hook" and steps[0]["hooks"][0]["hook"].endswith("no_writes")
    with pytest.raises(SystemExit) as exited:
        main(["timeline", sessions["laptop"], "--cwd", str(folder), "--tenant", "search"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "hookline: error: SESSION: tenant search: these choose which sessions to list (fix: "
        "leave SESSION out to list the sessions they choose, or leave them out)"
    ]


def test_replay_judges_one_tenants_calls_only(traffic) -> None:
    folder, sessions = traffic
    every = hookline("replay", str(folder), "--cwd", str(folder), "--all", "--json")
    assert every.exit_code == 0, every.output
    assert json.loads(every.stdout)["totals"]["events"] == 6
    done = hookline(
        "replay", str(folder), "--cwd", str(folder), "--all", "--json", "--tenant", "search"
    )
    assert done.exit_code == 0, done.output
    events = json.loads(done.stdout)["events"]
    assert {e["session_id"] for e in events} == {sessions["search-bot"]} and len(events) == 2
    gemini = hookline("replay", str(folder), "--cwd", str(folder), "--all", "--json",
                      "--host", "gemini", "--user", "bob")  # fmt: skip
    assert {e["tool_name"] for e in json.loads(gemini.stdout)["events"]} == {"Write", "Read"}
    nobody = hookline("replay", str(folder), "--cwd", str(folder), "--agent", "nobody")
    assert nobody.exit_code == 0 and "no recorded call of agent nobody" in nobody.stderr


def test_every_caller_in_the_traffic_is_on_record(traffic) -> None:
    """The fixture's own check: each token's calls are on record under its names."""
    folder, _ = traffic
    records = exported(folder)
    said = {(r["data"]["agent"], r["data"]["tenant"], r["data"]["user"], r["data"]["host"])
            for r in records}  # fmt: skip
    assert said == {(name, tenant, user, host) for name, tenant, user, host, _ in CALLERS}


def test_replay_keeps_a_hookline_transcripts_sessions_the_audit_says_are_the_tenants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's transcript does not say who; the audit beside it does: with --tenant, its
    session is replayed from the transcript (its raw input) when the run was the tenant's."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    turns = [{"tool_calls": [{"name": "Read", "input": {"file_path": "notes.txt"}}]}]
    script = project / "script.json"
    script.write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    ran = hookline("run", "--cwd", str(project), "--model", f"scripted:{script}",
                   "--tenant", "payments", "read the notes")  # fmt: skip
    assert ran.exit_code == 0, ran.output

    def replayed(*args: str) -> list[dict[str, Any]]:
        done = hookline("replay", str(project), "--cwd", str(project), "--all", "--json", *args)
        assert done.exit_code == 0, done.output
        return list(json.loads(done.stdout)["events"])

    theirs = replayed("--tenant", "payments")
    assert [(e["event"], e.get("tool_name")) for e in theirs] == [
        ("UserPromptSubmit", None),
        ("PreToolUse", "Read"),
    ]
    assert not any(e.get("redacted_input") for e in theirs)  # the transcript's, raw
    assert replayed("--tenant", "search") == []
    assert replayed("--host", "claude-code") == []  # a run's records name no host
