"""The sandbox's seccomp filter: no Unix socket can be made inside, built with libseccomp.

As Claude Code's Linux sandbox does, ``socket(AF_UNIX, ...)`` fails with ``EPERM`` inside the
sandbox, so a command cannot reach a host socket (docker's, D-Bus's, an agent's) by its path;
``io_uring_setup`` fails too, since an io_uring can make and connect sockets without the
``socket`` call. ``socketpair`` stays allowed: the pair it makes is connected to itself and
reaches nothing. Abstract sockets are the network namespace's own, so none of the host's is
reachable anyway. The domain is compared on its low 32 bits, as the kernel reads it (a domain of
``0x1_0000_0001`` is ``AF_UNIX`` to the kernel). A call made in another architecture's
convention (32-bit ``int 0x80``, x32) kills the caller: libseccomp's default for a foreign
architecture.

The filter is built by libseccomp (``libseccomp.so.2``, Debian's ``libseccomp2``) through
ctypes, exported as a BPF program once per process, and handed to bwrap (``--seccomp FD``) as a
memory file per command. Where libseccomp cannot be loaded, ``unavailable`` says why and the
sandbox does not start: it never runs without the filter.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import socket
from functools import lru_cache
from typing import Final

INSTALL_HINT: Final = "apt-get install libseccomp2"
#: Where to find libseccomp when not in the usual place: this variable, else the loader's search.
LIBRARY_ENV: Final = "HOOKLINE_LIBSECCOMP"
_LIBRARY: Final = "libseccomp.so.2"
_ACT_ALLOW: Final = 0x7FFF0000
_ACT_ERRNO: Final = 0x00050000
_CMP_MASKED_EQ: Final = 7
_LOW_32: Final = 0xFFFFFFFF


class SeccompError(Exception):
    """libseccomp is missing or refused the filter; the message says which, with the fix."""


class _ArgCmp(ctypes.Structure):
    """``struct scmp_arg_cmp``: which argument, how to compare, and with what."""

    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def unavailable() -> str | None:
    """Why the filter cannot be built here, with the fix; None when it can."""
    try:
        program()
    except SeccompError as exc:
        return str(exc)
    return None


def program() -> bytes:
    """The BPF program (``struct sock_filter`` array) that blocks Unix sockets and io_uring,
    built once per library (``$HOOKLINE_LIBSECCOMP``, else the loader finds it)."""
    return _program(os.environ.get(LIBRARY_ENV) or _found())


@lru_cache(maxsize=1)
def _found() -> str:
    """The library's name as the loader finds it (looked up once: it runs ``ldconfig``)."""
    return ctypes.util.find_library("seccomp") or _LIBRARY


@lru_cache(maxsize=4)
def _program(name: str) -> bytes:
    lib = _library(name)
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompError(f"libseccomp could not start a filter; reinstall it: {INSTALL_HINT}")
    try:
        deny = _ACT_ERRNO | errno.EPERM
        unix = _ArgCmp(0, _CMP_MASKED_EQ, _LOW_32, socket.AF_UNIX)
        _add(lib, ctx, deny, "socket", (unix,))
        _add(lib, ctx, deny, "io_uring_setup", ())
        return _export(lib, ctx)
    finally:
        lib.seccomp_release(ctx)


def memfd() -> int:
    """A new memory file holding ``program()``, at offset 0, for bwrap's ``--seccomp``; the
    caller passes it to bwrap and closes it."""
    data = program()
    fd = os.memfd_create("hookline-seccomp")
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def _library(name: str) -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as exc:
        why = f"libseccomp cannot be loaded ({exc})"
        raise SeccompError(f"{why}; install it: {INSTALL_HINT}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


def _add(lib: ctypes.CDLL, ctx: int, action: int, name: str, compare: tuple[_ArgCmp, ...]) -> None:
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:
        raise SeccompError(f"libseccomp does not know the {name} call; update: {INSTALL_HINT}")
    array = (_ArgCmp * len(compare))(*compare) if compare else None
    code = lib.seccomp_rule_add_array(ctx, action, number, len(compare), array)
    if code != 0:
        why = os.strerror(-code)
        raise SeccompError(f"libseccomp refused the rule on {name} ({why}); {INSTALL_HINT}")


def _export(lib: ctypes.CDLL, ctx: int) -> bytes:
    fd = os.memfd_create("hookline-seccomp-export")
    try:
        code = lib.seccomp_export_bpf(ctx, fd)
        if code != 0:
            raise SeccompError(f"libseccomp could not export the filter ({os.strerror(-code)})")
        size = os.lseek(fd, 0, os.SEEK_END)
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, size)
    finally:
        os.close(fd)
    if not data or len(data) % 8:
        raise SeccompError("libseccomp exported no usable filter; reinstall it: " + INSTALL_HINT)
    return data
