"""The policy a project loaded, as JSON-ready data: ``loaded`` is what the digest hashes beside
the files, ``described`` the whole view ``GET /policy`` and ``hookline policy`` show.

    described(project, digest, loaded_at=time.time())
    # {"policy": "<sha256>", "short": "1a2b3c4d5e6f", "loaded_at": "...", "folder": "/ws",
    #  "files": [...], "permissions": {...}, "hooks": [...], "trusted": true}
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from hookline._policy.inventory import rows
from hookline.permissions import DANGEROUS

if TYPE_CHECKING:
    from hookline._policy.digest import PolicyDigest
    from hookline._project import Project
    from hookline.permissions._verdict import SourcedRule

#: What a hook row shows of a hook (``HookRow`` fields), in this order.
HOOK_FIELDS = (
    "event", "matcher", "handler", "runs", "kind", "failure", "when_it_fails", "timeout", "source",
)  # fmt: skip


def loaded(project: Project) -> dict[str, Any]:
    """What the project's settings became once loaded: the permission layer and the hooks."""
    return {
        "permissions": permissions(project),
        "hooks": hooks(project),
        "sandbox": project.sandbox.enabled,
        "trusted": project.settings.trusted,
    }


def described(project: Project, digest: PolicyDigest, *, loaded_at: float) -> dict[str, Any]:
    """The whole view: the digest (full and short), when and where it was loaded, the files
    with their digests, and ``loaded``."""
    return {
        "policy": digest.sha256,
        "short": digest.short,
        "loaded_at": when(loaded_at),
        "folder": project.cwd,
        "files": [file.to_dict() for file in digest.files],
        **loaded(project),
    }


def when(at: float) -> str:
    """A time (seconds since the epoch) as ISO 8601, in UTC, to the second."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


def permissions(project: Project) -> dict[str, Any]:
    """The permission mode, the rules with their settings file, the tiers."""
    policy = project.permissions
    built_in = all(danger in policy.dangerous for danger in DANGEROUS)
    added = [danger.name for danger in policy.dangerous if danger not in DANGEROUS]
    return {
        "mode": policy.mode,
        "allow": _rules(policy.allow),
        "ask": _rules(policy.ask),
        "deny": _rules(policy.deny),
        "dangerous_tier": {"built_in": built_in, "added": added},
        "protected_set": {"on": True, "code_files": list(policy.code_files)},
        "read_only_tools": sorted(policy.read_only_tools),
        "mutating": policy.mutating,
    }


def hooks(project: Project) -> list[dict[str, Any]]:
    """Each registered hook: its event, matcher, what runs, and what its failure decides."""
    return [{key: getattr(row, key) for key in HOOK_FIELDS} for row in rows(project.hooks)]


def _rules(sourced: tuple[SourcedRule, ...]) -> list[dict[str, str]]:
    return [{"rule": str(rule), "source": source} for rule, source in sourced]
