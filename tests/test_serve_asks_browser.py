"""``hookline serve --asks inbox --inbox`` in real headless Chromium: a person signed in to the
inbox sees a host's call appear while the host waits (no reload: the page's live stream brings
it), approves it, and the host gets allow. A screenshot is kept in ``test-artifacts/``.
Without /usr/bin/chromium the test is skipped, saying how to install it; with
``HOOKLINE_REQUIRE_CHROMIUM=1`` (CI) it fails instead (``tests/browser.py``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as shows
from selenium.webdriver.support.ui import WebDriverWait

from asks_server import asked, deploy, permission, policy_folder, posted, records, serving
from browser import browser, keep, needs_chromium
from hookline._cli.serve_asks import INBOX_PATH
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.storage import open_store
from inbox_server import PASSWORDS, add_users

__all__ = ["browser"]  # the fixture, for the test below that asks for it
pytestmark = needs_chromium
#: How long the browser may take to show what a step brings.
SHOWN = 60


def test_a_person_sees_a_hosts_call_appear_approves_it_and_the_host_is_allowed(
    tmp_path: Path, browser: Any
) -> None:
    users, state = tmp_path / "users.json", tmp_path / "state"
    add_users(users)
    wait = WebDriverWait(browser, SHOWN)
    with (
        serving(policy_folder(tmp_path), state, users, wait=25.0) as where,
        ThreadPoolExecutor(1) as pool,
    ):
        browser.get(where + INBOX_PATH + "/")
        wait.until(shows.presence_of_element_located((By.NAME, "password")))
        browser.find_element(By.NAME, "name").send_keys("ann")
        browser.find_element(By.NAME, "password").send_keys(PASSWORDS["ann"][1])
        browser.find_element(By.CSS_SELECTOR, "form[action='login'] button").click()
        wait.until(shows.text_to_be_present_in_element((By.ID, "pending"), "No call waits"))

        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)  # kept: the page, loaded before, must show it by itself
        store.close()
        section = wait.until(shows.presence_of_element_located((By.ID, f"a-{ask.id}")))
        assert "claude-code waits on this call" in section.text
        assert "deploy prod" in section.text
        keep(browser, "inbox-live-ask")
        section.find_element(By.NAME, "why").send_keys("release day")
        section.find_element(By.CSS_SELECTOR, "button[value='approve']").click()
        wait.until(shows.text_to_be_present_in_element((By.TAG_NAME, "body"), "the host is told"))
        assert permission(host.result()) == ("allow", "approved by ann (inbox)")
    [given] = records(state, "inbox_answer")
    assert (given["data"]["ask"], given["data"]["why"]) == (ask.id, "release day")
