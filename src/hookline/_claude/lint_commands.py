"""What a command hook's command line gets wrong, for ``hookline._claude.lint``: a program that
cannot start (``program_problem``), and the project folder where a shell may split it or read it
as code (``project_dir_problem``). Nothing is run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path
from typing import Final

from hookline._claude.command import CommandHook
from hookline._claude.project_dir import references, shell_code_index

#: Shell keywords and builtins: a first word the shell runs without looking on PATH.
_SHELL_WORDS: Final = frozenset(
    ". : alias break case cd command continue do done echo elif else esac eval exec "  # noqa: SIM905
    "exit export false fi for function getopts hash if in let local printf pwd read readonly "
    "return set shift source test then time trap true type ulimit umask unset until wait "
    "while".split()
)
#: A word with nothing the shell would expand or treat as syntax.
_PLAIN: Final = re.compile(r"[\w./+@%:,-]+")
_PROJECT_DIR: Final = re.compile(r"\$(?:\{CLAUDE_PROJECT_DIR\}|CLAUDE_PROJECT_DIR(?!\w))")
_INTERPRETER: Final = re.compile(r"(?:ba|da|k|z)?sh|python[\d.]*|pypy[\d.]*|node|ruby|perl|php")
_SCRIPT: Final = re.compile(r".*/.*|.*\.(?:sh|py|js|mjs|cjs|ts|rb|pl|php)")


def program_problem(hook: CommandHook) -> tuple[str, str] | None:
    base = hook.project_dir
    if hook.args is not None:
        return _missing(hook.command.replace("${CLAUDE_PROJECT_DIR}", base), base)
    words = _leading_words(hook.command, base)
    if not words:
        return None
    program, *rest = words
    if problem := _missing(program, base):
        return problem
    script = rest[0] if rest and _INTERPRETER.fullmatch(Path(program).name) else ""
    if _SCRIPT.fullmatch(script) and not Path(base, script).exists():
        return f"script {script} does not exist", _PATH_FIX
    return None


def _leading_words(command: str, project_dir: str) -> list[str]:
    """The first word (and the second, when plain) as the shell reads them; [] if unsure."""
    try:
        words = shlex.split(command, comments=True)[:2]
    except ValueError:  # an open quote
        return []
    plain = []
    for word in words:
        if not _PLAIN.fullmatch(_PROJECT_DIR.sub("P", word.removeprefix("~/"))):
            break
        plain.append(os.path.expanduser(_PROJECT_DIR.sub(lambda _: project_dir, word)))
    return plain


_PATH_FIX: Final = (
    'check the path; relative paths start at the project, or use "$CLAUDE_PROJECT_DIR"/'
)


def _missing(program: str, base: str) -> tuple[str, str] | None:
    """Why ``program`` cannot be started, and the fix; None if it can."""
    if "/" not in program:
        if program in _SHELL_WORDS or shutil.which(program):
            return None
        return f"command {program!r} is not found on PATH", "install it, or give its full path"
    path = Path(base, program)
    if not path.exists():
        return f"command {program} does not exist", _PATH_FIX
    if not path.is_file() or not os.access(path, os.X_OK):
        return f"command {program} is not executable", f"chmod +x {program}"
    return None


_QUOTE_IT: Final = 'quote it: "$CLAUDE_PROJECT_DIR"/x.sh'


def project_dir_problem(hook: CommandHook) -> tuple[str, str] | None:
    code, at = hook.command, None
    if hook.args is not None:
        at = shell_code_index(hook.command, hook.args)
        if at is None:
            return None  # no shell reads the arguments as code
        code = hook.args[at]
    for found, quoting in references(code):
        if at is not None and found.group().startswith("${"):
            return (
                "${CLAUDE_PROJECT_DIR} in shell code: Claude Code pastes the folder's path into "
                "the code, so a folder named proj$(cmd) runs cmd (hookline passes it as a "
                "variable)",
                f'{_QUOTE_IT} inside the code, or run the script without a shell: "command": '
                '"${CLAUDE_PROJECT_DIR}/x.sh"',
            )
        if quoting == "unquoted":
            return (
                f"{found.group()} is outside double quotes: the shell splits the folder's path "
                "at spaces and expands * and ? in it",
                _QUOTE_IT,
            )
    return None
