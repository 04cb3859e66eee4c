"""Startup loads what a command needs: ``import hookline``, ``hookline --version`` and
``hookline --help`` import neither the agent nor the audit, the stores, the models or pydantic;
the command list ``--help`` prints without importing a subcommand is the subcommands' own."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

import hookline
from hookline._cli.lazy import Lazy, LazyGroup
from hookline._cli.main import COMMANDS, cli

#: Modules a quick command must not load: the agent, the audit, the stores, the models, and
#: the libraries behind them.
HEAVY = (
    "hookline._agent.loop",
    "hookline.audit",
    "hookline.storage",
    "hookline.models",
    "hookline._events",
    "pydantic",
    "httpx",
    "asyncio",
)


def loaded_after(code: str) -> list[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import hookline",
        "from hookline._cli.main import main; main(['--version'])",
        "from hookline._cli.main import main; main(['--help'])",
        "from hookline._cli.main import main; main([])",
    ],
)
def test_quick_commands_load_nothing_heavy(code: str) -> None:
    modules = loaded_after(code)
    assert "hookline" in modules
    assert [m for m in modules if m.startswith(HEAVY)] == []


def test_a_command_loads_what_it_uses() -> None:
    """The other side: running ``hooks --help`` imports the hooks command, not the audit's."""
    modules = loaded_after("from hookline._cli.main import main; main(['hooks', '--help'])")
    assert "hookline._cli.hooks_cmd" in modules
    assert "hookline._cli.audit_cmd" not in modules


def test_public_names_load_on_first_use() -> None:
    modules = loaded_after("from hookline import Decision")
    assert "hookline._decisions" in modules
    assert "hookline._agent.loop" not in modules
    assert "pydantic" not in modules


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Agnet'"):
        _ = hookline.Agnet  # type: ignore[attr-defined]
    assert set(hookline.__all__) <= set(dir(hookline))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_is_the_commands_own_first_sentence(name: str) -> None:
    command = cli.commands[name]
    assert command.name == name
    assert command.get_short_help_str(1000) == COMMANDS[name].summary


def test_help_lists_every_command_once() -> None:
    help_text = cli.get_help(click.Context(cli, info_name="hookline"))
    rows = help_text.split("Commands:\n")[1].splitlines()
    listed = [row.split()[0] for row in rows if row[:3].strip()]
    assert listed == sorted(COMMANDS)


def test_the_commands_mapping_behaves_as_a_dict() -> None:
    @click.command()
    def extra() -> None:
        """An extra command."""

    group = LazyGroup(lazy={"hooks": Lazy("hookline._cli.hooks_cmd:hooks", "See hooks.")})
    group.add_command(extra)
    assert "hooks" in group.commands
    assert group.commands.get("nope") is None
    assert sorted(group.commands) == ["extra", "hooks"]
    assert len(group.commands) == 2
    del group.commands["hooks"]
    assert list(group.commands) == ["extra"]
    with pytest.raises(KeyError):
        del group.commands["hooks"]
