"""``hookline audit verify``: both chains, the notes under the key, and the file against the store.

What it checks, each a line of its own (exit 1 when any fails):

- each chain, record by record: every hash holds for its record and its place; a keyed record
  (format 2) is checked under the chain key here, and a plain one (format 1, written before keyed
  chains) may not follow a keyed one. A log that holds only plain records is said to be plain:
  whoever could write it could have rewritten it;
- the heads hookline keeps beside the key (``hookline.audit._heads``): the file's newest record
  and the newest copied to the store must both be in their chain at their place (a log cut or
  emptied, the note beside it deleted or replayed, is found), and their MACs must hold;
- the ``audit.stored`` note's MAC;
- a head given with ``--head`` (kept elsewhere) must be in both chains;
- the file against the store, record by record; the file's newest records not in the store yet
  are no difference unless a copy already took them. A store that several servers share (each
  with its own file: ``hookline serve`` on several hosts, one PostgreSQL) holds their records on
  its own chain, so there each of the file's records is looked for by its content instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookline._cli.render import echo, say
from hookline._support.display import shown
from hookline.audit import verify_jsonl, verify_rows
from hookline.audit._chain import Tally
from hookline.audit._heads import Noted, head_path, kept_head
from hookline.audit._keyed import chain_key, where_key
from hookline.audit._marks import (
    Mark,
    compare,
    compare_shared,
    marks_jsonl,
    missing_head,
    stored_note,
)

if TYPE_CHECKING:
    from hookline.audit import Problem
    from hookline.audit._heads import Which
    from hookline.storage import AuditRow, Store

PAGE = 10_000  # rows read at a time by verify
NOT_YET = "a run still writing, or one killed: `hookline audit` copies them"
Head = tuple[str, int | None]


def all_rows(
    store: Store, *, after: int | None = None, session_id: str | None = None
) -> Iterator[AuditRow]:
    while page := store.audit_rows(session_id=session_id, after_seq=after, limit=PAGE):
        yield from page
        after = page[-1].seq


def store_marks(store: Store) -> Iterator[Mark]:
    return (Mark(row.seq, row.hash) for row in all_rows(store))


class Verify:
    """One ``audit verify`` run: what it read, and whether anything failed."""

    def __init__(
        self,
        path: Path,
        store: Store | None,
        *,
        where_store: str,
        tell: Callable[[str, str], object] | None = None,
    ) -> None:
        self.path, self.store, self.where_store = path, store, where_store
        #: ``tell(kind, line)``: each finding, kind "failure" or "ok"; printed unless given.
        self.tell = tell or _printed
        self.key = chain_key(create=False)
        self.failed = False
        self._kept: dict[Which, Mark | None] = {}

    def fail(self, text: str) -> None:
        self.tell("failure", text)
        self.failed = True

    def note(self, text: str) -> None:
        self.tell("ok", text)

    def everything(self, head: Head | None, file_only: bool) -> None:
        """Every check ``audit verify`` makes of a log whose file is there."""
        store, copied = self.store, self.copied()
        both = store if store is not None and store.last_audit() is not None else None
        if store is not None and both is None and copied is None:
            self.note(f"store {self.where_store}: no records copied to it yet ({NOT_YET})")
        elif both is not None:
            self.verify_store(both, head)
        else:
            self.file_only(file_only)
        self.stores_copy(copied)
        self.verify_file(head)
        self.file_holds_its_head()
        if both is not None:
            self.compare(both, copied)

    def kept(self, which: Which) -> Mark | None:
        """The head hookline kept of this log (``which``), if its MAC holds; a failure said
        when it does not (once)."""
        if which not in self._kept:
            self._kept[which] = self._read_kept(which)
        return self._kept[which]

    def _read_kept(self, which: Which) -> Mark | None:
        found = kept_head(self.path, which, self.key) if self.key is not None else None
        if found is None:
            return None
        if found.forged is not None:
            self.fail(f"the head kept beside the key: TAMPERED: {shown(found.forged)}")
            return None
        return Mark(found.seq, found.hash)

    def missing_file(self) -> bool:
        """For a file that is not there: True (a failure said) when hookline wrote to it."""
        written = self.kept("file")
        if written is not None:
            self.fail(
                f"file {shown(self.path)}: RECORDS CUT: it is gone, but hookline wrote "
                f"{_records(written.seq)} to it ({_kept_at(self.path, 'file')})"
            )
        return self.failed

    def copied(self) -> Mark | None:
        """How far a copy took the file's records to the store: the head kept beside the key,
        else the note beside the file (each only if its MAC holds)."""
        note = stored_note(self.path, self.key)
        if note is not None and note.forged is not None:
            self.fail(f"note {shown(note_path(self.path))}: TAMPERED: {shown(note.forged)}")
        kept = self.kept("stored")
        if kept is not None:
            return kept
        return _mark(note) if note is not None and note.forged is None else None

    def stores_copy(self, copied: Mark | None) -> None:
        """The store holds the newest record a copy took to it (kept beside the key)."""
        kept = self.kept("stored")
        if kept is None or copied is None:
            return
        marks = store_marks(self.store) if self.store is not None else iter(())
        why = missing_head(marks, kept.hash, kept.seq)
        if why is not None:
            copy = f"hookline copied records through {kept.seq} to it"
            self.fail(
                f"store {self.where_store}: RECORDS CUT: {copy} "
                f"({_kept_at(self.path, 'stored')}); {shown(why)}"
            )

    def file_holds_its_head(self) -> None:
        kept = self.kept("file")
        if kept is None:
            if self.key is not None:
                self.note(
                    f"file {shown(self.path)}: no head of it is kept beside the key (written "
                    "before keyed chains, or moved here): a cut of its newest records is found "
                    "only by a head kept elsewhere (--head)"
                )
            return
        why = missing_head(marks_jsonl(self.path), kept.hash, kept.seq)
        if why is None:
            self.note(
                f"file {shown(self.path)}: the head hookline keeps beside the key is in the chain"
            )
        else:
            self.fail(
                f"file {shown(self.path)}: RECORDS CUT: {shown(why)} "
                f"({_kept_at(self.path, 'file')})"
            )

    def chain(self, what: str, count: int, problem: Problem | None, tally: Tally) -> None:
        """Say what was checked and the first problem."""
        if problem is None:
            self.note(f"{what}: {_records(count)}, chain intact{_formats(tally)}")
        elif problem.kind == "truncated":
            crash = f"{shown(problem)} (a crash artefact)"
            self.note(f"{what}: {_records(count)}, chain intact; {crash}")
        elif problem.kind == "unverifiable":
            self.fail(f"{what}: CANNOT VERIFY: {shown(problem)}")
        else:
            self.fail(f"{what}: TAMPERED: {shown(problem)}")

    def verify_store(self, store: Store, head: Head | None) -> None:
        counted, tally = _Counted(all_rows(store)), Tally()
        problem = verify_rows(counted, key=self.key, tally=tally)
        where = f"store {self.where_store}"
        self.chain(where, counted.count, problem, tally)
        self.report_head(where, store_marks(store), head)

    def verify_file(self, head: Head | None) -> None:
        tally = Tally()
        problem = verify_jsonl(self.path, key=self.key, tally=tally)
        where = f"file {shown(self.path)}"
        self.chain(where, _complete_lines(self.path), problem, tally)
        self.report_head(where, marks_jsonl(self.path), head)

    def report_head(self, where: str, marks: Iterator[Mark], head: Head | None) -> None:
        """Say whether the head kept elsewhere is still in the chain."""
        if head is None:
            return
        why = missing_head(marks, *head)
        if why is None:
            self.note(f"{where}: the kept head is in the chain")
        else:
            self.fail(f"{where}: RECORDS CUT: {shown(why)}")

    def compare(self, store: Store, copied: Mark | None) -> None:
        """The file against the store, record by record."""
        mismatch = compare(marks_jsonl(self.path), store_marks(store))
        if mismatch is None and self.failed:  # never read as all clear
            self.note(
                "file and store: the same records, seq by seq and hash by hash, so both hold "
                "what failed above"
            )
        elif mismatch is None:
            self.note("file and store: the same records, seq by seq and hash by hash")
        elif mismatch.behind and (copied is None or mismatch.seq > copied.seq):
            self.note(
                f"file and store: the same records through {mismatch.seq - 1}; the file's newer "
                f"ones are not copied to the store yet ({NOT_YET})"
            )
        elif not self.shared(store, copied):
            self.fail(f"file and store DIFFER: {shown(mismatch)}")

    def shared(self, store: Store, copied: Mark | None) -> bool:
        """Whether the store is one other servers share and it holds each of the file's
        records (compared by content: there they are on the store's own chain), but for the
        newest, which no copy took yet; said if so."""
        found = compare_shared(self.path, all_rows(store))
        if not (found.moved or (found.others and found.missing is None)):
            return False  # a store of this file alone, which lacks or changed some of it
        shared = "the store is shared with other servers' files, and holds"
        if found.missing is None:
            self.note(f"file and store: {shared} each of the file's records "
                 "(compared by content, on the store's own chain)")  # fmt: skip
            return True
        if found.only_newest and (copied is None or found.missing > copied.seq):
            self.note(f"file and store: {shared} the file's records before {found.missing}; the "
                 f"newer ones are not copied to the store yet ({NOT_YET})")  # fmt: skip
            return True
        self.fail(
            f"file and store DIFFER: the store is shared with other servers' files, and record "
            f"{found.missing} of the file is not in it (compared by content)"
        )
        return True

    def file_only(self, asked: bool) -> None:
        """Verify the file alone when asked to; else a store without the file's records is the
        first difference (its rows may have been cut, all of them)."""
        held = "holds no audit records" if self.store is not None else "does not exist"
        if asked:
            alone = "the file is verified alone (file-only mode)"
            self.note(f"store {self.where_store}: {held}; {alone}")
            return
        why = f"store {self.where_store} {held}, but the file has records"
        fix = "if the audit was written without a store: audit verify --file-only"
        self.fail(f"file and store DIFFER: {why} ({fix})")


def _printed(kind: str, text: str) -> None:
    if kind == "failure":
        say("failure", text)
    else:
        echo(text)


def note_path(path: Path) -> Path:
    return path.with_suffix(".stored")


def _mark(noted: Noted) -> Mark:
    return Mark(noted.seq, noted.hash)


def _kept_at(path: Path, which: Which) -> str:
    return f"as the head kept at {shown(head_path(path, which))} says"


def _formats(tally: Tally) -> str:
    if tally.plain and tally.keyed:
        first = f"the first {tally.plain} plain sha256, from before keyed chains"
        return f" ({tally.keyed} keyed; {first})"
    if tally.plain:
        return (
            " (plain sha256, written before keyed chains: whoever could write it could have "
            "rewritten it)"
        )
    if tally.keyed:
        return f" (keyed: HMAC-SHA256 under the key at {shown(where_key())})"
    return ""


class _Counted:
    """Passes rows through, counting them."""

    def __init__(self, rows: Iterable[AuditRow]) -> None:
        self.rows, self.count = rows, 0

    def __iter__(self) -> Iterator[AuditRow]:
        for row in self.rows:
            self.count += 1
            yield row


def _complete_lines(path: Path) -> int:
    with open(path, "rb") as file:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: file.read(1 << 20), b""))


def _records(count: int) -> str:
    return f"{count} record" + ("" if count == 1 else "s")


def where_of(store: Any, fallback: object) -> str:
    return shown(getattr(store, "where", None) or fallback)
