"""Writing audit records: queued, appended to a JSONL file, then copied to a store in groups.

The file is written ahead: one flush is one ``write(2)`` of whole lines under the file's lock,
and a record is acknowledged once it is there (in the operating system's page cache, which a
killed process does not lose: the guarantee SQLite's WAL mode gives a commit). The store gets
the same rows (same seq, same hash) in groups: when 256 records wait or a second has passed
since the oldest, and whenever the log is told to (a run that ends or pauses, a checkpoint,
closing). A copy takes every record of the file after the store's newest one, checked link by
link, so the records of other processes sharing the file, or those a killed process left, go
to the store in the file's order. A store that does not follow the file (one shared by writers
of other files) is appended to on its own chain instead. Without a file, each flush is one
store transaction; without a store, the file is all. A failed write raises ``AuditError``:
records the file did not take wait for the next flush; those it took wait for the next copy.
The write ahead of a tool body (``write_ahead``) never copies: once the file says a call
started, a store in trouble does not keep it from running; the copy after it fails instead, and
stops the run. With ``sync``, that write is also ``fsync``'d before the body starts, so what let
a call run survives a power cut or kernel crash, not only a killed process; an fsync that fails
fails the write. Group commit (``max_delay``) lets records wait a little before the file too.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from hookline._errors import ConfigError, HooklineError
from hookline.audit._chain import AuditError, encoded, keyed_link, store_chain
from hookline.audit._chained_file import ChainedFile
from hookline.audit._keyed import chain_key
from hookline.audit._marks import Mark
from hookline.audit._redact import Redactor
from hookline.storage._base import AuditEntry, AuditRow, placed

if TYPE_CHECKING:
    from hookline.storage._base import Store

JSONL_NAME = "audit.jsonl"
#: Group commit writes at the latest when this many records wait.
_GROUP_LIMIT = 256
#: A copy to the store is due once this many records wait: small, as the writer waits for it
#: (a server's hook calls behind it too), and a copy of 32 takes a fraction of a millisecond.
_COPY_LIMIT = 32
#: A copy to the store is due once its oldest record has waited this many seconds.
COPY_DELAY = 1.0


class Flushed(NamedTuple):
    """What one flush wrote: how many records, and the last seq in the store and the file
    (None for a copy that did not write there this time)."""

    records: int
    store_seq: int | None
    file_seq: int | None


class AuditWriter:
    """Writes audit records to a JSONL file and copies them to a store."""

    def __init__(
        self,
        store: Store | Callable[[], Store] | None,
        *,
        jsonl_path: str | Path | None,
        redactor: Redactor | None = None,
        user: str | None = None,
        tenant: str | None = None,
        max_delay: float = 0.0,
        sync: bool = False,
        key: bytes | None = None,
    ) -> None:
        if store is None and jsonl_path is None:
            raise ConfigError(
                "an audit log needs somewhere to write", key="store", fix="give a store or a path"
            )
        #: The store, or a function giving the current one (an agent reopens its store).
        self.store_of: Callable[[], Store | None] = store if callable(store) else lambda: store
        self.file = ChainedFile(jsonl_path, key=key) if jsonl_path is not None else None
        self._key = key  # the chain key: the per-user one unless given, loaded on first use
        self.redactor = redactor if redactor is not None else Redactor()
        self.user, self.tenant = user, tenant
        self._pending: list[AuditEntry] = []
        self._uncopied: list[tuple[AuditRow, str]] = []  # in the file, not yet in the store
        self._copy_since = 0.0
        self._apart: Store | None = None  # a store that follows other files than this one
        self._opened = 0  # which opening of the file the records waiting for a copy went to
        self._lock = threading.RLock()
        self._owns_store = False
        #: Group commit: records may wait up to this many seconds (or 256 records) before they
        #: are written, so one write serves many calls. 0: written at the end of each call.
        #: A record is acknowledged once written: a crash loses at most this window.
        self.max_delay = max_delay
        self._timer: asyncio.TimerHandle | None = None  # writes what waits when the delay is up
        self._timer_loop: asyncio.AbstractEventLoop | None = None  # the loop it is armed on
        self._oldest = 0.0
        #: The write ahead of a tool body is on disk (fsync) before the body starts.
        self.sync = sync

    @classmethod
    def open(cls, state_dir: str | Path, *, store: str | None = None, **options: Any) -> Self:
        """The store at ``store`` (a URL or path; SQLite in ``state_dir`` by default) and
        ``<state_dir>/audit.jsonl``; ``close`` closes the store too. ``options``: redactor,
        user, tenant."""
        from hookline.storage import open_store

        folder = Path(state_dir)
        log = cls(open_store(store, state_dir=folder), jsonl_path=folder / JSONL_NAME, **options)
        log._owns_store = True
        return log

    def add(self, entry: AuditEntry) -> None:
        """Queue a record (already redacted) for the next flush."""
        entry = _valid_columns(entry)
        with self._lock:
            if not self._pending:
                self._oldest = monotonic()
                if self.max_delay > 0:
                    self._arm()
            self._pending.append(entry)

    def _arm(self) -> None:
        """Group commit's bound: the records queued now are written once the delay is up, even
        when nothing else writes by then (a long model call). On the running event loop, where
        records are added; elsewhere the next write takes them. A timer armed for earlier
        records on this loop stays armed through their write (re-arming it on every call
        cost more than the rest of the queueing): it fires no later than these records'
        delay, and writes whatever waits then."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._timer is None or self._timer_loop is not loop:  # a loop that ended, or none
            self._timer, self._timer_loop = loop.call_later(self.max_delay, self._due), loop

    def _due(self) -> None:
        self._timer = None
        with suppress(AuditError):  # they stay queued, and the next write raises into the run
            self.flush()

    def settle(self) -> None:
        """Write now, unless group commit lets the queued records wait a little longer."""
        if not self._pending:
            return
        waited = monotonic() - self._oldest
        if waited >= self.max_delay or len(self._pending) >= _GROUP_LIMIT:
            self.flush()

    def write_ahead(self) -> Flushed | None:
        """The write a tool body waits for: what is queued, to the file, not copied to the
        store now (once the file says a call started, the store's trouble must not stop it),
        and on disk first if ``sync``."""
        return self.flush(copy=False, sync=self.sync)

    def flush(self, *, copy: bool | None = None, sync: bool = False) -> Flushed | None:
        """Write the queued records: one append to the file (or, without one, one store
        transaction). ``copy``: True, copy what waits to the store now; None, when a copy is
        due; False, not now. ``sync``: the file's append is fsync'd before this returns."""
        with self._lock:
            entries, self._pending = self._pending, []
            if not entries and not (copy and self._uncopied):
                return None
            try:
                if self.file is None:
                    return self._to_store(entries)
                return self._to_file(self.file, entries, copy, sync)
            except Exception as exc:
                if isinstance(exc, HooklineError):
                    raise
                raise AuditError(f"the audit log could not be written: {exc}") from exc

    def _to_store(self, entries: list[AuditEntry]) -> Flushed:
        store = self.store_of()
        if store is None:
            return Flushed(len(entries), None, None)
        try:
            made = [encoded(entry) for entry in entries]
            chain = store_chain(entries, made, self.signing_key())
            rows = store.append_audit(entries, chain, [each.text for each in made])
        except BaseException:
            self._pending[:0] = entries
            raise
        return Flushed(len(entries), rows[-1].seq if rows else None, None)

    def _to_file(
        self, file: ChainedFile, entries: list[AuditEntry], copy: bool | None, sync: bool
    ) -> Flushed:
        store = self.store_of()
        try:  # the store's text of each record's data: one it would refuse is refused here
            made = [encoded(entry) for entry in entries]
            links = []
            if entries:
                with file.locked():
                    if store is not None and self._uncopied and file.opened != self._opened:
                        self._copy(file, store)  # what waits went to a file since let go
                    links = file.append(made, sync=sync)
                    self._opened = file.opened
        except BaseException:
            self._pending[:0] = entries
            raise
        file_seq = links[-1].seq if links else None
        if store is None:
            return Flushed(len(entries), None, file_seq)
        if not self._uncopied:
            self._copy_since = monotonic()
        rows = (placed(entry, *at) for at, entry in zip(links, entries, strict=True))
        self._uncopied += zip(rows, (each.text for each in made), strict=True)
        due = len(self._uncopied) >= _COPY_LIMIT or monotonic() - self._copy_since >= COPY_DELAY
        if not (copy or (due and copy is None)):
            return Flushed(len(entries), None, file_seq)
        with file.locked():
            last = self._copy(file, store)
        return Flushed(len(entries), last, file_seq)

    def _copy(self, file: ChainedFile, store: Store) -> int | None:
        """Copy what waits to the store (under the file's lock); the last seq copied."""
        rows = [row for row, _ in self._uncopied]
        texts = [text for _, text in self._uncopied]
        if self._apart is store or not (
            store.copy_audit(rows, texts)
            or copy_ahead(file, store) is not None  # others' records came first: the file's
        ):
            self._apart = store  # it follows other files: ours go on its own chain
            entries = [row.entry for row in rows]
            rows = store.append_audit(entries, keyed_link(file.signing_key()), texts)
        elif rows:
            file.stored(Mark(rows[-1].seq, rows[-1].hash))
        self._uncopied = []
        return rows[-1].seq if rows else None

    def signing_key(self) -> bytes:
        """The chain key records are hashed with (the per-user one unless one was given)."""
        if self.file is not None:
            return self.file.signing_key()
        if self._key is None:
            self._key = chain_key(create=True)
        assert self._key is not None  # made when missing
        return self._key

    def release(self) -> None:
        """Flush and copy, then let the file go (the next write reopens it); the store stays
        open."""
        with self._lock:
            try:
                self.flush(copy=True)
            finally:
                if self._timer is not None:  # nothing waits for it now
                    self._timer.cancel()
                    self._timer = self._timer_loop = None
                if self.file is not None:
                    self.file.close()

    def close(self) -> None:
        """Flush, then release the file (and the store, if ``open`` opened it)."""
        with self._lock:
            try:
                self.release()
            finally:
                store = self.store_of() if self._owns_store else None
                if store is not None:
                    store.close()
                    self.store_of = lambda: None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def copy_ahead(file: ChainedFile, store: Store) -> int | None:
    """Under the file's lock: copy to the store every record of the file after the store's
    newest (checked link by link); how many, or None when the store's newest is not in the
    file (the store follows another file, or the file was replaced)."""
    last = store.last_audit()
    head = Mark(last.seq, last.hash) if last is not None else None
    batches = file.rows_after(head)
    if batches is None:
        return None
    copied = 0
    for rows in batches:  # a transaction each: a long stretch goes in steps, each kept
        if not store.copy_audit(rows):
            return None  # a writer of another file came first
        head, copied = Mark(rows[-1].seq, rows[-1].hash), copied + len(rows)
        file.stored(head)
    if head is not None and not copied:
        file.stored(head)  # a store filled before copies were noted
    return copied


def catch_up(path: str | Path, store: Store) -> int | None:
    """Copy to ``store`` what the audit file at ``path`` has after the store's newest record
    (a run still writing, or one killed before its copy); how many records, or None when the
    store follows another file. AuditError if a record in that stretch was edited."""
    file = ChainedFile(path)
    try:
        with file.locked():
            return copy_ahead(file, store)
    finally:
        file.close()


#: The text columns of a record, and the lone surrogates none of them can hold.
_COLUMNS = ("kind", "session_id", "tool_use_id", "event", "tool", "decision", "permission")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_columns(entry: AuditEntry) -> AuditEntry:
    """``entry`` with each lone surrogate in a text column (a tool_use_id or tool name a model
    made up) replaced by U+FFFD: a database column holds UTF-8, which cannot hold it. ``data``
    keeps it exactly, as a ``\\u`` escape in its JSON."""
    bad: dict[str, Any] = {
        name: _SURROGATE.sub("\ufffd", value)
        for name in _COLUMNS
        if isinstance(value := getattr(entry, name), str)
        and not value.isascii()
        and _SURROGATE.search(value)
    }
    return replace(entry, **bad) if bad else entry
