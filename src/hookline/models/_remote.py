"""What the OpenAI and Anthropic clients share: where to send, the SDK client of the running
event loop, streamed or whole answers, and every failure as a one-line ModelError.

Retries are the SDK's own (``max_retries``: 408, 409, 429, 5xx and lost connections, with
exponential backoff from 0.5 s, jitter, and the server's ``retry-after``); ``timeout`` is how
long to wait for the next bytes of an answer (``CONNECT_TIMEOUT`` for the connection). A
client streams by default, so a long answer never waits as a whole, and ``on_text`` sees the
text as it comes.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping, Sequence
from functools import cache
from types import ModuleType
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from hookline._agent.messages import Message
from hookline._agent.model import TextSink
from hookline.models._failures import model_error
from hookline.models._providers import Endpoint, Provider

#: Seconds to wait for the next bytes of an answer (for a whole answer, when not streaming).
REQUEST_TIMEOUT = 600.0
#: Seconds to wait for a connection.
CONNECT_TIMEOUT = 10.0
#: Retries after the first try, on 408, 409, 429, 5xx and lost connections.
DEFAULT_RETRIES = 3


class _SdkClient(Protocol):
    """What both SDKs' async clients have in common here."""

    async def close(self) -> None: ...


Client = TypeVar("Client", bound=_SdkClient)


class RemoteModel(Generic[Client]):
    """A model behind an HTTP API, called through its official SDK."""

    provider: ClassVar[Provider]
    #: The SDK's module and its HTTP library's; None when the SDK is not installed.
    sdk: ClassVar[ModuleType | None]
    http: ClassVar[ModuleType | None]
    #: The name of the SDK's async client class (``AsyncOpenAI``, ``AsyncAnthropic``).
    client_class: ClassVar[str]

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        on_text: TextSink | None = None,
        stream: bool = True,
        timeout: float = REQUEST_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        env: Mapping[str, str] | None = None,
    ) -> None:
        sdk, http = self.sdk, self.http
        if sdk is None or http is None:
            raise self.provider.missing_sdk()
        self._sdk, self._http = sdk, http
        self.endpoint = Endpoint.resolve(
            self.provider, model=model, base_url=base_url, api_key=api_key, env=env
        )
        self.name = self.endpoint.model
        self.on_text = on_text
        self.stream = stream
        self.timeout = timeout
        self.max_retries = max_retries
        self._client: Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        """The next assistant message; a ModelError when the call fails for good."""
        client = self._connected()
        try:
            if self.stream:
                return await self._streamed(client, messages, tools, system)
            reply = await self._whole(client, messages, tools, system)
            if self.on_text is not None and reply.text:
                self.on_text(reply.text)  # all at once: the pieces still join to the text
            return reply
        except Exception as exc:
            error = model_error(
                exc,
                self._sdk,
                self._http,
                self.endpoint,
                retries=self.max_retries,
                timeout=self.timeout,
            )
            if error is None:
                raise
            raise error from None

    async def aclose(self) -> None:
        """Close the SDK client's connections; the next call opens new ones."""
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.close()

    def __repr__(self) -> str:
        endpoint = self.endpoint
        return f"{type(self).__name__}({endpoint.model!r}, base_url={endpoint.base_url!r})"

    def _new_client(self) -> Client:
        """The SDK's client for this endpoint: ``timeout`` for reads, at most
        ``CONNECT_TIMEOUT`` to connect, and the process's one TLS context (loading the CA
        certificates for each new client costs tens of milliseconds)."""
        sdk = self._sdk
        client: Client = getattr(sdk, self.client_class)(
            api_key=self.endpoint.api_key,
            base_url=self.endpoint.base_url,
            timeout=sdk.Timeout(self.timeout, connect=min(CONNECT_TIMEOUT, self.timeout)),
            max_retries=self.max_retries,
            http_client=sdk.DefaultAsyncHttpxClient(verify=_tls(self._http)),
        )
        return client

    def _connected(self) -> Client:
        """The SDK client for the running event loop: its pooled connections belong to it."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._new_client(), loop
        return self._client

    # -- what each provider fills in -----------------------------------------------------------

    async def _whole(
        self,
        client: Client,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        system: str | None,
    ) -> Message:
        raise NotImplementedError

    async def _streamed(
        self,
        client: Client,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        system: str | None,
    ) -> Message:
        raise NotImplementedError


@cache
def _tls(http: ModuleType) -> ssl.SSLContext:
    """The TLS context every client of this process shares (it honours ``SSL_CERT_FILE``)."""
    context: ssl.SSLContext = http.create_ssl_context()
    return context
