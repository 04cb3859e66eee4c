"""The audit log: what every hook, tool call and approval did, redacted and hash-chained.

AuditLog      an observer of agents: what they do, as records (``log``), buffered, written to a
              JSONL file and copied from it to a store in groups (``writer``; ``catch_up``
              copies what a run left in the file only)
Redactor      masks secrets in every string before anything is hashed or written (``redact``)
verify_rows   the first break in the store's chain; ``verify_jsonl`` the file's (``chain``)
compare       the file against the store, record by record; ``missing_head``: a kept head is gone
unfolded      rows with the hook runs a tool call's records carry as rows of their own
"""

from __future__ import annotations

from hookline.audit._chain import (
    AuditError,
    Problem,
    canonical,
    link,
    verify_jsonl,
    verify_rows,
)
from hookline.audit._log import AuditLog, Flushed, attach_audit
from hookline.audit._marks import Mark, compare, missing_head
from hookline.audit._records import unfolded
from hookline.audit._redact import Redactor
from hookline.audit._writer import catch_up

__all__ = [
    "AuditError",
    "AuditLog",
    "Flushed",
    "Mark",
    "Problem",
    "Redactor",
    "attach_audit",
    "canonical",
    "catch_up",
    "compare",
    "link",
    "missing_head",
    "unfolded",
    "verify_jsonl",
    "verify_rows",
]
