"""``hookline serve token add|list|revoke`` run for real: the token printed once and stored only
as its hash (0600), a list that never shows a token, revocation, and a server beyond loopback
that does not start without one."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from cli_runner import hookline
from hookline._errors import ConfigError
from hookline._serve import tokens
from hookline._serve.tokens import TokenFile, digest, tokens_path


def _add(state: Path, *args: str) -> str:
    done = hookline("serve", "token", "add", *args, "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    secret = done.stdout.strip()
    assert secret.startswith("hl_") and len(secret) == 46
    return secret


def test_a_token_is_printed_once_and_only_its_hash_is_kept_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    secret = _add(state, "alice-laptop", "--tenant", "acme", "--user", "alice")
    path = tokens_path(state)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = path.read_text()
    assert secret not in kept
    assert secret[3:] not in kept
    [entry] = json.loads(kept)["tokens"]
    assert entry["sha256"] == digest(secret)
    assert (entry["name"], entry["tenant"], entry["user"], entry["revoked"]) == (
        "alice-laptop", "acme", "alice", None,
    )  # fmt: skip


def test_the_list_shows_who_has_a_token_and_never_a_token_or_its_hash(tmp_path: Path) -> None:
    state = tmp_path / "state"
    alice = _add(state, "alice-laptop", "--tenant", "acme")
    bob = _add(state, "bob-ci")
    done = hookline("serve", "token", "revoke", "bob-ci", "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    shown = hookline("serve", "token", "list", "--state-dir", str(state))
    as_json = hookline("serve", "token", "list", "--json", "--state-dir", str(state))
    for listing in (shown, as_json):
        assert listing.returncode == 0, listing.stderr
        for secret in (alice, bob):
            assert secret not in listing.stdout
            assert digest(secret) not in listing.stdout
    lines = shown.stdout.splitlines()
    assert lines[0].split() == ["NAME", "TENANT", "USER", "CREATED", "REVOKED"]
    assert lines[1].split()[:3] == ["alice-laptop", "acme", "-"] and lines[1].endswith("-")
    assert lines[2].split()[0] == "bob-ci" and not lines[2].endswith("-")
    rows = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [(r["name"], r["revoked"] is None) for r in rows] == [
        ("alice-laptop", True), ("bob-ci", False),
    ]  # fmt: skip


def test_a_name_is_made_again_only_once_its_token_is_revoked(tmp_path: Path) -> None:
    path = tokens_path(tmp_path)
    first = tokens.add(path, "alice")
    with pytest.raises(ConfigError, match="a token named alice exists"):
        tokens.add(path, "alice")
    tokens.revoke(path, "alice")
    second = tokens.add(path, "alice")
    known = tokens.read(path)
    assert tokens.find(known, first) is None
    found = tokens.find(known, second)
    assert found is not None and found.active


def test_revoking_a_name_that_has_no_token_says_so_in_one_line(tmp_path: Path) -> None:
    done = hookline("serve", "token", "revoke", "nobody", "--state-dir", str(tmp_path))
    assert done.returncode == 2
    assert "no token is named nobody" in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_tokens_file_of_another_version_is_refused_not_guessed_at(tmp_path: Path) -> None:
    path = tokens_path(tmp_path)
    path.write_text(json.dumps({"version": 99, "tokens": []}))
    with pytest.raises(ConfigError, match="not a tokens file of version 1"):
        tokens.read(path)
    watched = TokenFile(path)
    assert watched.tokens() == []
    assert watched.broken is not None


def test_a_server_beyond_loopback_does_not_start_without_a_token(tmp_path: Path) -> None:
    (tmp_path / "policy").mkdir()
    state = tmp_path / "state"
    args = ("--cwd", str(tmp_path / "policy"), "--state-dir", str(state), "--port", "0")
    done = hookline("serve", "--host", "0.0.0.0", *args)
    assert done.returncode == 2
    assert "needs a token" in done.stderr
    assert "hookline serve token add NAME" in done.stderr
    assert done.stderr.count("\n") == 1
    assert not state.exists()
