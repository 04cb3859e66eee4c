"""How long a long session's timeline page takes to open: ``hookline timeline --html`` for a
1,000-call session, opened in real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium as the tests drive it).

The session is a real audited ``Agent`` run (a ``ScriptedModel``, one tool call a turn, a gate
that denies one call in 50, an observer and a shadow hook), so the page holds what a real one
does: each call with its hooks, each model reply, the hook health. Rows: ``write page`` is the
wall time of the command (a new process: start-up, reading and verifying the audit, the page);
``load`` is the navigation's ``startTime`` (navigationStart) to its ``loadEventEnd``;
``DOM ready`` to ``domContentLoadedEventEnd``; ``last row`` to the moment the last step's row
was in the DOM (a ``MutationObserver`` installed before the page's first byte, through the
DevTools protocol: the page has no script of its own); ``first paint`` to its first contentful
paint. Each load is checked: every step a row, else the script stops with an error. Run ``python
bench/bench_timeline.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import benchkit  # puts ../src on sys.path when needed
import hookline
from benchkit import SCRATCH, p90
from hookline import Agent, Decision, HookRegistry, ScriptedModel
from hookline.audit import attach_audit

CHROMIUM: Final = Path("/usr/bin/chromium")
DRIVER: Final = Path("/usr/bin/chromedriver")
#: tests/browser.py's flags: the same browser the tests look at the page with.
FLAGS: Final = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,1600")  # fmt: skip
#: Installed before each document's first byte: when the row of the ``want``-th step was added.
OBSERVER: Final = """
(() => {
  const want = %d;
  let rows = 0;
  window.__lastRow = null;
  const seen = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeName === "TR" && node.classList.contains("step") && ++rows === want) {
          window.__lastRow = performance.now();
          seen.disconnect();
          return;
        }
      }
    }
  });
  seen.observe(document, {childList: true, subtree: true});
})();
"""
MEASURED: Final = """
const nav = performance.getEntriesByType("navigation")[0];
const paint = performance.getEntriesByName("first-contentful-paint")[0];
return {
  load: nav.loadEventEnd - nav.startTime,
  ready: nav.domContentLoadedEventEnd - nav.startTime,
  lastRow: window.__lastRow,
  paint: paint ? paint.startTime : null,
  rows: document.querySelectorAll("#steps tbody tr.step").length,
};
"""


@hookline.tool
def note(text: str) -> str:
    """Keep a note."""
    return "kept"


def session(folder: Path, calls: int) -> str:
    """An audited run in ``folder`` of ``calls`` tool calls; its session id."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": "note", "input": {"text": f"note {i}"}}]}
        for i in range(calls)
    ]
    registry = HookRegistry()
    registry.add("UserPromptSubmit", lambda e: None, name="greeter", kind="observer")
    registry.add(
        "PreToolUse",
        lambda e: Decision.deny("one in 50") if e.tool_input["text"].endswith("0") else None,
        name="gate",
    )
    registry.add("PreToolUse", lambda e: Decision.deny("would stop all"), name="strict",
                 shadow=True)  # fmt: skip
    model = ScriptedModel([*turns, {"text": "done"}])
    agent = Agent(model, tools=[note], hooks=registry, cwd=folder, max_turns=calls + 1)
    with attach_audit(agent):
        agent.run_sync("take notes")
    return agent.session.id


def hookline_cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The ``hookline`` this script imported, as a new process, in ``folder``."""
    env = {**os.environ, "PYTHONPATH": str(Path(hookline.__file__).resolve().parents[1])}
    command = [sys.executable, "-m", "hookline", *args, "--cwd", str(folder)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"hookline {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


def browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager downloads nothing
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(str(DRIVER)))


def opened(driver: Any, uri: str, steps: int) -> dict[str, Any]:
    """One load of the page: its timings (ms), checked to hold every step."""
    driver.get("about:blank")
    driver.get(uri)  # returns once the page has loaded
    said: dict[str, Any] = driver.execute_script(MEASURED)
    if said["rows"] != steps or said["lastRow"] is None:
        raise SystemExit(f"the page shows {said['rows']} rows of {steps} steps")
    return said


def run_all(quick: bool) -> dict[str, Any]:
    if not (CHROMIUM.exists() and DRIVER.exists()):
        raise SystemExit("needs Debian's chromium: apt-get install -y chromium chromium-driver")
    calls, warm, rounds = (200, 1, 2) if quick else (1000, 2, 15)
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        folder = Path(tmp) / "project"
        folder.mkdir()
        sid = session(folder, calls)
        steps = len(json.loads(hookline_cli(folder, "timeline", sid, "--json").stdout)["steps"])
        page = Path(tmp) / "timeline.html"
        writes = []
        for _ in range(3 if quick else 7):
            start = time.perf_counter()
            hookline_cli(folder, "timeline", sid, "--html", str(page))
            writes.append(time.perf_counter() - start)
        driver = browser(Path(tmp) / "profile")
        try:
            driver.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER % steps}
            )
            for _ in range(warm):
                opened(driver, page.as_uri(), steps)
            loads = [opened(driver, page.as_uri(), steps) for _ in range(rounds)]
            version = driver.capabilities.get("browserVersion", "?")
        finally:
            driver.quit()
        size = page.stat().st_size

    def of(key: str) -> list[float]:
        return [float(load[key]) for load in loads if load[key] is not None]

    return {
        "calls": calls,
        "steps": steps,
        "page_bytes": size,
        "chromium": version,
        "rounds": rounds,
        "write_page_ms": statistics.median(writes) * 1000,
        **{
            f"{name}_ms": {"median": statistics.median(of(key)), "p90": p90(of(key))}
            for name, key in (("load", "load"), ("ready", "ready"), ("last_row", "lastRow"))
        },
        "first_paint_ms": statistics.median(of("paint")) if of("paint") else None,
    }


def table(results: dict[str, Any]) -> str:
    def row(title: str, key: str) -> str:
        said = results[key]
        return f"{title:<30} {said['median']:9.1f} {said['p90']:9.1f}"

    paint = results["first_paint_ms"]
    return "\n".join([
        f"{results['calls']} calls, {results['steps']} steps, a page of "
        f"{results['page_bytes'] / 1024:.0f} KiB, Chromium {results['chromium']}, "
        f"{results['rounds']} loads:",
        f"{'ms':<30} {'median':>9} {'p90':>9}",
        f"{'write page (hookline timeline)':<30} {results['write_page_ms']:9.1f}",
        row("DOM ready", "ready_ms"),
        row("last row in the DOM", "last_row_ms"),
        row("load (loadEventEnd)", "load_ms"),
        f"{'first contentful paint':<30} {paint:9.1f}" if paint is not None else "no paint entry",
    ])  # fmt: skip


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
