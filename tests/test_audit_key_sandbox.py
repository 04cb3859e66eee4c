"""Inside the OS sandbox hookline's per-user keys cannot be read: a sandboxed Bash command that
reads the key (to forge the audit's chain or a session's seal) finds nothing. Real bwrap."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hookline._agent.saved.seal import KEY_ENV, key_path, load_key
from hookline._errors import ToolError
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash
from hookline.audit._heads import Keeper, head_path
from hookline.permissions._sandbox.config import SandboxConfig
from hookline.permissions._sandbox.run import Sandbox

WHY_NOT = SandboxConfig(allow_all_unix_sockets=True).unavailable()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"no sandbox here ({WHY_NOT})")


def sandboxed(ws: Path, command: str) -> str:
    box = Sandbox(SandboxConfig(enabled=True), roots=[ws])
    ctx = ToolContext(cwd=ws, workspace=Workspace.of(ws), sandbox=box)
    tool = Bash()
    try:
        return tool.render(asyncio.run(tool.execute(tool.prepare({"command": command}, ctx), ctx)))
    except ToolError as exc:
        return str(exc)


@pytest.mark.parametrize("elsewhere", [False, True], ids=["home", "key-file-env"])
def test_a_sandboxed_command_cannot_read_the_key_or_its_heads(tmp_path, monkeypatch, elsewhere):
    if elsewhere:
        monkeypatch.setenv(KEY_ENV, str(tmp_path / "keys" / "state.key"))
    ws = tmp_path / "ws"
    ws.mkdir()
    key = load_key(create=True)
    assert key is not None and key_path().read_text().strip() == key.hex()
    log = ws / ".hookline" / "state" / "audit.jsonl"
    Keeper(log, key).keep("file", 1, "hmac:" + "a" * 64)
    assert head_path(log, "file").is_file()
    out = sandboxed(ws, f"cat {key_path()} {head_path(log, 'file')}; ls -a {key_path().parent}")
    assert key.hex() not in out and "a" * 64 not in out, out
    assert key_path().read_text().strip() == key.hex()  # outside, as it was
