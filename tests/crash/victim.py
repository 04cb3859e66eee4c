"""The process the campaign kills, with the points a kill is aimed at (``crash.gate``) added.

    python victim.py cli ARGS...             hookline ARGS, through its own entry point
    python victim.py agent run               a checkpointed, audited library agent runs PROMPT
    python victim.py agent resume ID [--approve]   ... and resumes session ID

It runs in the story's project folder. The points inside hookline are its own methods, wrapped
here: ``model`` (before each model call), ``audit:write`` (before audit records go to the
file), ``audit:head`` (after they are in it, before its head is kept), ``audit:copied`` (after
the store took a copy, before the note of it), ``claim`` (a resume has just taken the session),
``save`` (before the session is saved). The tool body passes ``tool:start`` and ``tool:done``
(around its side effect), the command hook ``hook:<event>``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate import passed

PROMPT = "Write the entries the script asks for into the ledger."
LEDGER = "ledger.txt"


def _before(cls: type, name: str, point: Callable[..., str | None]) -> None:
    """Pass ``point(*args)`` (when it names one) before ``cls.name`` runs."""
    original = getattr(cls, name)
    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)
        async def waiting(*args: Any, **kwargs: Any) -> Any:
            if (where := point(*args, **kwargs)) is not None:
                passed(where)
            return await original(*args, **kwargs)

        setattr(cls, name, waiting)
        return

    @functools.wraps(original)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if (where := point(*args, **kwargs)) is not None:
            passed(where)
        return original(*args, **kwargs)

    setattr(cls, name, wrapped)


def _after(cls: type, name: str, point: Callable[..., str | None]) -> None:
    """Pass ``point(result, *args)`` (when it names one) after ``cls.name`` returned."""
    original = getattr(cls, name)

    @functools.wraps(original)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        if (where := point(result, *args, **kwargs)) is not None:
            passed(where)
        return result

    setattr(cls, name, wrapped)


def install() -> None:
    """Wrap hookline's own methods with the points the campaign aims at."""
    from hookline.audit._chained_file import ChainedFile
    from hookline.audit._heads import Keeper
    from hookline.models._scripted import ScriptedModel
    from hookline.storage._sql import SqlStore

    _before(ScriptedModel, "complete", lambda *a, **k: "model")
    _before(ChainedFile, "append", lambda *a, **k: "audit:write")
    _before(Keeper, "keep", lambda _, which, *a: "audit:head" if which == "file" else None)
    _after(SqlStore, "copy_audit", lambda copied, *a, **k: "audit:copied" if copied else None)
    _after(SqlStore, "claim_session", lambda won, *a, **k: "claim" if won else None)
    _before(SqlStore, "put_session", lambda *a, **k: "save")


def agent(how: list[str]) -> None:
    """The library agent: ``run``, or ``resume ID [--approve]``."""
    from hookline import Agent, ScriptedModel, load_project, tool
    from hookline._tools.approvals import Approval

    @tool
    def ledger(entry: str) -> str:
        """Append an entry to the ledger."""
        passed("tool:start", escapee=True)
        with open(LEDGER, "a") as file:
            file.write(entry + "\n")
        passed("tool:done", escapee=True)
        return f"noted {entry}"

    cwd = os.getcwd()
    built = Agent(ScriptedModel.from_file("script.json"), tools=[ledger],
                  hooks=load_project(cwd).hooks, cwd=cwd, checkpoint=True, audit=True)  # fmt: skip
    if how[0] == "run":
        built.run_sync(PROMPT)
        return
    answer = Approval.allow(approver="campaign") if "--approve" in how else None

    async def resume() -> None:
        async with built:
            await built.resume(how[1], answer)

    asyncio.run(resume())


def main(argv: list[str]) -> None:
    install()
    if argv[0] == "cli":
        from hookline._cli.main import main as hookline

        sys.argv = ["hookline", *argv[1:]]
        hookline()
    else:
        agent(argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
