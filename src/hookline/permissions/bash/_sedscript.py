"""A sed command's scripts read command by command, for the two things sed can do besides edit
its stream: run a command (the ``e`` command, the ``s///e`` flag) and write a file (``w``/``W``,
``s///w``). ``why_sed_unreadable(args)`` is "" when no script given on the line can do either
(or ``--sandbox`` forbids them), else why; a script sed reads from a file (``-f``) is sed's own
business, as a program that runs a file.
"""

from __future__ import annotations

from collections.abc import Sequence

from hookline.permissions.bash._words import Word

__all__ = ["why_sed_unreadable"]

#: Commands that take the rest of the line as text or a file name.
_TO_END = frozenset("aicrRwWe")
_LABELLED = frozenset("btT:v")
_PLAIN = frozenset("=dDgGhHlnNpPqQxzFL{}#")
_S_FLAGS = frozenset("gpiImM0123456789")
_LONG_SCRIPTS = ("--expression",)


def why_sed_unreadable(args: Sequence[Word]) -> str:
    """Why a script of ``sed args`` may run a command or write a file; "" when none can."""
    scripts: list[str | None] = []
    explicit, sandbox = False, False
    words = list(args)
    operands: list[str | None] = []
    while words:
        value = words.pop(0).value
        if value in ("-e", "--expression") or (
            value and value.startswith("--e") and "=" not in value
        ):
            explicit = True
            scripts.append(words.pop(0).value if words else "")
        elif value and value.startswith("--e") and "=" in value:
            explicit = True
            scripts.append(value.partition("=")[2])
        elif value and value.startswith("-e") and not value.startswith("--"):
            explicit = True
            scripts.append(value[2:])
        elif value == "--sandbox":
            sandbox = True
        elif value in ("-f", "--file", "-l", "--line-length"):
            explicit |= value in ("-f", "--file")
            words = words[1:]
        elif value and value.startswith("-") and value != "-":
            continue  # sed's other options are flags or take an attached value
        else:
            operands.append(value)
    if not explicit:
        scripts.append(operands[0] if operands else "")
    if sandbox:
        return ""
    for script in scripts:
        if script is None:
            return "`sed` runs a script only run time knows"
        if why := _script(script):
            return why
    return ""


def _script(script: str) -> str:
    index = 0
    while index < len(script):
        index = _address(script, index)
        if index >= len(script):
            break
        command = script[index]
        index += 1
        if command in " \t\n;!":
            continue
        if command in "ewW":
            does = "runs a command" if command == "e" else "writes a file"
            return f"the `sed` command `{command}` {does}"
        if command in _TO_END or command == "#":
            index = _line_end(script, index)
        elif command in _LABELLED:
            index = _label_end(script, index)
        elif command in "sy":
            found = _substitute(script, index, command)
            if isinstance(found, str):
                return found
            index = found
        elif command not in _PLAIN:
            return f"`sed` has a command hookline does not read (`{command}`)"
    return ""


def _address(script: str, index: int) -> int:
    """Past the address at ``index``: ``3``, ``$``, ``/re/``, ``\\cREc``, ``1~2``, ``a,b``."""
    while index < len(script):
        char = script[index]
        if char.isdigit() or char in "$,~+!I M":
            index += 1
        elif char == "/" or char == "\\":
            delimiter = script[index + 1] if char == "\\" and index + 1 < len(script) else "/"
            index = _delimited(script, index + (2 if char == "\\" else 1), delimiter)
        else:
            return index
    return index


def _delimited(script: str, index: int, delimiter: str) -> int:
    """Past the text up to an unescaped ``delimiter``."""
    while index < len(script) and script[index] != delimiter:
        index += 2 if script[index] == "\\" else 1
    return index + 1


def _line_end(script: str, index: int) -> int:
    end = script.find("\n", index)
    return len(script) if end < 0 else end + 1


def _label_end(script: str, index: int) -> int:
    ends = [i for i in (script.find(";", index), script.find("\n", index)) if i >= 0]
    return min(ends) + 1 if ends else len(script)


def _substitute(script: str, index: int, command: str) -> int | str:
    if index >= len(script):
        return f"the `sed {command}` command is not closed"
    delimiter = script[index]
    index = _delimited(script, index + 1, delimiter)
    index = _delimited(script, index, delimiter)
    if index > len(script):
        return f"the `sed {command}` command is not closed"
    while command == "s" and index < len(script) and script[index] not in ";\n}":
        flag = script[index]
        if flag in "ew":
            does = "runs its result as a command" if flag == "e" else "writes a file"
            return f"the `sed s///{flag}` flag {does}"
        if flag not in _S_FLAGS and flag not in " \t":
            return f"`sed s///` has a flag hookline does not read (`{flag}`)"
        index += 1
    return index
