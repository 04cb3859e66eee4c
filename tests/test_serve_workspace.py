"""hookline serve judges a host's call in the host's project, not in the server's own folder:
the project's protected folders (``.claude``, ``.git/hooks``) and hookline's private state in
it (``.hookline``) are what they are for a ``hookline run`` there, in every mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from test_serve import decided, payload, running, work_folder


@pytest.fixture
def endpoint(tmp_path: Path) -> Any:
    """A server whose folder has no settings: the permission layer alone decides."""
    policy = tmp_path / "policy"
    policy.mkdir()
    with running(policy, tmp_path / "state") as where:
        yield where


def _call(workspace: Path, mode: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return payload(
        workspace,
        permission_mode=mode,
        tool_name=name,
        tool_input=tool_input,
        tool_use_id=f"toolu_{name}",
    )


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits"])
def test_a_write_into_the_projects_own_settings_asks_in_every_mode(
    endpoint: str, tmp_path: Path, mode: str
) -> None:
    workspace = work_folder(tmp_path)
    target = str(workspace / ".claude" / "settings.json")
    asked = _call(workspace, mode, "Write", {"file_path": target, "content": "{}"})
    said = decided(httpx.post(endpoint, json=asked))
    assert said["permissionDecision"] == "ask", said
    assert ".claude" in said["permissionDecisionReason"]


def test_hooklines_private_state_in_the_project_is_not_read(endpoint: str, tmp_path: Path) -> None:
    workspace = work_folder(tmp_path)
    (workspace / ".hookline").mkdir()
    (workspace / ".hookline" / "audit.jsonl").write_text("{}\n")
    asked = _call(workspace, "default", "Read", {"file_path": ".hookline/audit.jsonl"})
    said = decided(httpx.post(endpoint, json=asked))
    assert said["permissionDecision"] == "deny", said
    assert "private state" in said["permissionDecisionReason"]


def test_an_edit_in_the_project_runs_in_accept_edits_as_in_a_run_there(
    endpoint: str, tmp_path: Path
) -> None:
    workspace = work_folder(tmp_path)
    asked = _call(
        workspace, "acceptEdits", "Write", {"file_path": str(workspace / "new.txt"), "content": ""}
    )
    assert decided(httpx.post(endpoint, json=asked))["permissionDecision"] == "allow"
