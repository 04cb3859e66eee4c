"""Writing audit records: queued, then written in one go to a store and a JSONL file.

One flush is one store transaction and one ``write(2)`` to the file, under the file's lock, so
several processes can share both; each copy keeps its own hash chain (``hookline.audit.chain``).
Group commit (``max_delay``) lets records wait a little, so one write serves many calls; a
record is acknowledged once the flush that wrote it has returned. A failed write raises
``AuditError`` and keeps the records for the next flush (those already in the store go to the
file only).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from hookline.audit.chain import AuditError, ChainedFile, canonical, store_chain
from hookline.audit.redact import Redactor
from hookline.errors import ConfigError, HooklineError
from hookline.storage.base import AuditEntry, AuditRow

if TYPE_CHECKING:
    from hookline.storage.base import Store

JSONL_NAME = "audit.jsonl"
#: Group commit writes at the latest when this many records wait.
_GROUP_LIMIT = 256


class Flushed(NamedTuple):
    """What one flush wrote: how many records, and the last seq in the store and the file."""

    records: int
    store_seq: int | None
    file_seq: int | None


class AuditWriter:
    """Writes audit records to a store and a JSONL file, each with its own hash chain."""

    def __init__(
        self,
        store: Store | Callable[[], Store] | None,
        *,
        jsonl_path: str | Path | None,
        redactor: Redactor | None = None,
        user: str | None = None,
        tenant: str | None = None,
        max_delay: float = 0.0,
    ) -> None:
        if store is None and jsonl_path is None:
            raise ConfigError(
                "an audit log needs somewhere to write", key="store", fix="give a store or a path"
            )
        #: The store, or a function giving the current one (an agent reopens its store).
        self.store_of: Callable[[], Store | None] = store if callable(store) else lambda: store
        self.file = ChainedFile(jsonl_path) if jsonl_path is not None else None
        self.redactor = redactor if redactor is not None else Redactor()
        self.user, self.tenant = user, tenant
        self._pending: list[AuditEntry] = []
        self._unfiled: list[bytes] = []  # in the store, not yet in the file (a write failed)
        self._lock = threading.RLock()
        self._owns_store = False
        #: Group commit: records may wait up to this many seconds (or 256 records) before they
        #: are written, so one transaction serves many calls. 0: written at the end of each call.
        #: A record is acknowledged once written: a crash loses at most this window.
        self.max_delay = max_delay
        self._oldest = 0.0

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
            self._pending.append(entry)

    def settle(self) -> None:
        """Write now, unless group commit lets the queued records wait a little longer."""
        if not self._pending:
            return
        waited = monotonic() - self._oldest
        if waited >= self.max_delay or len(self._pending) >= _GROUP_LIMIT:
            self.flush()

    def flush(self) -> Flushed | None:
        """Write the queued records: one store transaction, one append to the file."""
        with self._lock:
            entries, self._pending = self._pending, []
            if not entries and not self._unfiled:
                return None
            bodies = [canonical(entry) for entry in entries]
            rows: list[AuditRow] = []
            stored, file_seq = False, None
            try:
                with self.file.locked() if self.file else nullcontext():
                    store = self.store_of() if entries else None
                    if store is not None:
                        rows = store.append_audit(entries, store_chain(entries, bodies))
                        stored = True
                    if self.file is not None:
                        known = rows if not self._unfiled else []
                        file_seq = self.file.append([*self._unfiled, *bodies], known)
                        self._unfiled = []
            except Exception as exc:
                if stored:
                    self._unfiled += bodies
                else:
                    self._pending[:0] = entries
                if isinstance(exc, HooklineError):
                    raise
                raise AuditError(f"the audit log could not be written: {exc}") from exc
            return Flushed(len(entries), rows[-1].seq if rows else None, file_seq)

    def release(self) -> None:
        """Flush, then let the file go (the next write reopens it); the store stays open."""
        with self._lock:
            try:
                self.flush()
            finally:
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
