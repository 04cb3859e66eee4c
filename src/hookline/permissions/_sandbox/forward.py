"""Inside the sandbox: listen on 127.0.0.1:PORT, hand each connection to the proxy on the host
over an inherited socket, and run the command; exit as it exits.

    python -I -S forward.py FD PORT -- COMMAND [ARG...]

``FD`` is one end of a socket pair the harness made before the sandbox started (no Unix socket
can be made inside: ``seccomp``). Each accepted connection is passed whole to the host over it
(``SCM_RIGHTS``), where the proxy serves it; nothing is copied here. The descriptor is closed
before the command runs, so the command cannot use it. Run by path, with only the interpreter's
built-in modules (``_socket``, ``_thread``, ``os``): it starts in about half the time
``import socket, threading, subprocess`` takes, and without importing hookline. The sandbox has
its own network namespace, so the port is free and only the command and its children can reach
it. A command killed by signal N makes this exit 128 + N. Nothing signals this process but the
command: a timeout or the harness's death ends the whole sandbox (bwrap's pid namespace).
"""

from __future__ import annotations

import _socket
import _thread
import os
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--" or not argv[1].isdigit():
        print("usage: forward.py FD PORT -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    channel, port, command = int(argv[1]), int(argv[2]), argv[4:]
    os.set_inheritable(channel, False)
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    pid = os.fork()
    if pid == 0:
        _exec(command)
    _thread.start_new_thread(_serve, (listener, channel))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _exec(command: list[str]) -> None:
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(
            f"hookline sandbox forwarder: cannot run {command[0]}: {exc.strerror}", file=sys.stderr
        )
    os._exit(127)


def _serve(listener: _socket.socket, channel: int) -> None:
    host = _socket.socket(fileno=channel)
    while True:
        fd, _ = listener._accept()  # type: ignore[attr-defined]  # not in typeshed
        try:
            rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fd.to_bytes(4, sys.byteorder))]
            host.sendmsg([b"c"], rights)
        except OSError:  # the harness is gone: nobody to serve
            return
        finally:
            os.close(fd)


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))
