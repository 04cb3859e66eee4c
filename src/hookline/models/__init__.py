"""Model clients: the offline doubles (``ScriptedModel``, ``RuleModel``: no network, no API key)
and the real ones, each on its provider's official SDK, an optional extra (``OpenAIModel``:
``pip install 'hookline[openai]'``, ``AnthropicModel``: ``pip install 'hookline[anthropic]'``).
``model_from_spec`` turns a ``--model`` value into one; ``ScriptServer`` answers as those APIs
would, from a ``Script``, offline; docs/models.md says how to write your own. Each name is
imported when first used, so a provider's SDK loads only for the client that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hookline._support.exports import Exports

if TYPE_CHECKING:  # the table below, for type checkers (a test keeps the two equal)
    from hookline.models.anthropic import AnthropicModel as AnthropicModel
    from hookline.models.choice import model_from_spec as model_from_spec
    from hookline.models.fallback import FallbackModel as FallbackModel
    from hookline.models.openai import OpenAIModel as OpenAIModel
    from hookline.models.rule_model import RuleModel as RuleModel
    from hookline.models.scripted import Script as Script
    from hookline.models.scripted import ScriptedModel as ScriptedModel
    from hookline.models.serve import ScriptServer as ScriptServer

#: The public names, by where each is defined (``__all__`` is made from it).
_EXPORTS: Final = Exports.of(
    __name__,
    {
        "hookline.models.anthropic": ("AnthropicModel",),
        "hookline.models.choice": ("model_from_spec",),
        "hookline.models.fallback": ("FallbackModel",),
        "hookline.models.openai": ("OpenAIModel",),
        "hookline.models.rule_model": ("RuleModel",),
        "hookline.models.scripted": ("Script", "ScriptedModel"),
        "hookline.models.serve": ("ScriptServer",),
    },
)

__all__ = _EXPORTS.names
__getattr__ = _EXPORTS.get
__dir__ = _EXPORTS.dir
