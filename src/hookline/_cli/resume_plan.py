"""What ``hookline sessions resume`` would use for a paused session, for ``sessions show``.

    resume_plan(record)  # {"resume": {"permission_mode": ..., "roots": [...], ...}}

Read from the saved state and the files as they are now, without loading any hook (nothing is
imported or run): the permission mode the permission layer will apply (and the one hooks are
told, when it differs), what answers allowed for the rest of the session, the workspace
roots, each settings layer and hook file with whether it changed since the pause, who answers
an ask, the user and tenant, and whether the state is as hookline saved it (its keyed hash).
A value that cannot be worked out says why instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookline._agent.saved import seal
from hookline._agent.saved.state import load_state
from hookline._claude.fingerprint import ABSENT, digest, fingerprint
from hookline._claude.settings import load_settings
from hookline._cli.launch import Launch
from hookline._errors import ConfigError
from hookline.audit._redact import Redactor, patterns_from_settings
from hookline.permissions import PermissionPolicy
from hookline.storage import SessionRecord


def resume_plan(record: SessionRecord) -> dict[str, Any]:
    """``{"resume": {...}}``: what a resume of ``record`` would run with."""
    try:
        session, _, _ = load_state(record.state, where=f"session {record.id}")
    except ConfigError as exc:
        return {"resume": {"problem": str(exc)}}
    launch_data = record.state.get("launch")
    launch = Launch.saved(launch_data, session=record.id) if launch_data else None
    plan: dict[str, Any] = {
        "permission_mode": _mode(launch, session["permission_mode"]),
        "roots": session["roots"],
        "hook_sources": _sources(launch),
        "approver": _approver(launch),
        "user": session["user"],
        "tenant": session["tenant"],
        "state": _seal(record),
    }
    grants = session.get("grants") or []
    if grants:  # what answers allowed for the rest of the session, applied again on resume
        plan["allowed_for_the_session"] = [g.get("description") or g["rules"] for g in grants]
        edits = any(g["mode"] == "acceptEdits" for g in grants)
        if edits and plan["permission_mode"] in ("default", "auto"):
            plan["permission_mode"] = "acceptEdits"
    if plan["permission_mode"] != session["permission_mode"]:
        plan["permission_mode_hooks_see"] = session["permission_mode"]
    return {"resume": plan}


def masking(record: SessionRecord, cwd: str) -> Redactor:
    """What ``sessions show`` masks, as the run's own output did: the built-in forms and the
    ``redact`` patterns of the settings of the folder it ran in (else ``cwd``); a ConfigError
    for patterns that are not valid, rather than show what they should have masked. Lone
    surrogates are kept: the JSON escapes them, and so does ``shown`` for people."""
    data = record.state.get("launch")
    folder = data.get("cwd") if isinstance(data, Mapping) else None
    extra = data.get("settings") if isinstance(data, Mapping) else None
    try:
        settings = load_settings(str(folder or cwd), extra=tuple(extra or ()))
    except OSError:
        return Redactor(keep_surrogates=True)
    return Redactor(patterns_from_settings(settings.layers), keep_surrogates=True)


def _mode(launch: Launch | None, session_mode: str) -> str:
    """The mode the permission layer applies: the flag, else the settings', else default."""
    if launch is None:
        return session_mode  # not started by `hookline run`: its program decides the policy
    if launch.permission_mode:
        return launch.permission_mode
    try:
        settings = load_settings(launch.cwd, extra=launch.settings)
        policy, _ = PermissionPolicy.from_settings(settings, cwd=launch.cwd)
    except (ConfigError, OSError) as exc:
        return f"unknown ({exc})"
    return policy.mode


def _sources(launch: Launch | None) -> list[dict[str, str]] | str:
    """Each settings layer and hook file, ``unchanged``/``changed``/``new``/``removed``."""
    if launch is None:
        return "unknown: not started by hookline run (its program loads the hooks)"
    try:
        now = fingerprint(launch.cwd, settings=launch.settings, hook_files=launch.hooks)
    except (ConfigError, OSError) as exc:
        return f"unknown ({exc})"
    saved: Mapping[str, str] = launch.fingerprints or {}
    rows = []
    for path in sorted(set(saved) | set(now)):
        before = saved.get(path, ABSENT) if launch.fingerprints is not None else None
        after = now[path] if path in now else digest(path)
        if before == after == ABSENT:
            continue  # a layer that was not there and still is not
        rows.append({"path": path, "status": _status(before, after)})
    return rows


def _status(before: str | None, after: str) -> str:
    if before is None:
        return "unknown (no fingerprint was saved)"
    if before == after:
        return "unchanged"
    return "new" if before == ABSENT else "removed" if after == ABSENT else "changed"


def _approver(launch: Launch | None) -> str:
    if launch is None:
        return "unknown: the program that resumes it gives the approver"
    then = f"then {launch.approver_url}" if launch.approver_url else "else none"
    pause = "; unanswered: the session pauses again" if launch.defer_asks else ""
    return f"terminal (when resumed at one), {then}{pause}"


def _seal(record: SessionRecord) -> str:
    try:
        edited = seal.changed(record)
    except (seal.Unverifiable, ConfigError) as exc:
        return f"cannot be checked: {exc}"
    if edited:
        return f"changed outside hookline: {', '.join(edited)}"
    return "as hookline saved it (keyed hash intact)"
