"""A real ``hookline inbox`` on 127.0.0.1 for the tests, and a run paused for it to answer.

``paused_run(project)`` runs ``hookline run`` on a scripted model whose one call is the Bash
line ``echo ran >> sentinel.txt`` (asked, nobody to answer, ``--defer-asks``): the session
pauses and ``sentinel.txt`` counts each time the tool body runs. ``started(...)`` starts the
inbox on a free port and stops it on exit; ``People`` are its browsers (httpx clients with
their cookies), ``csrf`` reads a page's token.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from cli_runner import HOOKLINE, hookline, src_env

SENTINEL = "sentinel.txt"
PASSWORDS = {"ann": ("approver", "ann's password"), "vic": ("viewer", "vic's password")}


def paused_run(
    project: Path, *, command: str = f"echo ran >> {SENTINEL}", id: str = "t_b", store: str = ""
) -> str:
    """A paused session waiting on one Bash call; its id."""
    script = {"turns": [{"tool_calls": [{"id": id, "name": "Bash", "input": {"command": command}}]},
                        {"text": "done"}]}  # fmt: skip
    (project / "script.json").write_text(json.dumps(script))
    before = runs(project)
    where = ["--store", store] if store else []
    done = hookline("run", "go", "--model", "scripted:script.json", "--defer-asks",
                    "--output-format", "json", *where, cwd=project)  # fmt: skip
    assert done.returncode == 4, done.stderr
    assert runs(project) == before  # paused before the tool ran
    return str(json.loads(done.stdout)["session_id"])


def add_users(users: Path) -> None:
    for name, (role, password) in PASSWORDS.items():
        added = hookline("inbox", "user", "add", name, "--role", role, "--password-stdin",
                         "--users", str(users), stdin=password + "\n")  # fmt: skip
        assert added.returncode == 0, added.stderr


@contextmanager
def started(project: Path, users: Path, *more: str) -> Iterator[str]:
    """``hookline inbox`` for ``project`` on a free port: its URL, until the block ends."""
    command = [*HOOKLINE, "inbox", "--cwd", str(project), "--users", str(users), "--port", "0",
               "--refresh", "0.05", *more]  # fmt: skip
    with subprocess.Popen(
        command,
        env=src_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            first = process.stdout.readline() if process.stdout else ""
            if not re.search(r" on https?://127\.0\.0\.1:", first):
                process.terminate()
                raise AssertionError(process.stderr.read() if process.stderr else first)
            yield first.strip().rsplit(" on ", 1)[1].rstrip("/")
        finally:
            process.terminate()
            process.wait(timeout=30)


class People:
    """The browsers of a test: each a client of the inbox at ``url``, closed by ``close``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._clients: list[httpx.Client] = []

    def anonymous(self, **headers: str) -> httpx.Client:
        client = httpx.Client(base_url=self.url, timeout=60, headers=headers)
        self._clients.append(client)
        return client

    def sign_in(self, name: str) -> httpx.Client:
        """A client signed in as ``name`` (its password from ``PASSWORDS``)."""
        client = self.anonymous()
        token = csrf(client.get("/login").text)
        data = {"csrf": token, "name": name, "password": PASSWORDS[name][1], "next": "/"}
        done = client.post("/login", data=data)
        assert done.status_code == 303, done.text
        return client

    def close(self) -> None:
        for client in self._clients:
            client.close()


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


def answer(client: httpx.Client, session: str, action: str, **fields: str) -> httpx.Response:
    """POST /answer with the page's own CSRF token."""
    token = csrf(client.get("/").text)
    data = {"csrf": token, "session": session, "action": action, **fields}
    return client.post("/answer", data=data)


def runs(project: Path) -> int:
    """How many times the tool body ran (lines in the sentinel; 0 when it never did)."""
    path = project / SENTINEL
    return len(path.read_text().splitlines()) if path.exists() else 0


def audit(project: Path, kind: str) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in
            (project / ".hookline" / "state" / "audit.jsonl").read_text().splitlines()]  # fmt: skip
    return [row for row in rows if row.get("kind") == kind]
