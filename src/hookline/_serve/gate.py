"""Who is asking: each hook request admitted as a ``Caller`` (its token's name, tenant and user,
and the address it came from) or turned away with a ``Refusal`` saying why.

A request must carry a valid token (``Authorization: Bearer hl_...``) when the server has any
token (``tokens.json`` lists one, revoked or not) or listens where other machines reach it
(``required``, which ``hookline serve`` sets for an address other than loopback). A server on
loopback with no token answers anyone on this machine, as before tokens. Refused:

    missing        no token where one is needed
    unknown        a token this server never made
    revoked        a token revoked (``hookline serve token revoke``)
    rate-limited   a token over its rate (``hookline._serve.rate``)
    unreadable     the tokens file cannot be read: nobody is let through unchecked

The token itself is never on a record or in an answer; its name is.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hookline._serve import tokens as tokens_file
from hookline._serve.rate import Limits, Quiet

if TYPE_CHECKING:
    from hookline._serve.tokens import Token, TokenFile

_BEARER: Final = "bearer "


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a request came from: its token (None: a loopback server with no tokens) and address."""

    peer: str | None
    token: Token | None = None

    def fields(self) -> dict[str, str]:
        """What a record says of the caller: ``agent`` (the token's name), ``tenant``, ``user``
        and ``peer``, those that are known."""
        token = self.token
        said = {"peer": self.peer}
        if token is not None:
            said |= {"agent": token.name, "tenant": token.tenant, "user": token.user}
        return {key: value for key, value in said.items() if value}


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request turned away: ``reason`` (one word, for the record), ``why`` (for the host)."""

    reason: str
    why: str
    caller: Caller
    #: What the record says beyond ``why`` (the answer does not: it may be anyone's).
    detail: str | None = None
    #: Seconds until the token may call again (rate-limited).
    retry_after: int = 0


class Gate:
    """Admits or refuses each request; ``tokens`` None: a gate that lets every request in."""

    def __init__(
        self,
        tokens: TokenFile | None,
        *,
        required: bool = False,
        limits: Limits | None = None,
        quiet: Quiet | None = None,
    ) -> None:
        self.tokens = tokens
        self.required = required
        self.limits = limits or Limits()
        self.quiet = quiet or Quiet()

    def admit(self, authorization: str | None, peer: str | None) -> Caller | Refusal:
        """The caller of a request with this ``Authorization`` header from ``peer``."""
        checked = self.checked(authorization, peer)
        if isinstance(checked, Refusal) or checked.token is None:
            return checked
        if not self.limits.take(checked.token.name):
            return self._over(checked, checked.token.name)
        return checked

    def checked(self, authorization: str | None, peer: str | None) -> Caller | Refusal:
        """``admit``'s answer but for the rate, which it does not count against."""
        anonymous = Caller(peer)
        if self.tokens is None:
            return anonymous
        known = self.tokens.tokens()
        if self.tokens.broken is not None:
            why = "the server cannot read its tokens now"
            return Refusal("unreadable", why, anonymous, detail=self.tokens.broken)
        secret = _bearer(authorization)
        if not secret:
            if not known and not self.required:
                return anonymous
            return Refusal("missing", "the hook sent no token (Authorization: Bearer)", anonymous)
        token = tokens_file.find(known, secret)
        if token is None:
            return Refusal("unknown", "the hook's token is not one of this server's", anonymous)
        if not token.active:
            return Refusal("revoked", f"the token {token.name} was revoked", Caller(peer, token))
        return Caller(peer, token)

    def _over(self, caller: Caller, name: str) -> Refusal:
        limits = self.limits
        why = (
            f"the token {name} is over its rate ({limits.rate:g} calls a second, "
            f"bursts of {limits.burst}): the call is refused"
        )
        return Refusal("rate-limited", why, caller, retry_after=limits.wait(name))

    def trusted(self, authorization: str | None, peer: str | None) -> bool:
        """Whether a request may see the server's state (``/health``'s break-glass): one from
        this machine, or with a valid token. Counts against no rate."""
        if peer is not None and loopback(peer):
            return True
        if self.tokens is None:
            return not self.required
        secret = _bearer(authorization)
        token = tokens_file.find(self.tokens.tokens(), secret) if secret else None
        return token is not None and token.active

    def on_record(self, refusal: Refusal) -> int | None:
        """None: leave ``refusal`` off the record; else how many like it were left off."""
        who = refusal.caller.token.name if refusal.caller.token else refusal.caller.peer
        return self.quiet.due((refusal.reason, who))


def _bearer(authorization: str | None) -> str:
    if authorization is None or not authorization.lower().startswith(_BEARER):
        return ""
    return authorization[len(_BEARER) :].strip()


def only_loopback(host: str) -> bool:
    """Whether every address ``host`` names is loopback (a name that resolves to nothing
    counts as reachable from elsewhere: the safe side)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(infos) and all(loopback(str(info[4][0])) for info in infos)


def loopback(address: str) -> bool:
    """Whether ``address`` (an IP) is this machine's loopback, IPv4-mapped ones included."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))
