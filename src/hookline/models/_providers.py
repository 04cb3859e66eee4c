"""The two remote providers: their environment variables, defaults and install hints.

Nothing here imports a provider's SDK, so the CLI can choose a model (and say what to set)
without paying for an import it may not need.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from hookline._errors import ConfigError


@dataclass(frozen=True, slots=True)
class Provider:
    """A remote model API: what ``--model NAME:`` says, and the variables that configure it."""

    #: The ``--model`` prefix, the optional extra (``hookline[NAME]``) and the SDK's module.
    name: str
    label: str
    key_var: str
    url_var: str
    model_var: str
    default_model: str
    default_url: str

    def configured(self, env: Mapping[str, str]) -> bool:
        """Whether ``env`` sets this provider's key or server address."""
        return bool(env.get(self.key_var) or env.get(self.url_var))

    def spec(self, env: Mapping[str, str]) -> str:
        """The ``--model`` value for this provider's model as ``env`` names it."""
        return f"{self.name}:{env.get(self.model_var) or self.default_model}"

    def missing_sdk(self) -> ConfigError:
        """The error when the official SDK is not installed."""
        return ConfigError(
            f"the {self.label} client needs the {self.name!r} package, which is not installed",
            key=f"--model {self.name}:",
            fix=f"pip install 'hookline[{self.name}]'",
        )


OPENAI = Provider(
    name="openai",
    label="OpenAI",
    key_var="OPENAI_API_KEY",
    url_var="OPENAI_BASE_URL",
    model_var="OPENAI_MODEL",
    default_model="gpt-4o",
    default_url="https://api.openai.com/v1",
)
ANTHROPIC = Provider(
    name="anthropic",
    label="Anthropic",
    key_var="ANTHROPIC_API_KEY",
    url_var="ANTHROPIC_BASE_URL",
    model_var="ANTHROPIC_MODEL",
    default_model="claude-sonnet-4-5",
    default_url="https://api.anthropic.com",
)
#: In the order ``hookline run`` without ``--model`` looks for one that is configured.
PROVIDERS = (OPENAI, ANTHROPIC)
#: What a client sends as its key to a server named by the URL variable that needs none.
NO_KEY = "unused"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one client sends its requests: each part from the argument, else the
    environment, else the provider's default."""

    provider: Provider
    model: str
    base_url: str
    api_key: str

    @property
    def where(self) -> str:
        """The API as an error line names it: ``OpenAI at https://...``."""
        return f"{self.provider.label} at {self.base_url}"

    @classmethod
    def resolve(
        cls,
        provider: Provider,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Endpoint:
        """The endpoint, or a ConfigError naming the variable to set."""
        env = os.environ if env is None else env
        url = base_url or env.get(provider.url_var) or None
        key = api_key or env.get(provider.key_var) or None
        if url is not None and not url.startswith(("http://", "https://")):
            raise ConfigError(
                f"{url!r} is not an http(s) URL",
                key=provider.url_var,
                fix=f"set {provider.url_var} to the API's address, e.g. http://127.0.0.1:8000/v1",
            )
        if key is None and url is None:
            raise ConfigError(
                f"no {provider.label} API key is set",
                key=provider.key_var,
                fix=f"export {provider.key_var}=..., or point {provider.url_var} at a server "
                "that needs no key",
            )
        return cls(
            provider,
            model or env.get(provider.model_var) or provider.default_model,
            url or provider.default_url,
            key or NO_KEY,
        )
