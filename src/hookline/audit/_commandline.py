"""Passwords given to known programs on a command line, found by reading the line as Bash does.

    masked_commands("sshpass -p 'pw 1' ssh host")   # "sshpass -p …[REDACTED] ssh host"

A pattern sees text; this reads the line with the Bash analyser
(``hookline.permissions.bash.analyze``), so the option is found wherever it stands, quoted or
not, after a wrapper (``sudo``, ``env``) or inside ``$(...)``, and the word masked is the one
the program takes as its password:

- an option that takes a password, its value attached (``-pPASS``, ``--password=PASS``) or the
  next word: ``sshpass -p``, ``docker``/``podman``/``helm`` ``login -p``, ``redis-cli -a``,
  ``mysql -pPASS`` (attached only: ``-p`` alone asks), ``sqlcmd -P``, ``mongosh -p``,
  ``ldapsearch -w``, ``zip -P``, ``keytool -storepass``, ``openssl -passin pass:PASS``, ``curl
  -b name=value``, and any program's long option naming a password, passphrase, secret or
  token (``--password``, ``--db-password``, ``--api-token``);
- a password in a place of its own: ``htpasswd -b FILE USER PASS``, ``aws configure set
  aws_secret_access_key VALUE`` (any setting with a secret word in its name), ``rabbitmqctl
  add_user USER PASS``.

Only strings that hold an option or a place these programs use are read (a substring test
first); the patterns of ``hookline.audit._secrets`` run on every string as well. Each password
found is added to ``learned`` (its value, and the word as written, to what it is shown as), so
the redactor masks it wherever else it appears: a permission's reason quoting the line, the
command's output, a hook's message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, NamedTuple

from hookline.permissions.bash import Command, analyze

#: A line longer than this is left to the patterns (reading it would cost more than it tells).
MAX_LENGTH = 20_000
#: A password shorter than this is not masked elsewhere than in its line (it would mask words).
MIN_LEARNED = 4


class Takes(NamedTuple):
    """The options of a program whose value is a password."""

    #: ``-p PASS`` and ``-pPASS``.
    short: frozenset[str] = frozenset()
    #: ``-pPASS`` only (``-p`` alone prompts).
    attached: frozenset[str] = frozenset()
    #: Single-dash words (``-storepass PASS``, ``-passin pass:PASS``).
    words: frozenset[str] = frozenset()


def _takes(short: str = "", attached: str = "", words: str = "") -> Takes:
    return Takes(frozenset(short), frozenset(attached), frozenset(words.split()))


_MYSQL = _takes(attached="p")
_OPENSSL = _takes("k", words="-pass -passin -passout -kfile")
_KEYTOOL = _takes(words="-storepass -keypass -srcstorepass -deststorepass -srckeypass -destkeypass")
_LDAP = _takes("w")
PROGRAMS: Final[dict[str, Takes]] = {
    "sshpass": _takes("p"),
    "redis-cli": _takes("a"),
    "sqlcmd": _takes("P"),
    "mongo": _takes("p"),
    "mongosh": _takes("p"),
    "mongodump": _takes("p"),
    "mongorestore": _takes("p"),
    "mysql": _MYSQL,
    "mysqldump": _MYSQL,
    "mysqladmin": _MYSQL,
    "mariadb": _MYSQL,
    "mariadb-dump": _MYSQL,
    "openssl": _OPENSSL,
    "keytool": _KEYTOOL,
    "ldapsearch": _LDAP,
    "ldapadd": _LDAP,
    "ldapmodify": _LDAP,
    "ldapdelete": _LDAP,
    "ldapwhoami": _LDAP,
    "zip": _takes("P"),
    "unzip": _takes("P"),
    "7z": _takes(attached="p"),
    "mosquitto_pub": _takes("P"),
    "mosquitto_sub": _takes("P"),
    "curl": _takes("b"),
}
#: Programs whose ``login`` subcommand takes ``-p PASS``.
LOGINS = frozenset({"docker", "podman", "buildah", "skopeo", "nerdctl", "helm", "oras", "az"})
#: Long options whose value is a secret (any program).
SECRET_OPTION = re.compile(r"^--(?:[a-z0-9]+-)*(?:pass(?:word|wd|phrase)?|secret|token|api-?key)$")
#: Setting names whose value is a secret (``aws configure set NAME VALUE``).
SECRET_NAME = re.compile(r"(?i)secret|token|passw|private|key$")
#: Substrings one of which a line must hold to be read.
MARKERS = ("pass", "-a", "-p", "-w", "-b", "-k", "-P", "htpasswd", "configure", "add_user")
HINT = "…[REDACTED]"


def masked_commands(text: str, learned: dict[str, str] | None = None) -> str:
    """``text`` with the passwords its commands take masked (``text`` itself when none); each
    one found goes into ``learned``."""
    if len(text) > MAX_LENGTH or not any(marker in text for marker in MARKERS):
        return text
    found = {}
    for raw, value, shown in _secrets(text):
        found[raw] = shown
        if learned is not None:
            learned.update({word: HINT for word in (raw, value) if len(word) >= MIN_LEARNED})
    if not found:
        return text
    for raw in sorted(found, key=len, reverse=True):
        word = re.compile(rf"(?<![^\s=;|&(]){re.escape(raw)}(?![^\s;|&)])")
        text = word.sub(found[raw].replace("\\", "\\\\"), text)
    return text


def _secrets(text: str) -> Iterator[Found]:
    """Each word of ``text`` that is a password."""
    for command in analyze(text).commands:
        yield from _in_command(command)


class Found(NamedTuple):
    """A password on a line: the word as written, the password itself, what the word shows."""

    raw: str
    value: str
    shown: str


def _in_command(command: Command) -> Iterator[Found]:
    name = command.name or ""
    args = [(arg.raw, arg.value) for arg in command.args]
    takes = PROGRAMS.get(name, Takes())
    if name in LOGINS and any(value == "login" for _, value in args):
        takes = _takes("p")
    yield from _options(args, takes, program=name)
    yield from _placed(name, args)


def _options(args: list[tuple[str, str | None]], takes: Takes, *, program: str) -> Iterator[Found]:
    for index, (raw, value) in enumerate(args):
        if value is None or not value.startswith("-"):
            continue
        after = args[index + 1] if index + 1 < len(args) else (None, None)
        option, equals, given = value.partition("=")
        if value.startswith("--"):
            if SECRET_OPTION.match(option):
                if equals:
                    yield Found(raw, given, f"{option}={HINT}")
                elif after[1] is not None:
                    yield Found(str(after[0]), after[1], HINT)
        elif value in takes.words or (len(value) == 2 and value[1] in takes.short):
            where = program == "openssl" and value != "-k"  # names where the password is
            if after[1] is not None and _secret(after[1], program, where):
                secret = after[1][len("pass:") :] if where else after[1]
                yield Found(str(after[0]), secret, f"pass:{HINT}" if where else HINT)
        elif len(value) > 2 and value[1] in takes.short | takes.attached and value[1] != "-":
            yield Found(raw, value[2:], f"{value[:2]}{HINT}")


def _secret(value: str, program: str, where: bool) -> bool:
    """Whether an option's value is the password itself: openssl's ``pass:PASS`` is, its
    ``env:``, ``file:``, ``fd:`` and ``stdin`` only say where it is; curl's ``-b name=value`` is
    a cookie, ``-b FILE`` a file."""
    if where:
        return value.startswith("pass:")
    return "=" in value if program == "curl" else True


def _placed(name: str, args: list[tuple[str, str | None]]) -> Iterator[Found]:
    """Passwords in a place of their own."""
    values = [value for _, value in args]
    at: int | None = None
    if name == "htpasswd" and any(v and v.startswith("-") and "b" in v[1:] for v in values):
        last = values[-1] if values else None
        at = len(args) - 1 if last is not None and not last.startswith("-") else None
    elif name == "aws" and values[:2] == ["configure", "set"] and len(args) >= 4:
        at = 3 if SECRET_NAME.search(values[2] or "") else None
    elif name == "rabbitmqctl" and values[:1] in (["add_user"], ["change_password"]):
        at = 2 if len(args) >= 3 else None
    if at is not None and (value := values[at]) is not None:
        yield Found(args[at][0], value, HINT)
