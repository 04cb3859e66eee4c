"""Audit records as lines other tools read: JSON Lines, CEF and RFC 5424 syslog (for a SIEM).

    jsonl_line(row)                      one record as stored, one JSON object
    cef_line(row, version=...)           ArcSight Common Event Format, version 0
    syslog_line(row, host=..., ...)      RFC 5424, the record's fields as structured data

Values are the records' own, redacted as they were stored; nothing here adds or removes a
secret. Each format's escaping is its own and complete, so no value can end a line, a field or
a header early:

- CEF: in the header, ``\\`` and ``|`` are escaped with a backslash; a header holds no line
  break (each control character becomes a space). In the extension, ``\\`` and ``=`` are escaped,
  a line feed is ``\\n`` and a carriage return ``\\r``; other control characters, and U+0085,
  U+2028, U+2029, are written as ``\\uXXXX``. Keys are fixed, never taken from a record.
- syslog: PARAM-VALUEs escape ``"``, ``\\`` and ``]`` with a backslash (RFC 5424 6.3.3); control
  characters (line breaks included) are written as ``\\n``, ``\\uXXXX``...; header fields are
  printable US-ASCII without spaces, ``-`` when empty; MSG is the record's summary, escaped the
  same way.

Severities follow what a record says: a refusal (``deny``, ``blocked``, ``stop``) is high, a
hook's failure next, an ask or a deferral notable, the rest informational.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from hookline._support.display import shown_json

if TYPE_CHECKING:
    from hookline.storage import AuditRow

REFUSALS: Final = frozenset({"deny", "blocked", "stop"})
NOTABLE: Final = frozenset({"ask", "defer", "deferred", "failed", "interrupted"})
#: CEF severity (0-10) by what the record says.
CEF_SEVERITY: Final = {"refusal": 7, "failure": 6, "notable": 5, "info": 3}
#: RFC 5424 severity (4 warning, 3 error, 5 notice, 6 informational), facility 13: log audit.
SYSLOG_SEVERITY: Final = {"refusal": 4, "failure": 3, "notable": 5, "info": 6}
FACILITY: Final = 13
#: The SD-ID of the structured data: the enterprise number RFC 5612 keeps for documentation.
SD_ID: Final = "hookline@32473"
VENDOR: Final = "hookline"

_LINE_BREAKS = "\x85\u2028\u2029"
_CONTROL = re.compile(rf"[\x00-\x1f\x7f{_LINE_BREAKS}]")
_CEF_HEADER = re.compile(r"[\\|]")
_CEF_VALUE = re.compile(rf"[\\=\x00-\x1f\x7f{_LINE_BREAKS}]")
_SD_VALUE = re.compile(rf'["\\\]\x00-\x1f\x7f{_LINE_BREAKS}]')
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def jsonl_line(row: AuditRow) -> str:
    """The record as the store keeps it, one JSON object on one line."""
    return shown_json(fields(row))


def fields(row: AuditRow) -> dict[str, Any]:
    """Every field of the record, by its name (a field added to records comes along)."""
    return {field.name: getattr(row, field.name) for field in dataclasses.fields(row)}


def weight(row: AuditRow) -> str:
    """How much the record matters: refusal, failure, notable or info."""
    if row.decision in REFUSALS or (row.kind == "tool" and row.permission == "deny"):
        return "refusal"
    if row.data.get("failure"):
        return "failure"
    return "notable" if row.decision in NOTABLE else "info"


def summary(row: AuditRow) -> str:
    """One line for people: what happened, and what was decided."""
    data = row.data
    what = [row.event or "", row.kind]
    if data.get("hook"):
        what.append(str(data["hook"]))
    if row.tool:
        what.append(row.tool)
    said = f": {row.decision}" if row.decision else ""
    why = data.get("reason") or data.get("message") or data.get("error")
    return " ".join(part for part in what if part) + said + (f" ({why})" if why else "")


def _extension(row: AuditRow) -> dict[str, Any]:
    """The record's fields under CEF's keys (custom ones labelled), those it has."""
    data = row.data
    duration = data.get("duration_ms")
    pairs: list[tuple[str, str, Any]] = [
        ("cs1", "session", row.session_id),
        ("cs2", "toolUseId", row.tool_use_id),
        ("cs3", "tool", row.tool),
        ("cs4", "hook", data.get("hook")),
        ("cs5", "event", row.event),
        ("cs6", "hash", row.hash),
        ("cn1", "seq", row.seq),
        ("cn2", "durationMs", round(duration) if isinstance(duration, int | float) else None),
        ("flexString1", "permission", row.permission or data.get("permission")),
        ("flexString2", "failure", data.get("failure")),
    ]
    out: dict[str, Any] = {
        "rt": round(row.time * 1000),
        "cat": row.kind,
        "act": row.decision,
        "suser": data.get("user") or data.get("answered_by"),
        "reason": data.get("reason"),
        "msg": data.get("message") or data.get("error"),
    }
    for key, label, value in pairs:
        if value is not None and value != "":
            out[f"{key}Label"] = label
            out[key] = value
    return {key: value for key, value in out.items() if value is not None and value != ""}


def cef_line(row: AuditRow, *, version: str) -> str:
    """The record as one CEF:0 line."""
    header = [VENDOR, VENDOR, version, f"{row.kind}:{row.decision or 'none'}", summary(row)]
    severity = CEF_SEVERITY[weight(row)]
    extension = " ".join(f"{key}={cef_value(value)}" for key, value in _extension(row).items())
    return "|".join(["CEF:0", *map(cef_header, header), str(severity), extension])


def cef_header(value: object) -> str:
    """A CEF header field: ``\\`` and ``|`` escaped, control characters as spaces."""
    text = _CONTROL.sub(" ", str(value))
    return _CEF_HEADER.sub(lambda m: "\\" + m.group(), text)


def cef_value(value: object) -> str:
    """A CEF extension value: ``\\`` and ``=`` escaped, line breaks as ``\\n``/``\\r``."""
    return _CEF_VALUE.sub(_cef_escape, _text(value))


def _cef_escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in "\\=":
        return "\\" + char
    named = _NAMED.get(char) if char in "\n\r" else None
    return named or f"\\u{ord(char):04x}"


def syslog_line(row: AuditRow, *, host: str, app: str = VENDOR) -> str:
    """The record as one RFC 5424 line: its fields as structured data, its summary as MSG."""
    priority = FACILITY * 8 + SYSLOG_SEVERITY[weight(row)]
    stamp = datetime.fromtimestamp(row.time, UTC).isoformat(timespec="microseconds")
    stamp = stamp.replace("+00:00", "Z")
    params = " ".join(f'{key}="{sd_value(value)}"' for key, value in _sd_params(row).items())
    head = [f"<{priority}>1", stamp, _header(host, 255), _header(app, 48), "-"]
    return " ".join([*head, _header(row.kind, 32), f"[{SD_ID} {params}]", sd_value(summary(row))])


def _sd_params(row: AuditRow) -> dict[str, Any]:
    data = row.data
    params = {
        "seq": row.seq,
        "hash": row.hash,
        "session": row.session_id,
        "toolUseId": row.tool_use_id,
        "tool": row.tool,
        "event": row.event,
        "hook": data.get("hook"),
        "decision": row.decision,
        "permission": row.permission or data.get("permission"),
        "failure": data.get("failure"),
        "durationMs": data.get("duration_ms"),
        "user": data.get("user"),
        "tenant": data.get("tenant"),
        "reason": data.get("reason"),
    }
    return {key: value for key, value in params.items() if value is not None and value != ""}


def sd_value(value: object) -> str:
    """A PARAM-VALUE (or MSG): ``"``, ``\\`` and ``]`` escaped; control characters spelt out."""
    return _SD_VALUE.sub(_sd_escape, _text(value))


def _sd_escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in '"\\]':
        return "\\" + char
    return _NAMED.get(char) or f"\\u{ord(char):04x}"


def _header(value: str, limit: int) -> str:
    """A syslog header field: printable US-ASCII, no spaces, at most ``limit``; ``-`` if empty."""
    text = "".join(c if "!" <= c <= "~" else "_" for c in value)[:limit]
    return text or "-"


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else shown_json(value)
