"""Real headless Chromium for the tests that look at hookline's pages: Debian's ``chromium``
and ``chromium-driver``, driven by Selenium, nothing downloaded (``SE_OFFLINE``).

``needs_chromium`` skips a test without them, saying how to install them; with
``HOOKLINE_REQUIRE_CHROMIUM=1`` (CI installs them) it fails instead. ``keep`` saves a
screenshot in ``test-artifacts/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

CHROMIUM: Final = Path("/usr/bin/chromium")
DRIVER: Final = Path("/usr/bin/chromedriver")
ARTIFACTS: Final = Path(__file__).resolve().parents[1] / "test-artifacts"
FLAGS: Final = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,1600")  # fmt: skip

if (
    not (CHROMIUM.exists() and DRIVER.exists())
    and os.environ.get("HOOKLINE_REQUIRE_CHROMIUM") == "1"
):
    raise RuntimeError(f"{CHROMIUM} or {DRIVER} is missing; CI installs them (.ci/run)")
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and DRIVER.exists()),
    reason="needs Debian's chromium: apt-get install -y chromium chromium-driver",
)


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

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


def keep(driver: Any, name: str) -> None:
    """A screenshot of what the browser shows, kept as ``test-artifacts/NAME.png``."""
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))
