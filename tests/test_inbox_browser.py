"""``hookline inbox`` in real headless Chromium (Debian's ``chromium`` and ``chromium-driver``).

A person signs in, sees two paused calls, approves one and denies the other with a message,
and sees a third appear without reloading; the tool ran once (``sentinel.txt``), and the audit
says who answered what. Screenshots of the inbox are kept in ``test-artifacts/``.
Without /usr/bin/chromium the test is skipped, saying how to install it; with
``HOOKLINE_REQUIRE_CHROMIUM=1`` (CI) it fails instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from inbox_server import PASSWORDS, add_users, audit, paused_run, runs, started

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
#: How long the browser may take to show what a step brings (an answer runs a resume).
SHOWN = 120

if not (CHROMIUM.exists() and DRIVER.exists()):
    if os.environ.get("HOOKLINE_REQUIRE_CHROMIUM") == "1":
        raise RuntimeError(f"{CHROMIUM} or {DRIVER} is missing; CI installs them (.ci/run)")
    pytest.skip(
        "needs Debian's chromium: apt-get install -y chromium chromium-driver",
        allow_module_level=True,
    )

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as shows  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1600")  # fmt: skip


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[webdriver.Chrome]:
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager downloads nothing
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(DRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def keep(driver: webdriver.Chrome, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def test_a_person_signs_in_approves_one_call_denies_another_and_sees_a_new_one_appear(
    tmp_path: Path, browser: webdriver.Chrome
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
        browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
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
        wait.until(shows.presence_of_element_located((By.ID, f"s-{third}")))
        keep(browser, "inbox-live-update")
    answers = {r["session_id"]: r["data"] for r in audit(project, "resume")}
    assert (answers[first]["answer"], answers[first]["answered_by"]) == ("approve", "inbox:ann")
    assert (answers[second]["answer"], answers[second]["message"]) == ("deny", "not on a Friday")
    assert third not in answers and runs(project) == 1
    assert shutil.which("chromium") or CHROMIUM.exists()
