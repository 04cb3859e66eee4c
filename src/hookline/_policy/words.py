"""The policy in words: ``in_words(described(...))``, the text ``GET /policy`` answers with
``Accept: text/plain`` and ``hookline policy`` prints.

It says which rules and hooks exist and where each comes from, so a person (or an agent told
"no") can see what refused a call and where to change it. Nothing here reads files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import groupby
from typing import Any

from hookline._support.display import shown


def in_words(view: Mapping[str, Any]) -> str:
    """``view`` (``hookline._policy.view.described``) as lines a person reads."""
    return "\n".join(_lines(view)) + "\n"


def _lines(view: Mapping[str, Any]) -> Iterator[str]:
    yield f"policy {view['short']} (sha256 {view['policy']})"
    yield f"loaded {view['loaded_at']} from {view['folder']}"
    if not view["trusted"]:
        yield "this folder is not trusted: its own hooks do not run"
    refused = view.get("reload_refused")
    if refused:
        yield f"a reload at {refused['at']} was refused, so this policy still serves: " + shown(
            refused["error"]
        )
    yield ""
    yield from _permissions(view["permissions"], sandbox=view["sandbox"])
    yield ""
    yield from _hooks(view["hooks"])
    yield ""
    yield "files:"
    yield from (_file(file) for file in view["files"]) if view["files"] else ["  none"]
    project = view.get("project")
    if project is not None:
        yield ""
        yield from _project(project)


def _project(project: Mapping[str, Any]) -> Iterator[str]:
    """The project policy that tightens this one (``GET /policy?cwd=``), or why none does."""
    where = project.get("folder") or "no project folder"
    if "short" not in project:
        why = project.get("not_consulted") or project.get("error")
        yield f"project {where}: not consulted ({why})"
        return
    yield f"tightened by the project at {where} ({project['part']}):"
    yield from (f"  {line}" if line else "" for line in _lines(project))


def _permissions(permissions: Mapping[str, Any], *, sandbox: bool) -> Iterator[str]:
    yield f"permission mode: {permissions['mode']} (when the host sends none)"
    for kind in ("deny", "ask", "allow"):
        rules = permissions[kind]
        yield f"{kind} rules:" + ("" if rules else " none")
        yield from (f"  {shown(r['rule'])}  from {shown(r['source'])}" for r in rules)
    yield "dangerous tier: " + _dangerous(permissions["dangerous_tier"])
    code = permissions["protected_set"]["code_files"]
    yield "protected set: on (.claude, .hookline, .git hooks and config" + (
        f", {len(code)} hook code file{'s' if len(code) != 1 else ''})" if code else ")"
    )
    yield f"changes no rule allows: {permissions['mutating']}"
    yield f"OS sandbox for Bash: {'on' if sandbox else 'off'}"


def _dangerous(tier: Mapping[str, Any]) -> str:
    parts = ["on, built-in entries" if tier["built_in"] else "built-in entries off"]
    if tier["added"]:
        parts.append("added: " + ", ".join(shown(name) for name in tier["added"]))
    return "; ".join(parts)


def _hooks(hooks: list[Mapping[str, Any]]) -> Iterator[str]:
    yield "hooks:" + ("" if hooks else " none")
    for event, group in groupby(hooks, key=lambda hook: hook["event"]):
        yield f"  {event}"
        for hook in group:
            what = f"{shown(hook['matcher'])}  {hook['handler']} {shown(hook['runs'])}"
            yield f"    {what}  ({hook['kind']}; on failure: {hook['when_it_fails']})"
            yield f"      from {shown(hook['source'])}"


def _file(file: Mapping[str, Any]) -> str:
    sha = file["sha256"][:12] if file["sha256"] else "unreadable"
    return f"  {sha}  {file['role']}  {shown(file['path'])}"
