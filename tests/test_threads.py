"""``in_thread`` and its worker threads: calls reuse an idle thread, a busy one never holds up
another call, idle threads end, and a hung body neither blocks the loop nor keeps the process
alive."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from hookline._support.threads import Workers, in_thread


def test_sequential_calls_reuse_one_thread() -> None:
    async def main() -> set[int]:
        return {await in_thread(threading.get_ident) for _ in range(20)}

    idents = asyncio.run(main())
    assert threading.get_ident() not in idents
    assert len(idents) <= 3  # a thread is idle again soon after its call settles


def test_a_busy_thread_never_holds_up_another_call() -> None:
    """The first call blocks until the second has run: with one shared thread it never would."""
    release = threading.Event()

    def first() -> str:
        assert release.wait(10), "the second call never ran"
        return "first"

    def second() -> str:
        release.set()
        return "second"

    async def main() -> list[str]:
        return list(await asyncio.gather(in_thread(first), in_thread(second)))

    assert asyncio.run(main()) == ["first", "second"]


def test_what_the_body_raises_is_raised_to_the_caller_and_the_thread_serves_on() -> None:
    def boom() -> None:
        raise SystemExit(3)

    async def main() -> int:
        with pytest.raises(SystemExit):
            await in_thread(boom)
        return await in_thread(lambda: 7)

    assert asyncio.run(main()) == 7


def test_an_idle_worker_ends_and_a_new_call_starts_another() -> None:
    workers = Workers(idle_seconds=0.01)
    ran = threading.Event()
    threads: list[threading.Thread] = []
    workers.submit(lambda: (threads.append(threading.current_thread()), ran.set()))
    assert ran.wait(10)
    threads[0].join(10)  # it ends on its own once idle
    assert not threads[0].is_alive()
    again = threading.Event()
    workers.submit(again.set)
    assert again.wait(10)


def test_forget_drops_idle_threads_so_a_forked_child_starts_its_own() -> None:
    workers = Workers()
    done = threading.Event()
    workers.submit(done.set)
    assert done.wait(10)
    workers.forget()
    assert workers._idle == []
    after = threading.Event()
    workers.submit(after.set)
    assert after.wait(10)


def test_a_hung_body_does_not_keep_the_process_alive() -> None:
    """The timeout gives up on the call; the interpreter then exits with the thread blocked."""
    code = (
        "import asyncio, threading\n"
        "from hookline._support.threads import in_thread\n"
        "async def main():\n"
        "    try:\n"
        "        await asyncio.wait_for(in_thread(threading.Event().wait), 0.05)\n"
        "    except TimeoutError:\n"
        "        print('timed out')\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "timed out\n"
