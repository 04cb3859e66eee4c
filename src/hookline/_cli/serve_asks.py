"""``hookline serve``'s options for asks that wait for a person, and its inbox under ``/inbox``.

    hookline serve --asks inbox [--ask-wait 25] [--ask-expiry deny|ask] [--grant-hours 24]
                   [--inbox [--inbox-users FILE] [--notify FORMAT=URL] [--public-url URL]]

``--asks inbox`` makes each ask of the policy a live ask (``hookline._serve.asks``): the host
waits on its hook while a person answers in the inbox. ``--inbox`` serves the inbox itself
under ``/inbox`` (``hookline._inbox``: the same sign-in, users file, CSRF and signed links as
``hookline inbox``), listing the live asks beside the paused sessions of the server's store;
without it, a ``hookline inbox`` on the same store answers them. ``--notify`` tells webhooks
of each live ask as the worker that makes it does; with ``--inbox``, of each paused session of
the store too, as ``hookline inbox --notify`` does (one worker at a time tells them:
``hookline._inbox.telling``). The keys of the sign-in cookie and of the links are made before
the workers fork, so every worker honours them.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from hookline._errors import ConfigError
from hookline._serve.asks import DEFAULT_WAIT, HOOK_TIMEOUT, MODES, ON_EXPIRY, AskSettings
from hookline._serve.grants import LIFE

if TYPE_CHECKING:
    from collections.abc import Callable

    from starlette.routing import BaseRoute

    from hookline._inbox.notify import Notifier, Target
    from hookline._serve.asks import Asks
    from hookline.audit._writer import AuditWriter
    from hookline.storage import LiveAsk

#: Where ``--inbox`` serves the inbox.
INBOX_PATH: Final = "/inbox"

_OPTIONS: Final = (
    click.option(
        "--asks",
        type=click.Choice(MODES),
        default="host",
        show_default=True,
        help="What an ask of the policy becomes: the host's own prompt, or a live ask a person "
        "answers in the inbox while the host waits.",
    ),
    click.option(
        "--ask-wait",
        type=click.FloatRange(1, HOOK_TIMEOUT - 1),
        default=DEFAULT_WAIT,
        show_default=True,
        help=f"Seconds a live ask waits for an answer (under the hooks' {HOOK_TIMEOUT}s).",
    ),
    click.option(
        "--ask-expiry",
        type=click.Choice(ON_EXPIRY),
        default="deny",
        show_default=True,
        help="What a live ask nobody answered in time gets: a deny, or the host's own prompt.",
    ),
    click.option(
        "--grant-hours",
        type=click.FloatRange(min=0, min_open=True, max=24 * 90),
        default=LIFE / 3600,
        show_default=True,
        help="Hours an approval for the rest of a session holds (a host session can be resumed "
        "days later); then its session asks again.",
    ),
    click.option(
        "--inbox",
        "with_inbox",
        is_flag=True,
        help=f"Serve the inbox under {INBOX_PATH}: live asks and paused sessions.",
    ),
    click.option(
        "--inbox-users",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="The inbox's users file (default: $HOOKLINE_INBOX_USERS, else "
        "~/.hookline/inbox-users.json).",
    ),
    click.option(
        "--notify",
        multiple=True,
        metavar="FORMAT=URL",
        help="Tell this webhook of each live ask (with --inbox, of each paused session too): "
        "slack=, teams=, discord= or json=URL.",
    ),
    click.option(
        "--public-url",
        default=None,
        metavar="URL",
        help="Where people reach this server, for the links in notifications.",
    ),
)


def ask_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with the options above."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


@dataclass(frozen=True, slots=True)
class Fleet:
    """What the options asked for, checked once before the server starts."""

    settings: AskSettings
    inbox: bool
    users: Path
    targets: tuple[Target, ...]
    public_url: str | None
    signer_key: bytes
    link_key: bytes

    @classmethod
    def checked(cls, options: dict[str, Any], *, host: str, tls: bool) -> Fleet:
        """The options of ``hookline serve``; a ConfigError naming the one that is wrong."""
        from hookline._cli.inbox_cmd import check_host
        from hookline._inbox.links import link_key
        from hookline._inbox.notify import Target
        from hookline._inbox.users import default_path, load_users

        users = options["inbox_users"] or default_path()
        targets = tuple(Target.parse(given) for given in options["notify"])
        if options["with_inbox"]:
            check_host(host, tls=tls, proxied=False)
            if not load_users(users):
                raise ConfigError(
                    "no users: nobody could sign in to the inbox",
                    file=str(users),
                    fix="hookline inbox user add NAME --role approver",
                )
        settings = AskSettings(
            options["asks"],
            options["ask_wait"],
            options["ask_expiry"],
            options["grant_hours"] * 3600,
        )
        key = link_key() if options["with_inbox"] or targets else b""
        return cls(
            settings,
            options["with_inbox"],
            users,
            targets,
            options["public_url"],
            secrets.token_bytes(32),
            key,
        )

    def wired(
        self, audit: AuditWriter, cwd: str, store: str | None, where: str
    ) -> tuple[Asks | None, list[BaseRoute]]:
        """The live asks and the inbox of one server process (a worker's own), over its audit
        writer and store; ``where``: the URL it listens on."""
        from starlette.routing import Mount

        from hookline._inbox.answer import Resumer
        from hookline._inbox.app import Inbox, create_app
        from hookline._inbox.signin import Signer
        from hookline._serve.asks import Asks
        from hookline.storage import AskStore

        found = audit.store_of()
        if not isinstance(found, AskStore):  # every store of hookline.storage is one
            raise ConfigError("the audit's store keeps no live asks", key="--store")
        box = Inbox(audit, self.users, Resumer(cwd, store), Signer(self.signer_key), self.link_key)
        if self.inbox and self.targets:  # the paused sessions: told by the inbox's loop
            box.notifier = self._notifier(box, where, audit)
            box.tell_live = False  # a live ask: told by the worker that makes it (``_told``)
        asks = None
        if self.settings.mode == "inbox":
            asks = Asks(self.settings, found, audit, told=self._told(box, where))
            box.wake = asks.answered
        mounts: list[BaseRoute] = []
        if self.inbox:
            mounts.append(Mount(INBOX_PATH, app=create_app(box)))
        return asks, mounts

    def _told(self, box: Any, where: str) -> Callable[[LiveAsk], Any] | None:
        """What tells the webhooks of a new live ask (None: no ``--notify``)."""
        if not self.targets:
            return None
        from hookline._inbox.live import pending_of

        notifier = self._notifier(box, where)

        async def told(ask: LiveAsk) -> int:
            return await notifier.newly([pending_of(ask)])

        return told

    def _notifier(self, box: Any, where: str, audit: AuditWriter | None = None) -> Notifier:
        """A notifier of the webhooks, its links to the inbox; with ``audit``, each telling on
        record there and read back, so what was told is not told again."""
        from hookline._inbox.notify import Notifier

        base = self.public_url or where
        inbox = base.rstrip("/") + INBOX_PATH if self.inbox else self.public_url
        return Notifier(self.targets, box.redactor, inbox, self.link_key, audit=audit)
