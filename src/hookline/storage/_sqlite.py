"""The default store: one SQLite file in the project's state folder, no server.

Durability. The database runs in WAL mode with ``synchronous=NORMAL``. A commit appends the
transaction's pages to the ``-wal`` file with write(2), the last frame marked as the commit;
NORMAL skips the fsync there (SQLite syncs the WAL only at checkpoints). Once write(2) has
returned, the bytes are in the operating system's page cache, which outlives the process,
SIGKILL included: the next connection rebuilds its index from the WAL and keeps exactly the
transactions whose commit frame is there and checksums right, so a torn tail is ignored. Hence
a process crash loses no commit that returned and never shows half of one. Only an OS crash
or a power loss can lose the last commits since the previous checkpoint, and then whole ones:
the database stays consistent. ``synchronous=FULL`` would fsync on every commit, which costs
more than the whole audit budget of a tool call.

Concurrency. SQLite has one writer at a time. Every writing transaction starts with ``BEGIN
IMMEDIATE`` (the write lock up front, so two writers never deadlock upgrading a read lock), and
``busy_timeout`` makes a process that finds the lock taken wait for it instead of failing.
Readers do not block the writer, nor it them.

Checkpoints. SQLite moves the WAL into the database file (a checkpoint, which syncs the disk)
from within whichever commit finds the WAL long, by default: that commit then takes several
milliseconds. A server, whose hook calls wait on its commits, moves them to a thread of their
own (``SqliteStore.checkpoints_apart``): the store's connection no longer checkpoints, and the
thread does, every ``CHECKPOINT_EVERY`` seconds, without blocking the writer.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from hookline._errors import ConfigError
from hookline._support.private import touch_private
from hookline.storage._sql import Cursor, LockKind, SqlStore, migrations

#: How long a transaction waits for another process's write lock before it fails.
BUSY_TIMEOUT_SECONDS = 30.0

#: Seconds between the checkpoints of a store that checkpoints apart.
CHECKPOINT_EVERY = 1.0
#: SQLite's own default: a commit that finds this many pages in the WAL checkpoints.
_AUTOCHECKPOINT_PAGES = 1000

#: The statements that bring the tables from one schema version to the next. ``seq`` is an
#: INTEGER PRIMARY KEY, so SQLite keeps it as the rowid.
MIGRATIONS: Final = migrations(real="REAL", seq="INTEGER", state="TEXT", data="TEXT")


class SqliteStore(SqlStore):
    """A store in one SQLite file; many processes may open the same file at once."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        conn = _connect(self.path)
        try:
            super().__init__(conn, where=str(self.path), tables=MIGRATIONS)
        except sqlite3.Error as exc:
            conn.close()
            raise _cannot_open(self.path, exc) from exc
        except BaseException:
            conn.close()
            raise

    def _begin(self, cur: Cursor, lock: LockKind) -> None:
        cur.execute("BEGIN" if lock == "read" else "BEGIN IMMEDIATE")

    @contextmanager
    def checkpoints_apart(self, every: float = CHECKPOINT_EVERY) -> Iterator[Checkpointer]:
        """While the block runs, this store's connection never checkpoints; a thread with a
        connection of its own does, every ``every`` seconds (and once more at the end)."""
        thread = Checkpointer(self.path, every)
        self._autocheckpoint(0)
        thread.start()
        try:
            yield thread
        finally:
            thread.stop()
            self._autocheckpoint(_AUTOCHECKPOINT_PAGES)

    def _autocheckpoint(self, pages: int) -> None:
        with self._mutex:
            cur = self._conn.cursor()
            try:
                cur.execute(f"PRAGMA wal_autocheckpoint = {pages}")
            finally:
                cur.close()

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"


class Checkpointer(threading.Thread):
    """Checkpoints a SQLite file in the PASSIVE mode (what no reader still needs, without
    waiting for anyone) every ``every`` seconds until stopped. ``last``: what the last one
    did, as SQLite says it (busy, frames in the WAL, frames checkpointed)."""

    def __init__(self, path: Path, every: float) -> None:
        super().__init__(name=f"checkpoints {path.name}", daemon=True)
        self.path, self.every = path, every
        self.last: tuple[int, int, int] | None = None
        #: Set after each checkpoint (cleared by whoever waits for the next one).
        self.done = threading.Event()
        self._stopping = threading.Event()

    def run(self) -> None:
        conn = _connect(self.path)
        try:
            while not self._stopping.wait(self.every):
                self._checkpoint(conn)
            self._checkpoint(conn)
        finally:
            conn.close()

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error:  # the next one tries again; a commit never depends on it
            return
        self.last = (int(row[0]), int(row[1]), int(row[2]))
        self.done.set()


def _connect(path: Path) -> sqlite3.Connection:
    """An autocommit connection (transactions are explicit) in WAL mode."""
    try:
        if str(path) != ":memory:":
            touch_private(path)  # 0600 before SQLite opens it; its -wal and -shm copy the mode
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as exc:
        raise _cannot_open(path, exc) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        mode = _wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as exc:
        conn.close()
        raise _cannot_open(path, exc) from exc
    if mode != "wal" and str(path) != ":memory:":
        conn.close()
        raise _cannot_open(path, f"the file system refused WAL mode (got {mode!r})")
    return conn


def _wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL mode; the mode the file is in after. Processes that open a new file at
    once race to switch it, and SQLite answers "database is locked" at once to the one whose
    wait could deadlock (its busy timeout does not apply), so that one tries again, until
    ``BUSY_TIMEOUT_SECONDS``."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _cannot_open(path: Path, reason: object) -> ConfigError:
    return ConfigError(
        f"cannot open the SQLite store: {reason}",
        file=str(path),
        fix="point the store at a writable SQLite file (or a new path), or at a postgresql:// URL",
    )
