"""What the audit's redactor knows to be a secret: one table of named kinds, each with a pattern.

Every kind is a ``Kind(name, markers, pattern)``. ``markers`` are lowercase literals, at least
one of which occurs in any text the pattern can match: the redactor searches for them first (at
C speed) and runs only the kinds whose marker is there. ``(?P<NAME_p>...)`` is the prefix the
mask keeps (``sk_live_…[REDACTED]``, ``postgres://user:…[REDACTED]@host``), so a reader knows
what was there without the secret. A ``NAME_q`` group is an opening quote: the value then runs
to the closing one.

Every pattern is linear in the length of the text: each starts with a literal or at a token
boundary (a lookbehind), and no two quantifiers can share the characters they consume, so no
start position scans more than its own token. ``tests/test_redact_corpus.py`` plants secrets of
every kind.

Not a kind: password-like pairs in any case (``password=…``, ``"api_key": "…"``), matched
where a keyword starts (``PAIR``), and values under secret-looking dict keys (``SECRET_KEY``).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Kind(NamedTuple):
    """One kind of secret: its name, the literals that must occur, and its pattern."""

    name: str
    markers: tuple[str, ...]
    pattern: str


_TOKEN = r"[A-Za-z0-9._~+/=-]"
#: Just after a ``-`` (a literal first, so the pattern is searched at C speed): the dash came
#: after whitespace, a quote, ``=`` or the start of the text, where an argument starts.
_ARG = r"(?<![^\s'\"=]-)"
#: Names (upper case, as environment variables are) with a secret word in them:
#: ``GITHUB_TOKEN``, ``PGPASSWORD``, ``SECRET_KEY_BASE``, ``STRIPE_API_KEY``, ``DB_PASS``.
_NAME = (
    r"(?:[A-Z0-9]+_){0,8}"
    r"(?:[A-Z0-9]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|APIKEY)"
    r"|(?<=_)(?:KEY|PASS|PWD|PAT))"
    r"(?:_[A-Z0-9]+){0,4}"
)


def _value(name: str) -> str:
    """An optional opening quote (kept, in the prefix), then the value: to the closing quote,
    or to whitespace or a separator."""
    return rf"(?P<{name}_q>[\"'])?)(?({name}_q)[^\"'\n]+|[^\s\"'&;|,]+)"


KINDS: tuple[Kind, ...] = (
    Kind(
        "pem",
        ("private key",),
        r"(?P<pem_p>-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)[\s\S]*?"
        r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    Kind(
        "sk",
        ("sk-",),
        r"(?P<sk_p>sk-(?<![A-Za-z0-9]sk-)(?:ant-(?:api\d\d-)?|proj-|svcacct-|admin-)?)"
        r"[A-Za-z0-9_-]{20,}",
    ),
    Kind(
        "stripe",
        ("k_live_", "k_test_"),
        r"(?P<stripe_p>[sr]k_(?:live|test)_)(?<![A-Za-z0-9_-][sr]k_(?:live|test)_)"
        r"[A-Za-z0-9]{10,}",
    ),
    Kind(
        "aws", ("akia", "asia"), r"(?P<aws_p>A[KS]IA)(?<![A-Z0-9]A[KS]IA)[0-9A-Z]{16}(?![0-9A-Z])"
    ),
    Kind("google", ("aiza",), r"(?P<google_p>AIza)(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{30,}"),
    Kind(
        "github",
        ("gh", "github_pat_"),
        r"(?P<github_p>gh[pousr]_|github_pat_)(?<![A-Za-z0-9]gh[pousr]_)[A-Za-z0-9_]{30,}",
    ),
    Kind(
        "gitlab",
        ("glpat-", "gldt-", "glrt-", "glptt-", "gloas-"),
        r"(?P<gitlab_p>gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|rt|ptt|oas)-)[0-9A-Za-z_.-]{20,}",
    ),
    Kind("npm", ("npm_",), r"(?P<npm_p>npm_)(?<![A-Za-z0-9_-]npm_)[A-Za-z0-9]{30,}"),
    Kind("slack", ("xox", "xapp-"), r"(?P<slack_p>xox[abposr]-|xapp-)[A-Za-z0-9-]{10,}"),
    Kind(
        "auth",
        ("authorization",),
        rf"(?P<auth_p>(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?:(?i:bearer|basic|token)\s+)?)"
        rf"{_TOKEN}{{8,}}",
    ),
    Kind(
        "bearer",
        ("bearer",),
        rf"(?P<bearer_p>(?i:bearer)\s+)"
        rf"(?:(?=[A-Za-z._~+/=-]*[0-9]){_TOKEN}{{12,}}|{_TOKEN}{{24,}})",
    ),
    Kind(
        "jwt",
        ("eyj",),
        r"(?P<jwt_p>eyJ)(?<![A-Za-z0-9_-]eyJ)"
        r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    # scheme://user:PASSWORD@host (the user may be empty: redis://:PASSWORD@host)
    Kind("url", ("://",), r"(?P<url_p>://[^\s:/@'\"]*:)[^\s/'\"]+(?=@)"),
    # curl -u user:PASSWORD, --user=user:PASSWORD (not docker's -u 1000:1000)
    Kind(
        "user_flag",
        ("-u",),
        rf"(?P<user_flag_p>-{_ARG}(?:u|-user|U|-proxy-user)(?:\s+|=)?['\"]?"
        r"(?!\d+:\d+(?![^\s'\"]))[^\s:'\"]*:)[^\s'\"]+",
    ),
    # mysql -pPASSWORD (only in text naming mysql or mariadb: elsewhere -p is a flag)
    Kind("mysql", ("mysql", "mariadb"), rf"(?P<mysql_p>-{_ARG}p{_value('mysql')}"),
    # --password PASSWORD, --db-password=PASSWORD, --passphrase 'PASS PHRASE'
    Kind(
        "password_flag",
        ("-pass",),
        rf"(?P<password_flag_p>-{_ARG}-(?:[A-Za-z0-9]+-){{0,3}}(?i:pass(?:word|wd|phrase)?)"
        rf"(?:\s+|=)(?!-){_value('password_flag')}",
    ),
    # aws configure set aws_secret_access_key VALUE; aws_session_token = VALUE
    Kind(
        "aws_config",
        ("aws_secret_access_key", "aws_session_token"),
        r"(?P<aws_config_p>(?i:aws_secret_access_key|aws_session_token)"
        rf"(?:[ \t]*[=:][ \t]*|[ \t]+){_value('aws_config')}",
    ),
    # .netrc: machine HOST login USER password PASS (or password on a line of its own)
    Kind(
        "netrc",
        ("password", "passwd"),
        r"(?P<netrc_p>(?:(?<![^\n])[ \t]*|(?<![A-Za-z0-9_-])login[ \t]+[^\s]+[ \t]+)"
        rf"(?i:password|passwd)[ \t]+{_value('netrc')}",
    ),
    # sshpass -p PASS; docker login [-u USER] -p PASS; redis-cli -a PASS (other orders: parsed)
    Kind("sshpass", ("sshpass",), rf"(?P<sshpass_p>sshpass[ \t]+-p[ \t]*{_value('sshpass')}"),
    Kind(
        "login",
        ("login",),
        r"(?P<login_p>(?<![A-Za-z0-9_-])login[ \t]+(?:-(?:u|-username)[ \t=]+[^\s]+[ \t]+)?"
        rf"-p[ \t]+{_value('login')}",
    ),
    Kind(
        "redis_cli",
        ("redis-cli",),
        r"(?P<redis_cli_p>redis-cli[ \t]+-a[ \t]+"
        rf"{_value('redis_cli')}",
    ),
    # htpasswd -b FILE USER PASS (-bc, -cb, ...)
    Kind(
        "htpasswd",
        ("htpasswd",),
        r"(?P<htpasswd_p>htpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+[^\s-][^\s]*){2}[ \t]+"
        rf"{_value('htpasswd')}",
    ),
    # openssl -passin pass:PASS (env:, file:, fd: and stdin only say where it is)
    Kind("openssl", ("pass:",), r"(?P<openssl_p>(?<![A-Za-z0-9_-])pass:)[^\s\"']+"),
    # Azure connection strings: ...;AccountKey=BASE64==;...
    Kind("azure", ("accountkey",), r"(?P<azure_p>(?i:AccountKey)[ \t]*=[ \t]*)[^;\s\"']+"),
    # https://hooks.slack.com/services/T…/B…/…
    Kind(
        "slack_webhook",
        ("hooks.slack.com",),
        r"(?P<slack_webhook_p>hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/-]+",
    ),
    # Twilio API keys: SK and 32 hex digits
    Kind("twilio", ("SK",), r"(?P<twilio_p>SK)(?<![A-Za-z0-9]SK)[0-9a-f]{32}(?![0-9A-Za-z])"),
    # Cookie: session=…, Set-Cookie: …
    Kind(
        "cookie",
        ("cookie",),
        r"(?P<cookie_p>(?<![A-Za-z0-9_-])(?i:(?:set-)?cookie)[\"']?[ \t]*:[ \t]*)[^\n\"']+",
    ),
    # SECRET_KEY_BASE=…, export GITHUB_TOKEN=…, DB_PASS: …, "STRIPE_API_KEY": "…"
    Kind(
        "assignment",
        ("KEY", "SECRET", "TOKEN", "PASS", "PWD", "CREDENTIAL", "_PAT"),
        rf"(?<![A-Za-z0-9_])(?P<assignment_p>{_NAME}(?:=|[\"']?[ \t]*:[ \t]*)"
        rf"{_value('assignment')}",
    ),
)

#: ``password=…``, ``"api_key": "…"``, ``token: …`` in any case: tried only where one of
#: ``PAIR_WORDS`` starts (see ``Redactor``).
PAIR = re.compile(
    r"(?P<keep>(?i:passw(?:or)?d|passphrase|secret(?:[_-]?key(?:[_-]base)?)?|api[_-]?key|"
    r"access[_-]?key|private[_-]?key[_-]?id|token)"
    r"[\"']?\s*[:=]\s*(?P<quote>[\"'])?)(?(quote)[^\"'\n]+|[^\s\"'&;,]+)"
)
PAIR_WORDS = ("pass", "secret", "api", "access", "token", "private")

#: Dict keys whose values are secrets whatever they look like.
SECRET_KEY = re.compile(
    r"(?i)(?:^|[_-])(?:password|passwd|pass|passphrase|secret(?:[_-]?key(?:[_-]base)?)?|"
    r"api[_-]?key|access[_-]?key|token|auth|authorization|credentials?|private[_-]?key"
    r"(?:[_-]?id)?)$"
)
