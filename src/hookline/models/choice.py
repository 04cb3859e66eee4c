"""Which model a ``--model`` value names, and which one ``hookline run`` uses when none is named.

Without ``--model``, the first provider whose key or server address is set in the environment
(``OPENAI_*``, then ``ANTHROPIC_*``) is used; with neither, the offline rule model, and a note
saying how to set one. So the demo, the quick start and the tests need no key and no network.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hookline.agent.model import ModelClient
from hookline.errors import ConfigError
from hookline.models.providers import ANTHROPIC, OPENAI, PROVIDERS
from hookline.models.rule_model import RuleModel
from hookline.models.scripted import ScriptedModel

#: Said once when ``hookline run`` falls back to the rule model.
NO_PROVIDER = (
    "no model is configured, so the offline rule model answers (set OPENAI_API_KEY or "
    "ANTHROPIC_API_KEY, or pass --model openai:NAME or anthropic:NAME; see docs/models.md)"
)


def model_from_spec(spec: str, *, env: Mapping[str, str] | None = None) -> ModelClient:
    """``openai[:NAME]``, ``anthropic[:NAME]``, ``scripted:FILE`` or ``rules``. The remote
    clients read the rest of their settings from ``env`` (default: the environment)."""
    kind, _, value = spec.partition(":")
    if kind == "rules" and not value:
        return RuleModel()
    if kind == "scripted" and value:
        return ScriptedModel.from_file(value)
    if kind == OPENAI.name:
        from hookline.models.openai import OpenAIModel

        return OpenAIModel(value or None, env=env)
    if kind == ANTHROPIC.name:
        from hookline.models.anthropic import AnthropicModel

        return AnthropicModel(value or None, env=env)
    raise ConfigError(
        f"unknown model {spec!r}",
        key="--model",
        fix="use --model openai:NAME, anthropic:NAME, scripted:FILE or rules",
    )


def default_spec(env: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """The ``--model`` value to use when none is given, and the note to show with it (None
    when a provider is configured)."""
    env = os.environ if env is None else env
    for provider in PROVIDERS:
        if provider.configured(env):
            return provider.spec(env), None
    return "rules", NO_PROVIDER
