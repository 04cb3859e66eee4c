"""A failed model call, said in one line that names what to fix (``hookline._errors.ModelError``).

Both official SDKs raise the same tree (``APIStatusError`` with ``status_code`` and ``body``;
``APIConnectionError`` and its ``APITimeoutError``; ``APIError`` for the rest, such as an error
event inside a stream), and both retry 408, 409, 429, 5xx and lost connections themselves, with
exponential backoff and the server's ``retry-after``. So what reaches ``model_error`` has failed
for good: a refusal (400-404), or the same failure after the last retry.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from hookline._errors import ModelError
from hookline.models._providers import Endpoint

#: How much of a server's own error message a line quotes.
DETAIL_CHARS = 200


def model_error(
    exc: BaseException,
    sdk: ModuleType,
    http: ModuleType,
    endpoint: Endpoint,
    *,
    retries: int,
    timeout: float,
) -> ModelError | None:
    """``exc``, raised by ``sdk`` or by ``http`` (its HTTP library, while a stream is read), as
    a ModelError; None if it is not a failure of the call (a bug: let it show)."""
    provider, where = endpoint.provider, endpoint.where
    if isinstance(exc, sdk.APIStatusError):
        detail = _detail(exc.body, exc.message)
        if exc.status_code >= 400:
            return refused(exc.status_code, detail, endpoint, retries)
        return ModelError(f"{where} stopped its answer with an error ({detail}): try again")
    if isinstance(exc, sdk.APITimeoutError | http.TimeoutException):
        return ModelError(f"{where} gave no answer within {timeout:g} s: try again later")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc
        return ModelError(
            f"cannot reach {where} ({_short(str(cause) or type(cause).__name__)}): check "
            f"{provider.url_var} and that the server is running"
        )
    if isinstance(exc, http.HTTPError):
        return broke_off(endpoint, str(exc) or type(exc).__name__)
    if isinstance(exc, sdk.APIError | ValueError | RecursionError):
        return garbled(endpoint, str(exc) or type(exc).__name__)
    return None


def broke_off(endpoint: Endpoint, why: str) -> ModelError:
    """The line for an answer cut off half way (the connection or the stream ended early)."""
    return ModelError(f"{endpoint.where} broke off its answer ({_short(why)}): try again")


def garbled(endpoint: Endpoint, why: str) -> ModelError:
    """The line for an answer that cannot be read as the provider's."""
    provider = endpoint.provider
    return ModelError(
        f"{endpoint.where} sent an answer that cannot be read "
        f"({_short(why)}): check that {provider.url_var} points at an "
        f"{provider.label}-compatible API"
    )


def refused(status: int, detail: str, endpoint: Endpoint, retries: int) -> ModelError:
    """The line for an HTTP error status, naming the variable that most likely needs fixing."""
    provider, model = endpoint.provider, endpoint.model
    said = f": {detail}" if detail else ""
    if status == 401:
        text = f"{provider.key_var} was refused ({status}{said}): set a valid key"
    elif status == 403:
        text = (
            f"{provider.key_var} may not use model {model!r} ({status}{said}): use a key with "
            f"access to it, or set {provider.model_var} to another model"
        )
    elif status == 404:
        text = (
            f"{endpoint.base_url} has no model {model!r} or no such API ({status}{said}): set "
            f"{provider.model_var} to a model it serves, or {provider.url_var} to the API's "
            "address (it usually ends in /v1)"
        )
    elif status == 429:
        text = f"{provider.label} kept rate-limiting after {retries} retries ({status}{said}): wait"
    elif status >= 500:
        text = f"{provider.label} kept failing after {retries} retries ({status}{said}): try later"
    else:
        text = (
            f"{provider.label} refused the request ({status}{said}): check {provider.model_var} "
            f"({model!r}) and that the model accepts tools"
        )
    return ModelError(text, status=status)


def _detail(body: Any, fallback: str) -> str:
    """The server's own message: ``{"error": {"message": ...}}``, ``{"message": ...}``, or
    the SDK's summary."""
    for part in (body, body.get("error") if isinstance(body, dict) else None):
        if isinstance(part, dict) and isinstance(part.get("message"), str):
            return _short(part["message"])
    return _short(fallback) if not fallback.startswith("Error code:") else ""


def _short(text: str) -> str:
    """``text`` on one line, at most ``DETAIL_CHARS`` long."""
    flat = " ".join(text.split())
    return flat if len(flat) <= DETAIL_CHARS else flat[: DETAIL_CHARS - 3] + "..."
