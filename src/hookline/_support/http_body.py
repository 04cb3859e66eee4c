"""An HTTP answer's body read under a size cap that holds after decompression.

Shared by the HTTP approver and HTTP hooks: a server (or whoever answers in its place) may send
a small gzip body that inflates to gigabytes. ``read_capped`` reads the raw body a network piece
at a time and inflates each piece into at most the room left under the cap (httpx's own
decoders inflate a whole piece at once), so memory stays near the cap whatever is sent. Only
gzip and deflate are inflated; any other ``Content-Encoding`` is refused.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx


class BodyRefused(Exception):
    """The body was not read: too large once inflated, or in an encoding hookline does not read."""


async def read_capped(response: httpx.Response, limit: int) -> bytes:
    """The body of a streamed ``response``, inflated; BodyRefused past ``limit`` bytes."""
    import httpx  # the caller has it loaded already: a program without HTTP never gets here

    too_big = f"answered more than the {limit}-byte limit on an answer"
    try:
        loaded = response.content  # a response built whole (a mock transport): already read
    except httpx.ResponseNotRead:
        pass
    else:
        if len(loaded) > limit:
            raise BodyRefused(too_big)
        return loaded
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyRefused(too_big)
    inflate = _inflater(response.headers.get("Content-Encoding", ""))
    body = bytearray()
    try:
        async for raw in response.aiter_raw():
            pending = raw
            while pending:
                if inflate is None:
                    piece, pending = pending, b""
                else:
                    piece = inflate.decompress(pending, limit - len(body) + 1)
                    pending = inflate.unconsumed_tail
                body += piece
                if len(body) > limit:
                    raise BodyRefused(too_big + " once decompressed" if inflate else too_big)
        if inflate is not None:
            body += inflate.flush()
    except zlib.error as exc:
        raise BodyRefused(f"answered a compressed body that cannot be inflated ({exc})") from exc
    if len(body) > limit:
        raise BodyRefused(too_big)
    return bytes(body)


def _inflater(encoding: str) -> Any:
    """A zlib decompressor for ``Content-Encoding`` gzip or deflate; None for none."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return None
    if coding in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(zlib.MAX_WBITS | 32)  # a gzip or a zlib header
    raise BodyRefused(
        f"answered Content-Encoding {encoding[:40]!r}; only gzip and deflate are read"
    )
