"""Inside the sandbox: listen on 127.0.0.1:PORT, pass each connection to the proxy's socket,
and run the command; exit as it exits.

    python -I -S forward.py SOCKET PORT -- COMMAND [ARG...]

Run by path, with only the interpreter's built-in modules (``_socket``, ``_thread``, ``os``):
it starts in about half the time ``import socket, threading, subprocess`` takes, and without
importing hookline. The sandbox has its own network namespace, so the port is free and only
the command and its children can reach it. A command killed by signal N makes this exit
128 + N. Nothing signals this process but the command: a timeout or the harness's death ends
the whole sandbox (bwrap's pid namespace).
"""

from __future__ import annotations

import _socket
import _thread
import os
import sys

_CHUNK = 65536


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        print("usage: forward.py SOCKET PORT -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    path, port, command = argv[1], int(argv[2]), argv[4:]
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    pid = os.fork()
    if pid == 0:
        _exec(command)
    _thread.start_new_thread(_serve, (listener, path))
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


def _serve(listener: _socket.socket, path: str) -> None:
    while True:
        fd, _ = listener._accept()  # type: ignore[attr-defined]  # not in typeshed
        _thread.start_new_thread(_forward, (_socket.socket(fileno=fd), path))


def _forward(client: _socket.socket, path: str) -> None:
    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    done = _thread.allocate_lock()
    done.acquire()
    _thread.start_new_thread(_copy, (upstream, client, done))
    _copy(client, upstream, None)
    done.acquire()  # the other direction has ended too
    client.close()
    upstream.close()


def _copy(source: _socket.socket, target: _socket.socket, done: _thread.LockType | None) -> None:
    try:
        while data := source.recv(_CHUNK):
            target.sendall(data)
    except OSError:
        pass
    try:  # noqa: SIM105 (contextlib would add to the start-up time)
        target.shutdown(_socket.SHUT_WR)
    except OSError:
        pass
    if done is not None:
        done.release()


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))
