"""Nothing outlives its run: every process a tool or a hook starts ends with its call, its session
or the harness, however it detaches from them.

Each way of leaving (``setsid``, ``setsid --fork``, a double fork, ``nohup``, a daemon that
forks twice, closes its descriptors and changes folder) writes the pid of the process it leaves
into a file; the test then polls ``/proc`` for that process's death, with a bound against a hang
(never a claim about speed). Every test kills what it finds left, so a failure leaves nothing.
"""

from __future__ import annotations

import asyncio
import json
import marshal
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, src_env
from hookline import Agent, HookEngine, HookRegistry, PreToolUse, ScriptedModel
from hookline._claude.command import CommandHook
from hookline._events import Scope
from hookline._support import process, reaper
from hookline._support.keepers import Leftovers, Watchdog
from hookline._support.process import run_process

PY = shlex.quote(sys.executable)
DAEMON = (
    "import os, sys\n"
    "if os.fork(): sys.exit(0)\n"
    "os.setsid()\n"
    "if os.fork(): os._exit(0)\n"
    "os.chdir('/'); os.umask(0)\n"
    "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
    "os.closerange(0, 1024)\n"
    "os.execvp('sleep', ['sleep', '300'])\n"
)
#: Ways a command leaves a process behind, each writing its pid to ``{pidfile}``.
ESCAPES = {
    "setsid &": "setsid sleep 300 > /dev/null 2>&1 & echo $! > {pidfile}",
    "setsid --fork": "setsid -f sh -c 'echo $$ > {pidfile}; exec sleep 300' > /dev/null 2>&1",
    "double fork": "( setsid sh -c 'sleep 300 & echo $! > {pidfile}' > /dev/null 2>&1 & )",
    "nohup": "nohup sleep 300 > /dev/null 2>&1 & echo $! > {pidfile}",
    "daemon": f"{PY} -c {shlex.quote(DAEMON)} {{pidfile}}",
    "background": "sleep 300 > /dev/null 2>&1 & echo $! > {pidfile}",
}


def _leaving(escape: str, pidfile: Path) -> str:
    """A command that leaves a process the ``escape`` way, and waits until its pid is written
    (a detached process writes it on its own time: the call ending first would end it first)."""
    waits = f"until [ -s {pidfile} ]; do sleep 0.01; done"
    return f"{ESCAPES[escape].format(pidfile=pidfile)}; {waits}"


def _wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Poll ``condition`` (bounded): a guard against a hang, not a timing assertion."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _pid_in(pidfile: Path) -> int | None:
    text = pidfile.read_text().strip() if pidfile.exists() else ""
    return int(text) if text.isdigit() else None


def _left(pidfile: Path) -> int:
    """The pid the command wrote, once it is there (and alive)."""
    assert _wait_for(lambda: _pid_in(pidfile) is not None), f"nothing wrote {pidfile}"
    pid = _pid_in(pidfile)
    assert pid is not None
    return pid


def _ends(pid: int) -> bool:
    return _wait_for(lambda: not _alive(pid))


@pytest.fixture
def pidfiles(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """``pidfiles(name)``: a path for a pid; whatever is still alive at the end is killed."""
    made: list[Path] = []

    def make(name: str) -> Path:
        made.append(tmp_path / f"{re.sub('[^a-z]+', '-', name)}.pid")
        return made[-1]

    yield make
    for pidfile in made:
        pid = _pid_in(pidfile)
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _call(command: str, **options: Any) -> Coroutine[Any, Any, process.Finished]:
    """``run_process`` of ``sh -c command`` in ``/``, with this process's environment."""
    defaults: dict[str, Any] = {"stdin": b"", "cwd": "/", "env": os.environ, "kill_grace": 0.2}
    return run_process(["/bin/sh", "-c", command], **{**defaults, **options})


def _run(command: str, **options: Any) -> process.Finished:
    return asyncio.run(_call(command, **options))


# -- a call: what it leaves ends when it ends ----------------------------------------------------


@pytest.mark.parametrize("escape", list(ESCAPES))
def test_what_a_command_hook_leaves_running_ends_with_its_call(
    tmp_path: Path, pidfiles: Callable[[str], Path], escape: str
) -> None:
    pidfile = pidfiles(escape)
    registry = HookRegistry()
    command = _leaving(escape, pidfile)
    registry.add("PreToolUse", CommandHook(command, project_dir=str(tmp_path)))
    scope = Scope("s", str(tmp_path / "t.jsonl"), str(tmp_path))
    event = scope.event(PreToolUse, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t")
    (run,) = asyncio.run(HookEngine(registry).dispatch(event)).runs
    assert run.failure is None, run.error
    assert _ends(_left(pidfile)), f"{escape}: outlived the hook's call"


@pytest.mark.parametrize("escape", list(ESCAPES))
def test_what_a_bash_call_leaves_running_lives_until_its_session_ends(
    tmp_path: Path, pidfiles: Callable[[str], Path], escape: str
) -> None:
    """``server &`` in one Bash call is there for the next ones (as in Claude Code), and ends
    with the session, however it detached."""
    pidfile = pidfiles(escape)
    agent = Agent(ScriptedModel([]), cwd=tmp_path)

    async def go() -> tuple[bool, int]:
        result = await agent.call_tool("Bash", {"command": _leaving(escape, pidfile)})
        assert result.status == "executed", result.content
        pid = _left(pidfile)
        kept = _alive(pid) and len(agent.session.leftovers) == 1
        await agent.close()
        return kept, pid

    kept, pid = asyncio.run(go())
    assert kept, f"{escape}: ended with its Bash call"
    assert _ends(pid), f"{escape}: outlived the session"


@pytest.mark.parametrize("escape", ["setsid &", "double fork", "daemon"])
def test_a_call_that_times_out_ends_every_process_it_started(
    pidfiles: Callable[[str], Path], escape: str
) -> None:
    pidfile = pidfiles(escape)
    command = f"trap '' TERM; {_leaving(escape, pidfile)}; sleep 300"

    async def go() -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(2):  # the call is cancelled, as the engine's timeout does
                await _call(command, leftovers=Leftovers())

    asyncio.run(go())
    assert _ends(_left(pidfile)), f"{escape}: outlived its cancelled call"


def test_a_command_that_kills_its_keeper_leaves_nothing_and_reads_as_a_failure(
    pidfiles: Callable[[str], Path],
) -> None:
    """Its processes come to the watchdog, a child subreaper too, which ends them; the call
    cannot say how the command ended, and reads as killed, or as not started when the keeper
    was killed that early: a failure, never a success."""
    pidfile = pidfiles("orphan")
    try:
        done = _run(f"{_leaving('setsid &', pidfile)}; kill -9 $PPID; sleep 300")
    except OSError as exc:
        assert "ended before it said the command started" in str(exc)
    else:
        assert done.returncode == -signal.SIGKILL
    assert _ends(_left(pidfile))


def test_leftovers_let_go_of_a_call_once_nothing_of_it_is_left(tmp_path: Path) -> None:
    leftovers = Leftovers()
    done = _run(f"sleep 0.2 > /dev/null 2>&1 & echo $! > {tmp_path / 'pid'}", leftovers=leftovers)
    assert done.returncode == 0
    assert _wait_for(lambda: len(leftovers) == 0)


# -- the session and the harness ------------------------------------------------------------------


def _script(project: Path, *commands: str) -> None:
    turns = [
        {"tool_calls": [{"id": f"t{i}", "name": "Bash", "input": {"command": command}}]}
        for i, command in enumerate(commands)
    ]
    (project / "script.json").write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))


def _harness(project: Path, *extra: str) -> subprocess.Popen[bytes]:
    argv = [*HOOKLINE, "run", "go", "--model", "scripted:script.json", "--cwd", str(project)]
    argv += ["--permission-mode", "bypassPermissions", *extra]
    return subprocess.Popen(
        argv, cwd=project, env=src_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _sigkill_once_written(harness: subprocess.Popen[bytes], *pidfiles: Path) -> list[int]:
    try:
        pids = [_left(pidfile) for pidfile in pidfiles]
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait()
    return pids


#: What `hookline run` runs in Bash without asking (its permission layer asks before `python -c`).
ESCAPING = ["setsid &", "double fork", "setsid --fork", "nohup"]


def test_a_sigkilled_harness_leaves_nothing_its_bash_calls_started(
    tmp_path: Path, pidfiles: Callable[[str], Path]
) -> None:
    """The first call's leftovers (kept for the session) and the second call's, still
    running, all end when the harness is killed."""
    first = [pidfiles(f"first {e}") for e in ESCAPING]
    second = [pidfiles(f"second {e}") for e in ESCAPING]
    now = "; ".join(_leaving(e, p) for e, p in zip(ESCAPING, first, strict=True))
    then = "; ".join(_leaving(e, p) for e, p in zip(ESCAPING, second, strict=True))
    _script(tmp_path, now, then + "; sleep 300")
    pids = _sigkill_once_written(_harness(tmp_path), *first, *second)
    left = [pid for pid in pids if not _ends(pid)]
    assert not left, f"outlived the SIGKILLed harness: {left}"


def test_a_sigkilled_harness_leaves_nothing_its_command_hook_started(
    tmp_path: Path, pidfiles: Callable[[str], Path]
) -> None:
    files = [pidfiles(f"hook {e}") for e in ESCAPING]
    command = "; ".join(_leaving(e, p) for e, p in zip(ESCAPING, files, strict=True))
    _script(tmp_path, "true")
    hook = {"type": "command", "command": f"{command}; sleep 300", "timeout": 600}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    pids = _sigkill_once_written(_harness(tmp_path, "--settings", json.dumps(settings)), *files)
    left = [pid for pid in pids if not _ends(pid)]
    assert not left, f"outlived the SIGKILLed harness: {left}"


def test_hookline_run_ending_ends_what_its_bash_calls_left(
    tmp_path: Path, pidfiles: Callable[[str], Path]
) -> None:
    files = [pidfiles(e) for e in ESCAPING]
    _script(tmp_path, *(_leaving(e, p) for e, p in zip(ESCAPING, files, strict=True)))
    harness = _harness(tmp_path)
    assert harness.wait(timeout=120) == 0
    pids = [_left(pidfile) for pidfile in files]
    left = [pid for pid in pids if not _ends(pid)]
    assert not left, f"outlived hookline run: {left}"


# -- the watchdog -------------------------------------------------------------------------------


def test_a_killed_watchdog_is_replaced_and_its_calls_still_end(
    pidfiles: Callable[[str], Path],
) -> None:
    """Its keepers carry on: a call started before goes on to its end, and what it left
    ends with it; the next call gets a new watchdog."""
    pidfile = pidfiles("before")
    command = f"setsid sleep 300 > /dev/null 2>&1 & echo $! > {pidfile}; sleep 1000"

    async def go() -> tuple[int, int]:
        process.WATCHDOG.start()
        old = process.WATCHDOG._pid
        task = asyncio.ensure_future(_call(command))
        await asyncio.to_thread(_left, pidfile)
        os.kill(old, signal.SIGKILL)
        assert await asyncio.to_thread(_wait_for, lambda: not process.WATCHDOG._running())
        done = await _call("true")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return done.returncode, old

    returncode, old = asyncio.run(go())
    assert returncode == 0 and process.WATCHDOG._pid != old
    assert _ends(_left(pidfile))


def test_the_watchdog_ends_every_call_when_the_harness_goes() -> None:
    """Spoken to as the harness does (``hookline._support.process``): asked for a keeper, which
    runs a call that leaves a ``setsid`` child. The harness's end of the socket closes (as when
    it is killed): the child ends, and the watchdog exits."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    dog = subprocess.Popen([sys.executable, "-I", "-S", reaper.__file__], stdin=theirs,
                           start_new_session=True)  # fmt: skip
    theirs.close()
    ours.send(b"n")
    _, (keeper_fd,), _, _ = socket.recv_fds(ours, 16, 1)
    keeper = socket.socket(fileno=keeper_fd)
    read, write = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    request = marshal.dumps({"argv": ["/bin/sh", "-c", "setsid sleep 300 & echo $!"],
                             "env": dict(os.environ), "cwd": "/", "fds": []})  # fmt: skip
    socket.send_fds(keeper, [len(request).to_bytes(8, "big")], [null, write, null])
    keeper.sendall(request)
    for fd in (null, write):
        os.close(fd)
    with os.fdopen(read, "rb") as out:
        pid = int(out.readline())
    try:
        assert _alive(pid)
        ours.close()  # as if the harness died (its keeper's socket is still open here)
        assert dog.wait(timeout=30) == 0
        assert _ends(pid)
    finally:
        keeper.close()
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_where_the_kernel_gives_no_subreaper_what_stays_in_the_calls_session_still_ends(
    monkeypatch: pytest.MonkeyPatch, pidfiles: Callable[[str], Path]
) -> None:
    """The weaker guarantee (``PR_SET_CHILD_SUBREAPER`` refused): a call's orphans are found by
    its session, so an ``&`` child or a ``nohup`` one ends with the call."""
    refusing = (
        f"import sys; sys.path.insert(0, {str(Path(reaper.__file__).parent)!r}); "
        "import reaper; reaper.subreaper = lambda: False; reaper.main()"
    )
    monkeypatch.setattr(process, "WATCHDOG", Watchdog([sys.executable, "-I", "-S", "-c", refusing]))
    try:
        for escape in ("background", "nohup"):
            pidfile = pidfiles(escape)
            assert _run(_leaving(escape, pidfile)).returncode == 0
            assert _ends(_left(pidfile)), f"{escape}: outlived its call without a subreaper"
    finally:
        process.WATCHDOG.close()


# -- run_process itself ---------------------------------------------------------------------------


@pytest.mark.parametrize("cap", [3, 1 << 21])
def test_stream_cap_keeps_that_many_bytes(cap: int) -> None:
    argv = [sys.executable, "-c", "print('x' * 2_000_000, end='')"]
    done = asyncio.run(run_process(argv, stdin=b"", cwd="/", env={}, kill_grace=1, stream_cap=cap))
    assert len(done.stdout) == min(cap, 2_000_000)
    assert done.stdout_dropped == max(2_000_000 - cap, 0)


@pytest.mark.parametrize(
    ("script", "returncode"), [("exit 3", 3), ("kill -9 $$", -9), ("echo out; echo err >&2", 0)]
)
def test_exit_codes_signals_and_both_streams_are_read(script: str, returncode: int) -> None:
    done = _run(script)
    assert (done.returncode, done.stdout, done.stderr) == (
        returncode, "out\n" * (returncode == 0), "err\n" * (returncode == 0)
    )  # fmt: skip


def test_stdin_larger_than_a_pipe_holds_is_fed_whole() -> None:
    data = os.urandom(300_000)
    done = asyncio.run(run_process(["cat"], stdin=data, cwd="/", env=os.environ, kill_grace=1))
    assert done.stdout_bytes == data


@pytest.mark.parametrize(
    "holder",
    [
        "exec 3<&0; sleep 300 > /dev/null 2>&1 &",  # holds stdin, unread, with a write pending
        "sleep 300 &",  # holds stdout and stderr
    ],
)
def test_every_pipe_of_a_call_is_closed_as_it_returns_though_a_child_still_holds_one(
    holder: str,
) -> None:
    """Closed then, not a turn of the event loop later nor never: a transport still open when
    the loop ends is left to the garbage collector, which warns (an error under pytest). The
    child is kept by ``leftovers``, so it surely holds its pipe past the call."""
    leftovers = Leftovers()

    async def go() -> tuple[int, list[str]]:
        before = _open_pipes()
        done = await _call(f"{holder} exit 2", stdin=b"x" * 300_000, leftovers=leftovers)
        return done.returncode, sorted(_open_pipes() - before)

    try:
        returncode, left_open = asyncio.run(go())
        kept = len(leftovers)
    finally:
        leftovers.close()
    assert (returncode, kept) == (2, 1)
    assert left_open == []


def _open_pipes() -> set[str]:
    """The pipes this process has open, as ``/proc`` names them."""
    pipes = set()
    for fd in os.listdir("/proc/self/fd"):
        with suppress(OSError):  # the one listdir opened, closed by now
            if (target := os.readlink(f"/proc/self/fd/{fd}")).startswith("pipe:"):
                pipes.add(f"{fd} {target}")
    return pipes


@pytest.mark.parametrize(
    ("argv", "cwd", "named"),
    [
        (["no-such-program-here"], "/", "no-such-program-here"),
        (["true"], "/no/such/dir", "/no/such/dir"),
    ],
)
def test_a_command_that_cannot_start_is_an_os_error_naming_what(
    argv: list[str], cwd: str, named: str
) -> None:
    with pytest.raises(FileNotFoundError) as raised:
        asyncio.run(run_process(argv, stdin=b"", cwd=cwd, env=os.environ, kill_grace=1))
    assert raised.value.filename == named


def test_a_command_inherits_its_three_streams_and_the_descriptors_passed_and_no_other() -> None:
    """Not the keeper's socket to the harness above all: holding it, a command could speak for
    its keeper, or keep its end open after the keeper is gone."""
    read, write = os.pipe()
    moved = os.dup2(write, 17, inheritable=False)
    os.close(write)
    listing = "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"
    try:
        done = _run(f"exec {PY} -c {shlex.quote(listing)}", pass_fds=[17])
    finally:
        os.close(moved)
        os.close(read)
    listed = set(json.loads(done.stdout))
    assert {0, 1, 2, 17} <= listed
    assert len(listed - {0, 1, 2, 17}) == 1  # the one listdir opened, and no other


def test_a_keeper_done_with_a_call_runs_the_next_and_one_killed_meanwhile_is_replaced() -> None:
    async def go() -> list[str]:
        said = []
        for _ in range(2):
            said.append((await _call("echo $PPID $(pwd)", cwd="/tmp")).stdout.split()[0])
        os.kill(int(said[-1]), signal.SIGKILL)  # the keeper, waiting for its next call
        assert await asyncio.to_thread(_wait_for, lambda: not _alive(int(said[-1])))
        done = await _call("echo $PPID $(pwd)", cwd="/")
        return [*said, *done.stdout.split()]

    first, second, third, folder = asyncio.run(go())
    assert first == second != third
    assert folder == "/"


def test_inherited_descriptors_keep_their_numbers() -> None:
    read, write = os.pipe()
    number = _free_descriptor(above=100)  # never one this process uses (a keeper's socket)
    moved = os.dup2(write, number, inheritable=False)
    os.close(write)
    try:
        code = f"import os; os.write({number}, b'through\\n')"
        done = _run(f'{PY} -c "{code}"', pass_fds=[number])
        os.close(moved)
        assert done.returncode == 0
        assert os.read(read, 100) == b"through\n"
    finally:
        os.close(read)


def _free_descriptor(above: int) -> int:
    """The first descriptor number over ``above`` that this process has not open."""
    number = above
    while True:
        number += 1
        try:
            os.fstat(number)
        except OSError:
            return number


def _running(argv: list[str]) -> bool:
    """Whether a process runs with exactly this command line."""
    wanted = "\0".join(argv).encode() + b"\0"
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and Path(f"/proc/{name}/cmdline").read_bytes() == wanted:
                return _alive(int(name))
        except OSError:
            continue
    return False


@pytest.mark.parametrize("steps", range(8))
def test_a_call_cancelled_while_starting_ends_whole(tmp_path: Path, steps: int) -> None:
    """Cancelled at any point of its start (``steps`` turns of the event loop in), the call
    leaves nothing running: its ``sleep`` (known by a command line no other process has) ends."""
    sleep = ["sleep", f"{300 + steps}.{os.getpid()}"]

    async def go() -> None:
        task = asyncio.create_task(_call(f"{shlex.join(sleep)} & wait", cwd=str(tmp_path)))
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)  # a guard against a hang, not a timing claim

    asyncio.run(go())
    assert _wait_for(lambda: not _running(sleep))
