"""The unit/e2e rule of tests/kinds.py holds: a unit test that starts a process or listens on a
socket fails, naming its file and the list to add it to; an e2e file's tests may; ``-m unit``
and ``-m e2e`` select each kind. Each case is a small test project run by pytest in a process
of its own, with tests/kinds.py as its plugin (this file is in ``E2E``, so there it is e2e)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from kinds import E2E

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent

PLANTED = {
    "test_plain.py": """
def test_adds():
    assert 1 + 1 == 2
""",
    "test_spawns.py": """
import subprocess, threading

def test_runs_true():
    subprocess.run(["true"], check=True)

def test_runs_true_in_a_thread():
    worker = threading.Thread(target=subprocess.run, args=(["true"],))
    worker.start()
    worker.join()
""",
    "test_serves.py": """
import socket
import pytest

@pytest.fixture
def server():
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        yield listening

def test_talks_to_it(server):
    assert server.getsockname()[1] > 0
""",
    # A name E2E lists: its test may start what it likes.
    "test_kinds.py": """
import subprocess

def test_runs_true():
    subprocess.run(["true"], check=True)
""",
}


@pytest.fixture
def planted(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A test project of PLANTED's files that loads tests/kinds.py as its plugin."""
    pytester.makepyfile(**{name[:-3]: text for name, text in PLANTED.items()})
    config = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    markers = config["tool"]["pytest"]["ini_options"]["markers"]  # as the suite registers them
    lines = "".join(f"\n    {marker}" for marker in markers)
    pytester.makeini(
        f"[pytest]\naddopts = -p kinds -p no:cacheprovider --strict-markers\nmarkers ={lines}\n"
    )
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    return pytester


def test_a_unit_test_that_starts_a_process_or_binds_a_socket_fails(
    planted: pytest.Pytester,
) -> None:
    ran = planted.runpytest_subprocess("-p", "no:xdist")
    ran.assert_outcomes(passed=5, errors=3)  # each failing teardown is an error after a pass
    out = ran.stdout.str()
    for test, what in [
        ("test_spawns.py::test_runs_true", "started a process (subprocess.Popen: ['true'])"),
        ("test_spawns.py::test_runs_true_in_a_thread", "started a process"),
        ("test_serves.py::test_talks_to_it", "bound a socket (socket.bind: ('127.0.0.1', 0))"),
    ]:
        assert f"ERROR {test}" in out
        assert f"{test} is a unit test, but it {what}" in out
    assert "add 'test_spawns.py' to E2E in tests/kinds.py" in out
    assert "ERROR test_kinds.py" not in out and "ERROR test_plain.py" not in out


@pytest.mark.parametrize(
    ("kind", "selected"),
    [
        ("unit", {"test_plain.py", "test_spawns.py", "test_serves.py"}),
        ("e2e", {"test_kinds.py"}),
    ],
)
def test_each_kind_is_selected_by_its_marker(
    planted: pytest.Pytester, kind: str, selected: set[str]
) -> None:
    ran = planted.runpytest_subprocess("-p", "no:xdist", "-m", kind, "--collect-only", "-q")
    files = {line.split("::")[0] for line in ran.stdout.lines if "::" in line}
    assert files == selected


def test_every_file_listed_as_e2e_exists() -> None:
    assert sorted(name for name in E2E if not (TESTS / name).is_file()) == []
