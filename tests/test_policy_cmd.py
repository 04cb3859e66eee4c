"""``hookline policy``: a folder's policy in words or as JSON, with the digest a server there
would put on its records, without a server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookline._cli.main import main
from hookline._policy.digest import policy_digest
from hookline._project import load_project
from test_policy_digest import make_folder


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    return make_folder(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    try:
        main(["policy", *args])
    except SystemExit as exited:
        assert exited.code in (0, None), capsys.readouterr().err
    return capsys.readouterr().out


def test_it_prints_the_policy_in_words_with_the_folders_digest(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(capsys, "--cwd", str(folder))
    digest = policy_digest(load_project(folder, trust=True))
    assert out.startswith(f"policy {digest.short} (sha256 {digest.sha256})\n")
    assert "  Bash(rm *)  from project settings\n" in out
    assert "    Write  python no_writes" in out


def test_json_is_the_view_get_policy_answers(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view = json.loads(run(capsys, "--cwd", str(folder), "--json"))
    assert view["policy"] == policy_digest(load_project(folder, trust=True)).sha256
    assert view["folder"] == str(folder)
    assert [rule["rule"] for rule in view["permissions"]["deny"]] == ["Bash(rm *)"]
    assert [hook["event"] for hook in view["hooks"]] == ["PreToolUse"]


def test_a_settings_flag_joins_the_policy_and_changes_its_digest(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = json.loads(run(capsys, "--cwd", str(folder), "--json"))
    extra = '{"permissions": {"ask": ["Edit"]}}'
    more = json.loads(run(capsys, "--cwd", str(folder), "--settings", extra, "--json"))
    assert more["policy"] != plain["policy"]
    assert [rule["rule"] for rule in more["permissions"]["ask"]] == ["Edit"]


def test_a_broken_settings_file_is_one_line_and_exit_2(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / ".claude" / "settings.json").write_text("{not json")
    with pytest.raises(SystemExit) as exited:
        main(["policy", "--cwd", str(folder)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err
    assert "Traceback" not in err
