"""``hookline inbox`` in real headless Chromium (Debian's ``chromium`` and ``chromium-driver``).

A person signs in, sees two paused calls, approves one and denies the other with a message,
sees a third appear without reloading and runs an edit of it instead; the approved call and the
edit ran, once each (``sentinel.txt``), and the audit says who answered what. Screenshots of
the inbox are kept in ``test-artifacts/``. Without /usr/bin/chromium the test is skipped,
saying how to install it; with
``HOOKLINE_REQUIRE_CHROMIUM=1`` (CI) it fails instead (``tests/browser.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as shows
from selenium.webdriver.support.ui import WebDriverWait

from browser import browser, keep, needs_chromium
from inbox_server import PASSWORDS, add_users, audit, paused_run, runs, started

__all__ = ["browser"]  # the fixture, for the test below that asks for it
pytestmark = needs_chromium
#: How long the browser may take to show what a step brings (an answer runs a resume).
SHOWN = 120


def test_a_person_signs_in_approves_one_call_denies_another_and_sees_a_new_one_appear(
    tmp_path: Path, browser: Any
) -> None:
    project, users = tmp_path / "project", tmp_path / "users.json"
    project.mkdir()
    add_users(users)
    first, second = paused_run(project), paused_run(project)
    wait = WebDriverWait(browser, SHOWN)
    with started(project, users) as url:
        browser.get(url + "/")
        wait.until(shows.presence_of_element_located((By.NAME, "password")))
        browser.find_element(By.NAME, "name").send_keys("ann")
        browser.find_element(By.NAME, "password").send_keys(PASSWORDS["ann"][1])
        browser.find_element(By.CSS_SELECTOR, "form[action='login'] button").click()
        wait.until(shows.presence_of_element_located((By.ID, f"s-{second}")))
        assert "echo ran >> sentinel.txt" in browser.find_element(By.ID, f"s-{first}").text
        keep(browser, "inbox-two-calls")

        section = browser.find_element(By.ID, f"s-{first}")
        section.find_element(By.NAME, "why").send_keys("a harmless echo")
        section.find_element(By.CSS_SELECTOR, "button[value='approve']").click()
        wait.until(shows.text_to_be_present_in_element((By.TAG_NAME, "body"), "answered;"))
        assert runs(project) == 1

        browser.get(url + "/")
        section = wait.until(shows.presence_of_element_located((By.ID, f"s-{second}")))
        assert not browser.find_elements(By.ID, f"s-{first}")
        deny = section.find_element(By.CSS_SELECTOR, "form:has(button[value='deny'])")
        deny.find_element(By.NAME, "message").send_keys("not on a Friday")
        deny.find_element(By.CSS_SELECTOR, "button[value='deny']").click()
        wait.until(shows.text_to_be_present_in_element((By.TAG_NAME, "body"), "answered;"))
        assert runs(project) == 1

        browser.get(url + "/")
        wait.until(shows.text_to_be_present_in_element((By.ID, "pending"), "No call waits"))
        third = paused_run(project)  # the page was loaded before: the stream brings it
        section = wait.until(shows.presence_of_element_located((By.ID, f"s-{third}")))
        keep(browser, "inbox-live-update")

        edit = section.find_element(By.CSS_SELECTOR, "form:has(button[value='edit'])")
        field = edit.find_element(By.NAME, "edited")
        field.clear()
        field.send_keys('{"command": "echo edited >> sentinel.txt"}')
        edit.find_element(By.CSS_SELECTOR, "button[value='edit']").click()
        wait.until(shows.text_to_be_present_in_element((By.TAG_NAME, "body"), "answered;"))
    answers = {r["session_id"]: r["data"] for r in audit(project, "resume")}
    assert (answers[first]["answer"], answers[first]["answered_by"]) == ("approve", "inbox:ann")
    assert (answers[second]["answer"], answers[second]["message"]) == ("deny", "not on a Friday")
    assert answers[third]["answer"] == "edit"
    assert (project / "sentinel.txt").read_text().splitlines() == ["ran", "edited"]
