"""The inbox's users file, its sign-in cookie and CSRF token, and its signed links."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest

from hookline._errors import ConfigError
from hookline._inbox import links
from hookline._inbox.signin import LOCKED, TRIES, Signer, Tries
from hookline._inbox.users import add_user, check_password, load_users


def test_a_password_is_kept_as_salted_scrypt_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    add_user(path, "ann", "approver", "correct horse")
    add_user(path, "bob", "viewer", "correct horse")
    text = path.read_text()
    assert "correct horse" not in text
    users = load_users(path)
    assert users["ann"].password != users["bob"].password  # a salt each
    assert check_password(users["ann"], "correct horse")
    assert not check_password(users["ann"], "correct horsE")
    assert (users["ann"].may_answer, users["bob"].may_answer) == (True, False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("{not json", "not valid JSON"),
        ('{"people": {}}', "users"),
        ('{"users": {"ann": {"role": "boss", "password": "scrypt$x"}}}', "users.ann.role"),
        ('{"users": {"ann": {"role": "viewer", "password": "hunter2"}}}', "users.ann.password"),
        ('{"users": {"ann": []}}', "users.ann"),
    ],
)
def test_a_bad_users_file_names_the_file_the_key_and_the_fix(
    tmp_path: Path, text: str, named: str
) -> None:
    path = tmp_path / "users.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_users(path)
    said = str(caught.value)
    assert str(path) in said and named in said and "fix:" in said


def test_a_bad_user_name_or_empty_password_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a user name"):
        add_user(tmp_path / "u.json", "<ann>", "approver", "pw")
    with pytest.raises(ConfigError, match="empty"):
        add_user(tmp_path / "u.json", "ann", "approver", "")
    assert not (tmp_path / "u.json").exists()


def test_the_cookie_holds_only_when_signed_and_unexpired() -> None:
    signer = Signer(b"k" * 32)
    visit, cookie = signer.issue("ann", now=1000.0)
    assert signer.read(cookie, now=1001.0) == visit
    mac = cookie.split(".")[1]
    forged = json.dumps({"n": visit.nonce, "u": "root", "e": visit.expires})
    token = base64.urlsafe_b64encode(forged.encode()).decode().rstrip("=")
    assert signer.read(f"{token}.{mac}", now=1001.0) is None
    assert signer.read(cookie, now=visit.expires + 1) is None
    assert Signer(b"j" * 32).read(cookie, now=1001.0) is None  # another server's key
    assert signer.read("garbage", now=1001.0) is None


def test_the_csrf_token_is_its_own_cookies_only() -> None:
    signer = Signer(b"k" * 32)
    mine, _ = signer.issue("ann")
    theirs, _ = signer.issue("ann")
    assert signer.csrf_ok(mine, signer.csrf(mine))
    assert not signer.csrf_ok(mine, signer.csrf(theirs))
    assert not signer.csrf_ok(mine, None) and not signer.csrf_ok(None, signer.csrf(mine))


KEY = b"s" * 32
LINK = links.Link("session-1", "t_b", "approve", expires=2000.0, paused_at=5.5)


def test_a_link_says_what_it_was_signed_for() -> None:
    assert links.read(KEY, links.make(KEY, LINK), now=1000.0) == LINK


def test_a_changed_expired_or_foreign_link_is_refused() -> None:
    token = links.make(KEY, LINK)
    other = links.make(KEY, links.Link("session-1", "t_b", "deny", 2000.0, 5.5))
    spliced = other.split(".")[0] + "." + token.split(".")[1]  # deny, with approve's MAC
    for bad, said in [
        (spliced, "not one hookline signed"),
        (token + "0", "not one hookline signed"),
        (links.make(b"x" * 32, LINK), "not one hookline signed"),
        ("nonsense", "not one hookline signed"),
    ]:
        with pytest.raises(links.BadLink, match=said):
            links.read(KEY, bad, now=1000.0)
    with pytest.raises(links.BadLink, match="expired"):
        links.read(KEY, token, now=2000.0)
    edit = links.make(KEY, links.Link("session-1", "t_b", "edit", 2000.0, 5.5))
    with pytest.raises(links.BadLink, match="no answer a link can give"):
        links.read(KEY, edit, now=1000.0)


def test_a_name_is_refused_for_a_while_after_wrong_passwords_in_a_row() -> None:
    tries = Tries()
    for _ in range(TRIES - 1):
        tries.failed("ann", now=100.0)
    assert not tries.locked("ann", now=100.0)
    tries.failed("ann", now=100.0)
    assert tries.locked("ann", now=100.0) and not tries.locked("bob", now=100.0)
    assert not tries.locked("ann", now=100.0 + LOCKED)  # the while is over
    tries.passed("ann")
    assert tries.wrong == {}
