"""Which model a ``--model`` value names, and which one ``hookline run`` uses when none is named.

Without ``--model``, the first provider whose key or server address is set in the environment
(``OPENAI_*``, then ``ANTHROPIC_*``) is used; with neither, the offline rule model, and a note
saying how to set one. So the demo, the quick start and the tests need no key and no network.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from hookline._agent.model import ModelClient
from hookline._errors import ConfigError
from hookline.models._providers import ANTHROPIC, OPENAI, PROVIDERS
from hookline.models._rule_model import RuleModel
from hookline.models._scripted import ScriptedModel

#: Said once when ``hookline run`` falls back to the rule model.
NO_PROVIDER = (
    "no model is configured, so the offline rule model answers (set OPENAI_API_KEY or "
    "ANTHROPIC_API_KEY, or pass --model openai:NAME or anthropic:NAME; see docs/models.md)"
)


#: Claude Code's model aliases, as Claude Code 2.1.332 resolves them; each can be changed, as
#: in Claude Code, with ``ANTHROPIC_DEFAULT_<ALIAS>_MODEL``.
CLAUDE_ALIASES: Final = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
    "fable": "claude-fable-5-2",
    "opusplan": "claude-sonnet-5-5",
}


def claude_model(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The Claude model ``name`` means (an alias such as ``sonnet``, or a ``claude-...`` model
    name), as ``claude --model`` takes it; None when it is neither."""
    env = os.environ if env is None else env
    if name in CLAUDE_ALIASES:
        own = "sonnet" if name == "opusplan" else name
        return env.get(f"ANTHROPIC_DEFAULT_{own.upper()}_MODEL") or CLAUDE_ALIASES[name]
    return name if name.startswith("claude-") and ":" not in name else None


def model_from_spec(spec: str, *, env: Mapping[str, str] | None = None) -> ModelClient:
    """``openai[:NAME]``, ``anthropic[:NAME]``, ``scripted:FILE``, ``rules``, or a Claude
    model name or alias (``claude-sonnet-4-5``, ``sonnet``: ``anthropic:`` that model). The
    remote clients read the rest of their settings from ``env`` (default: the environment)."""
    if (claude := claude_model(spec, env)) is not None:
        spec = f"anthropic:{claude}"
    kind, _, value = spec.partition(":")
    if kind == "rules" and not value:
        return RuleModel()
    if kind == "scripted" and value:
        return ScriptedModel.from_file(value)
    if kind == OPENAI.name:
        from hookline.models._openai import OpenAIModel

        return OpenAIModel(value or None, env=env)
    if kind == ANTHROPIC.name:
        from hookline.models._anthropic import AnthropicModel

        return AnthropicModel(value or None, env=env)
    raise ConfigError(
        f"unknown model {spec!r}",
        key="--model",
        fix="use --model openai:NAME, anthropic:NAME, scripted:FILE, rules or a Claude model "
        "name (claude-..., sonnet, opus, haiku)",
    )


def default_spec(env: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """The ``--model`` value to use when none is given, and the note to show with it (None
    when a provider is configured)."""
    env = os.environ if env is None else env
    for provider in PROVIDERS:
        if provider.configured(env):
            return provider.spec(env), None
    return "rules", NO_PROVIDER
