"""``@path`` imports in instruction files: what is an import, where it leads, what loads once,
what is never read, and the InstructionsLoaded ``include`` events a run fires for them."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from hookline import Agent, ScriptedModel
from hookline._agent.imports import mentions
from hookline._agent.instructions import MAX_BYTES, MAX_IMPORT_DEPTH, Instructions
from hookline.permissions import PermissionPolicy, PermissionRule
from hookline.testing import RecordingHook
from test_instructions import write


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def loaded(found: Instructions) -> list[tuple[str, str | None]]:
    """Each loaded file by name, with the name of the file that imported it."""
    return [(f.path.name, f.parent.name if f.parent else None) for f in found.loaded]


# -- what is an import ----------------------------------------------------------------------------


def test_mentions_are_at_a_line_start_or_after_white_space_and_end_at_white_space() -> None:
    text = "See @docs/a.md, then\n@b.md and @~/c.md or @/etc/d.md; mail me@example.com\n"
    assert mentions(text) == ["docs/a.md,", "b.md", "~/c.md", "/etc/d.md;"]


def test_an_escaped_space_is_part_of_the_path_and_a_fragment_is_dropped() -> None:
    assert mentions(r"@my\ notes.md#setup and @x.md#") == ["my notes.md", "x.md"]


def test_mentions_in_code_spans_and_code_blocks_are_not_imports() -> None:
    text = (
        "Use `@inline.md` or ``a @double.md b`` but import @real.md\n"
        "```bash\n@fenced.md\n```\n"
        "~~~~\n@tilde.md\n~~~\nstill fenced @tilde2.md\n~~~~\n"
        "after the fences @after.md\n"
        "\n    @indented.md\n\n"
        "- a list item\n    @continued.md\n"
    )
    assert mentions(text) == ["real.md", "after.md", "continued.md"]


def test_an_unclosed_fence_hides_the_rest_and_a_lone_at_is_nothing() -> None:
    assert mentions("@before.md\n```\n@inside.md\n") == ["before.md"]
    assert mentions("@ @@twice @#tag @(x) email@host") == []


# -- where it leads and how it is placed -----------------------------------------------------------


def test_an_import_is_a_section_of_its_own_right_after_the_importing_file(project: Path) -> None:
    write(project / "CLAUDE.md", "Project rules. See @docs/style.md for style.\n")
    write(project / "docs" / "style.md", "Use four spaces. Also @../shared/terms.md\n")
    write(project / "shared" / "terms.md", "Say 'order', not 'purchase'.\n")
    write(project / "AGENTS.md", "Run make check.\n")
    found = Instructions.discover(project)
    assert loaded(found) == [
        ("CLAUDE.md", None),
        ("style.md", "CLAUDE.md"),
        ("terms.md", "style.md"),
        ("AGENTS.md", None),
    ]
    system = found.system(None) or ""
    assert system.index("Project rules") < system.index("four spaces") < system.index("order")
    assert system.index("order") < system.index("Run make check.")
    assert f"Contents of {project / 'shared' / 'terms.md'}:" in system  # `..` resolved
    assert found.loaded[1].memory_type == "Project" and found.warnings == []


def test_home_imports_and_absolute_imports_from_the_user_file(
    tmp_path: Path, project: Path
) -> None:
    home = tmp_path / "home"
    write(home / ".claude" / "CLAUDE.md", "Mine: @~/notes/habits.md and @" + str(tmp_path / "x.md"))
    write(home / "notes" / "habits.md", "Short commits.")
    write(tmp_path / "x.md", "Absolute.")
    found = Instructions.discover(project, home=home)
    assert loaded(found) == [("CLAUDE.md", None), ("habits.md", "CLAUDE.md"), ("x.md", "CLAUDE.md")]
    assert {f.memory_type for f in found.loaded} == {"User"}


def test_a_missing_import_is_skipped_without_a_warning(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(project / "CLAUDE.md", "Ask @alice about @missing.md, or @gone/")
    with caplog.at_level(logging.WARNING, logger="hookline._agent.instructions"):
        found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None)]
    assert found.warnings == [] and caplog.records == []


def test_a_cycle_and_a_file_imported_twice_load_once(project: Path) -> None:
    write(project / "CLAUDE.md", "@a.md @b.md @./CLAUDE.md")
    write(project / "a.md", "A imports @b.md and @CLAUDE.md")
    write(project / "b.md", "B imports @a.md")
    found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None), ("a.md", "CLAUDE.md"), ("b.md", "a.md")]


def test_agents_md_imported_by_claude_md_loads_once_as_the_import(project: Path) -> None:
    write(project / "CLAUDE.md", "@AGENTS.md")
    write(project / "AGENTS.md", "Shared with other agents.")
    write(project / ".claude" / "rules" / "r.md", "@../../AGENTS.md and a rule")
    found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None), ("AGENTS.md", "CLAUDE.md"), ("r.md", None)]
    assert (found.system(None) or "").count("Shared with other agents.") == 1


def test_imports_are_followed_five_deep_and_no_deeper(project: Path) -> None:
    write(project / "CLAUDE.md", "@f1.md")
    for depth in range(1, MAX_IMPORT_DEPTH + 2):
        write(project / f"f{depth}.md", f"level {depth} @f{depth + 1}.md")
    found = Instructions.discover(project)
    names = [name for name, _ in loaded(found)]
    assert names == ["CLAUDE.md", *(f"f{d}.md" for d in range(1, MAX_IMPORT_DEPTH + 1))]
    assert "level 6" not in (found.system(None) or "")


def test_a_path_scoped_rule_brings_its_imports_when_it_loads(project: Path) -> None:
    rule = "---\npaths: ['src/**']\n---\nFollow @../../docs/api.md\n"
    write(project / ".claude" / "rules" / "src.md", rule)
    write(project / "docs" / "api.md", "API rules.")
    found = Instructions.discover(project)
    assert found.loaded == []
    newly = found.touched({"file_path": str(project / "src" / "a.py")})
    assert [(f.path.name, trigger) for f, trigger in newly] == [
        ("src.md", str(project / "src" / "a.py")),
        ("api.md", None),
    ]
    assert "API rules." in (found.system(None) or "")


# -- what is never read ---------------------------------------------------------------------------


def test_a_project_file_cannot_import_outside_the_project(
    tmp_path: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = write(tmp_path / "secret.txt", "SECRET-TOKEN")
    write(project / "CLAUDE.local.md", f"@{secret}")
    write(project / "CLAUDE.md", "@../secret.txt and @link.md")
    (project / "link.md").symlink_to(secret)
    with caplog.at_level(logging.WARNING, logger="hookline._agent.instructions"):
        found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None), ("CLAUDE.local.md", None)]
    assert "SECRET-TOKEN" not in (found.system(None) or "")
    (line,) = [r.getMessage() for r in caplog.records]  # the real file is warned about once
    assert line.startswith(f"{tmp_path / 'secret.txt'}: (imported by {project / 'CLAUDE.md'})")
    assert "outside the project folder; left out" in line


def test_a_symlink_inside_the_project_to_a_project_file_is_fine(project: Path) -> None:
    write(project / "docs" / "real.md", "Real text.")
    (project / "alias.md").symlink_to(project / "docs" / "real.md")
    write(project / "CLAUDE.md", "@alias.md")
    found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None), ("alias.md", "CLAUDE.md")]
    assert "Real text." in (found.system(None) or "")


def test_no_import_is_read_under_proc_or_dev_even_from_the_user_file(
    tmp_path: Path, project: Path
) -> None:
    home = tmp_path / "home"
    (home / "zero.md").parent.mkdir(parents=True)
    (home / "zero.md").symlink_to("/dev/zero")
    write(home / ".claude" / "CLAUDE.md", "@/proc/self/environ @~/zero.md @/dev/null")
    found = Instructions.discover(project, home=home)
    assert loaded(found) == [("CLAUDE.md", None)]
    assert len(found.warnings) == 3
    assert all("leads into /" in w and w.endswith("left out") for w in found.warnings)


def test_a_fifo_import_is_left_out_without_opening_it(project: Path) -> None:
    """Opening a FIFO for reading waits for a writer: the start would hang. The discovery runs
    in a thread that must finish; a FIFO no one writes would keep it waiting forever."""
    os.mkfifo(project / "pipe.md")
    write(project / "CLAUDE.md", "@pipe.md")
    result: list[Instructions] = []
    worker = threading.Thread(target=lambda: result.append(Instructions.discover(project)))
    worker.daemon = True
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # let the thread go: open the FIFO for writing once
        fd = os.open(project / "pipe.md", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("discovering the instructions waited on a FIFO")
    (found,) = result
    assert loaded(found) == [("CLAUDE.md", None)]
    assert found.warnings == [f"{project / 'pipe.md'}: is not a regular file; left out"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [(b"x" * (MAX_BYTES + 1), "larger than"), (b"caf\xe9", "not UTF-8")],
)
def test_a_huge_or_non_utf8_import_is_left_out_with_the_usual_warning(
    project: Path, caplog: pytest.LogCaptureFixture, content: bytes, problem: str
) -> None:
    write(project / "CLAUDE.md", "Main. @big.md @ok.md")
    write(project / "big.md", content)
    write(project / "ok.md", "Fine.")
    with caplog.at_level(logging.WARNING, logger="hookline._agent.instructions"):
        found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None), ("ok.md", "CLAUDE.md")]
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"{project / 'big.md'}: ") and problem in line


# -- in a run -------------------------------------------------------------------------------------


def test_a_run_fires_instructions_loaded_with_include_and_the_parent(project: Path) -> None:
    write(project / "CLAUDE.md", "Main. @docs/a.md")
    write(project / "docs" / "a.md", "Imported A. @b.md")
    write(project / "docs" / "b.md", "Imported B.")
    model = ScriptedModel([{"text": "ok"}])
    agent = Agent(model, cwd=project)
    hook = RecordingHook()
    hook.attach(agent.registry, ["InstructionsLoaded"])
    result = agent.run_sync("go")
    assert result.stop_reason == "end_turn"
    payloads = [e.to_payload() for e in hook.events]
    seen = [(p["file_path"], p["load_reason"], p.get("parent_file_path")) for p in payloads]
    assert seen == [
        (str(project / "CLAUDE.md"), "session_start", None),
        (str(project / "docs" / "a.md"), "include", str(project / "CLAUDE.md")),
        (str(project / "docs" / "b.md"), "include", str(project / "docs" / "a.md")),
    ]
    assert payloads[1]["memory_type"] == "Project"


# -- what the rules keep away: Read deny rules and hookline's private state -------------------


class _Seeing(ScriptedModel):
    """A scripted model that keeps every system prompt it is sent."""

    def __init__(self, script: list[dict[str, str]]) -> None:
        super().__init__(script)
        self.systems: list[str | None] = []

    async def complete(self, messages, tools, *, system=None):  # type: ignore[no-untyped-def]
        self.systems.append(system)
        return await super().complete(messages, tools, system=system)


def _denying(*rules: str) -> PermissionPolicy:
    denied = tuple((PermissionRule.parse(rule), "project settings") for rule in rules)
    return PermissionPolicy(deny=denied)


@pytest.mark.parametrize(
    "spelling",
    ["@secrets/key.txt", "@./secrets/key.txt", "@docs/../secrets/key.txt", "@link/key.txt",
     "@key-link.txt"],
)  # fmt: skip
def test_an_import_a_read_deny_rule_covers_never_reaches_the_model(
    project: Path, caplog: pytest.LogCaptureFixture, spelling: str
) -> None:
    write(project / "secrets" / "key.txt", "SECRET-TOKEN-42")
    (project / "docs").mkdir()
    (project / "link").symlink_to(project / "secrets")
    (project / "key-link.txt").symlink_to(project / "secrets" / "key.txt")
    write(project / "CLAUDE.md", f"Main.\n{spelling}\n@notes.md\n")
    write(project / "notes.md", "Plain notes.")
    model = _Seeing([{"text": "ok"}])
    agent = Agent(model, cwd=project, permissions=_denying("Read(./secrets/**)"))
    with caplog.at_level(logging.WARNING, logger="hookline._agent.instructions"):
        result = agent.run_sync("go")
    assert result.stop_reason == "end_turn"
    (system,) = model.systems
    assert system is not None and "Plain notes." in system  # imports still load
    assert "SECRET-TOKEN-42" not in system
    (line,) = [r.getMessage() for r in caplog.records]
    assert "is covered by a Read deny rule; left out" in line


def test_without_the_rule_the_same_import_loads(project: Path) -> None:
    write(project / "secrets" / "key.txt", "SECRET-TOKEN-42")
    write(project / "CLAUDE.md", "Main.\n@secrets/key.txt\n")
    model = _Seeing([{"text": "ok"}])
    Agent(model, cwd=project, permissions=_denying("Read(./other/**)")).run_sync("go")
    assert "SECRET-TOKEN-42" in str(model.systems[0])  # the control: the test can fail


@pytest.mark.parametrize("spelling", ["@.hookline/state/notes.md", "@private-link/notes.md"])
def test_an_import_of_hooklines_private_state_is_left_out(
    project: Path, caplog: pytest.LogCaptureFixture, spelling: str
) -> None:
    write(project / ".hookline" / "state" / "notes.md", "PRIVATE-STATE-7")
    (project / "private-link").symlink_to(project / ".hookline" / "state")
    write(project / "CLAUDE.md", f"Main.\n{spelling}\n")
    with caplog.at_level(logging.WARNING, logger="hookline._agent.instructions"):
        found = Instructions.discover(project)
    assert loaded(found) == [("CLAUDE.md", None)]
    assert "PRIVATE-STATE-7" not in str(found.system(None))
    (line,) = [r.getMessage() for r in caplog.records]
    assert "hookline's private state" in line and line.endswith("left out")
